package app

import (
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// TestOneShotRunStartsOneWorker: a one-shot run (the CLI's) starts exactly
// one worker process; a run that is not keeps one warm for the next and so
// starts two.
func TestOneShotRunStartsOneWorker(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		oneShot bool
		want    int32
	}{{true, 1}, {false, 2}} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "prog.ts"), `export default 6 * 7;`)
		var started atomic.Int32
		a := &App{WorkerCommand: func() *exec.Cmd { started.Add(1); return testWorkerCommand() }}
		ws := openDir(t, a, dir)
		res, err := ws.Run(t.Context(), RunRequest{File: filepath.Join(dir, "prog.ts"), OneShot: tt.oneShot})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK || string(res.Result) != "42" {
			t.Fatalf("OneShot %v: result %s, error %+v", tt.oneShot, res.Result, res.Error)
		}
		if !tt.oneShot {
			// The replacement starts in the background after the run.
			waitUntil(t, func() bool { return started.Load() == tt.want })
		}
		a.Close()
		if n := started.Load(); n != tt.want {
			t.Errorf("OneShot %v: %d workers started, want %d", tt.oneShot, n, tt.want)
		}
	}
}

// waitUntil polls cond until it holds, failing the test after the guard.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("the condition never held")
}
