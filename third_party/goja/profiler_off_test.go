//go:build !goja_profile

package goja

import (
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestProfilerLeftOut (patch 4): without the goja_profile tag the package
// does not import github.com/google/pprof/profile (whose initialisers every
// process would run), StartProfile says the profiler is not built in, and
// VMs run as usual.
func TestProfilerLeftOut(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	if strings.Contains(string(out), "github.com/google/pprof/profile") {
		t.Error("goja imports github.com/google/pprof/profile without the goja_profile tag")
	}
	if err := StartProfile(io.Discard); err == nil {
		StopProfile()
		t.Error("StartProfile started a profile in a build without the profiler")
	}
	StopProfile() // nothing to stop: no panic
	v, err := New().RunString(`let s = 0; for (let i = 0; i < 1000; i++) s += i; s`)
	if err != nil || v.ToInteger() != 499500 {
		t.Errorf("a VM after StartProfile: %v %v", v, err)
	}
}
