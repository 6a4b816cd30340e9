//go:build unix

package generator

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteRefusesInPlanOrder: the files on disk are checked in parallel,
// but the refusal reported is the first in the plan's order, and nothing
// is written. Targets that are not regular files (a directory, a symlink,
// a FIFO) are refused without being opened: a FIFO would block a read.
func TestWriteRefusesInPlanOrder(t *testing.T) {
	t.Parallel()
	var tools = []string{"alpha_tool", "beta_tool", "gamma_tool", "delta_tool"}
	for i := range 40 {
		tools = append(tools, "filler_"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+"_"+string(rune('a'+i/26)))
	}
	w := newWorkspace(t)
	var raws []json.RawMessage
	for _, n := range tools {
		raws = append(raws, tool(t, n, "Does "+n+".", nil))
	}
	srv := driveServer(t, raws...)
	w.generate(t, []Server{srv}, Options{})
	dir := filepath.Join(w.out, "google-drive")
	// Edit the tool files so that every one differs (a rewrite), then make
	// three of them unwritable in different ways.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.WriteFile(filepath.Join(dir, e.Name()), []byte("edited"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bad := map[string]func(p string) error{
		"betaTool.ts":  func(p string) error { os.Remove(p); return os.Symlink("index.ts", p) },
		"deltaTool.ts": func(p string) error { os.Remove(p); return os.Mkdir(p, 0o755) },
	}
	bad["gammaTool.ts"] = func(p string) error { os.Remove(p); return syscall.Mkfifo(p, 0o644) }
	for name, mk := range bad {
		if err := mk(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	plan, err := Generate([]Server{srv}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		_, err = Write(w.out, w.manifest, plan)
		if err == nil || !strings.Contains(err.Error(), "betaTool.ts") || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("Write: %v, want the refusal of betaTool.ts (the first in the plan's order)", err)
		}
	}
	// Nothing written: the edits are there, no temp file was left.
	after, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(entries) {
		t.Fatalf("%d entries after the refused write, %d before", len(after), len(entries))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "alphaTool.ts")); string(b) != "edited" {
		t.Fatalf("a refused write rewrote alphaTool.ts: %q", b)
	}
	// Then the directory (delta < gamma), then the FIFO.
	os.Remove(filepath.Join(dir, "betaTool.ts"))
	if _, err = Write(w.out, w.manifest, plan); err == nil || !strings.Contains(err.Error(), "deltaTool.ts") {
		t.Fatalf("Write: %v, want the refusal of deltaTool.ts", err)
	}
	os.Remove(filepath.Join(dir, "deltaTool.ts"))
	if _, err = Write(w.out, w.manifest, plan); err == nil || !strings.Contains(err.Error(), "gammaTool.ts") || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("Write: %v, want the refusal of the FIFO gammaTool.ts", err)
	}
}
