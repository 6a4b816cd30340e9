package runtime

import (
	"testing"
	"time"
)

func TestLimitsExceeded(t *testing.T) {
	t.Parallel()
	l := Limits{Memory: 64 << 20}.WithDefaults()
	e := l.Exceeded(LimitMemory)
	if e.Kind != KindLimit || e.Limit != LimitMemory || e.Message != "memory limit of 64 MiB exceeded (--memory)" {
		t.Errorf("Exceeded(memory) = %+v", e)
	}
	if e := l.Exceeded(LimitResultSize); e.Limit != "output" || e.Message != "result limit of 4 MiB of JSON exceeded: return less" {
		t.Errorf("Exceeded(result size) = %+v, want the wire name \"output\"", e)
	}
}

// TestRunStartedCountsAgainstTheTimeout: time spent before Run (bundling,
// say) counts against the wall-time limit when RunOptions.Started says
// when the run began.
func TestRunStartedCountsAgainstTheTimeout(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	p := bundleSource(t, ws, `export default 1;`)
	res := Run(t.Context(), p, RunOptions{Workspace: ws, Limits: Limits{Timeout: time.Minute}, Started: time.Now().Add(-time.Hour)})
	if res.Error == nil || res.Error.Kind != KindLimit || res.Error.Limit != LimitTimeout || res.Error.Message != "wall-time limit of 1m0s exceeded (--timeout)" {
		t.Fatalf("error = %+v, want the wall-time limit", res.Error)
	}
	if res.Stats.DurationMs < time.Hour.Milliseconds() {
		t.Errorf("DurationMs = %d, want it counted from Started", res.Stats.DurationMs)
	}
	res = Run(t.Context(), p, RunOptions{Workspace: ws, Limits: Limits{Timeout: time.Minute}, Started: time.Now().Add(-time.Second)})
	mustOK(t, res)
	if string(res.Result) != "1" || res.Stats.DurationMs < 1000 {
		t.Errorf("result %s, DurationMs %d; want 1, counted from Started", res.Result, res.Stats.DurationMs)
	}
	res = Run(t.Context(), p, RunOptions{Workspace: ws, Started: time.Now().Add(time.Hour)})
	if mustOK(t, res); res.Stats.DurationMs < 0 || res.Stats.DurationMs > time.Minute.Milliseconds() {
		t.Errorf("a Started in the future counts from now: DurationMs %d", res.Stats.DurationMs)
	}
}
