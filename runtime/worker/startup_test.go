package worker

import (
	goruntime "runtime"
	"slices"
	"strconv"
	"testing"
)

// TestStartEnv: a worker is told this process's GOMAXPROCS unless its
// command sets one; nothing else is added, and the command's slice is not
// changed.
func TestStartEnv(t *testing.T) {
	ours := "GOMAXPROCS=" + strconv.Itoa(goruntime.GOMAXPROCS(0))
	given := make([]string, 1, 4)
	given[0] = "A=1"
	for _, tt := range []struct {
		name      string
		env, want []string
	}{
		{"none", []string{}, []string{ours}},
		{"some", given, []string{"A=1", ours}},
		{"its own", []string{"GOMAXPROCS=7", "B=2"}, []string{"GOMAXPROCS=7", "B=2"}},
	} {
		if got := startEnv(slices.Clip(tt.env)); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	if given[:2][1] != "" {
		t.Errorf("the command's environment was written to: %q", given[:2])
	}
}
