//go:build linux

package pipesize

import (
	"os"
	"testing"
)

// TestGrow: the pipe's buffer is Large after Grow on either end, and the
// pipe still carries data; a file that is not a pipe is left alone.
func TestGrow(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before := fdSize(t, r)
	Grow(r)
	after := fdSize(t, r)
	if after != Large && after <= before {
		t.Errorf("pipe buffer %d -> %d bytes, want %d", before, after, Large)
	}
	if _, err := w.Write([]byte("x\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 2)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "x\n" {
		t.Errorf("read %q, %v", buf[:n], err)
	}
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	Grow(f) // not a pipe: nothing happens, no panic
	Grow(nil)
}

func fdSize(t *testing.T, f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	_ = rc.Control(func(fd uintptr) { n = size(fd) })
	return n
}
