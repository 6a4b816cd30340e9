package runtime

import (
	"strings"
	"testing"
	"time"
)

// TestLimitsInGettersAndLateCallbacks: a limit hit while the host reads a
// thrown value (its message getter loops past the deadline) is reported as
// that limit, not as an internal error; a late rejection with such a
// getter, after the program finished, leaves the finished run successful.
func TestLimitsInGettersAndLateCallbacks(t *testing.T) {
	t.Parallel()
	short := Limits{Timeout: 500 * time.Millisecond}
	tests := []struct {
		name, src string
		limits    Limits
		ok        bool
		kind      string
		limit     string
		result    string
	}{
		{name: "thrown object whose message getter loops", limits: short,
			src:  `throw { get message() { for (;;) {} } };`,
			kind: KindLimit, limit: LimitTimeout},
		{name: "late rejection with a looping getter, after the result", limits: short,
			src: `setTimeout(() => { Promise.reject({ get message() { for (;;) {} } }); }, 1);
export default "done";`,
			kind: KindLimit, limit: LimitTimeout},
		{name: "a handled rejection with a looping getter is never read", limits: short,
			src: `Promise.reject({ get message() { for (;;) {} } }).catch(() => {});
export default "done";`,
			ok: true, result: `"done"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runSource(t, tt.src, RunOptions{Limits: tt.limits})
			if tt.ok {
				if !res.OK || string(res.Result) != tt.result {
					t.Errorf("result = %s, error %+v; want %s", res.Result, res.Error, tt.result)
				}
				return
			}
			if res.Error == nil || res.Error.Kind != tt.kind || res.Error.Limit != tt.limit || strings.Contains(res.Error.Message, "internal error") {
				t.Errorf("error = %+v, want kind %s limit %s", res.Error, tt.kind, tt.limit)
			}
		})
	}
}
