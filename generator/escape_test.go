package generator

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// swapForSymlink replaces the directory dir with a symlink to target, the
// way an attacker racing gen would.
func swapForSymlink(t *testing.T, dir, target string) {
	t.Helper()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, dir); err != nil {
		t.Fatal(err)
	}
}

// TestWriteRaceSymlinkSwapCannotEscape swaps a server directory for a
// symlink to a directory outside the out dir after every check has passed,
// just before the file is written: the write must not land outside.
func TestWriteRaceSymlinkSwapCannotEscape(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	outside := filepath.Join(w.root, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	plan, err := Generate([]Server{driveServer(t, tool(t, "get_document", "Gets.", nil))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	swapped := false
	_, err = write(w.out, w.manifest, nil, plan, func(rel string) {
		if swapped || !strings.HasPrefix(rel, "google-drive/") {
			return
		}
		swapped = true
		swapForSymlink(t, filepath.Join(w.out, "google-drive"), outside)
	})
	if !swapped {
		t.Fatal("the writer never wrote a google-drive file; the test did not race anything")
	}
	if files := snapshot(t, outside); len(files) != 0 {
		t.Errorf("files written outside the out dir through a swapped symlink: %v", slices.Sorted(maps.Keys(files)))
	}
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Write through a server directory that became a symlink leading outside: error %v, want one that names the symlink as the likely cause", err)
	}
}

// TestWriteRaceSymlinkSwapCannotRemoveOutside swaps the directory of a
// removed server for a symlink to a copy outside the out dir just before
// the stale files are removed: the copy must survive.
func TestWriteRaceSymlinkSwapCannotRemoveOutside(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil)), slackServer(t)}, Options{})
	outside := filepath.Join(w.root, "outside")
	if err := os.Mkdir(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, content := range snapshot(t, filepath.Join(w.out, "slack")) {
		if err := os.WriteFile(filepath.Join(outside, rel), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := snapshot(t, outside)
	plan, err := Generate([]Server{driveServer(t, tool(t, "get_document", "Gets.", nil))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	swapped := false
	_, err = write(w.out, w.manifest, nil, plan, func(rel string) {
		if swapped || !strings.HasPrefix(rel, "slack/") {
			return
		}
		swapped = true
		swapForSymlink(t, filepath.Join(w.out, "slack"), outside)
	})
	if !swapped {
		t.Fatal("the writer never removed a slack file; the test did not race anything")
	}
	if after := snapshot(t, outside); len(before) == 0 || !mapsEqual(before, after) {
		t.Errorf("removal escaped the out dir through a swapped symlink: files outside before %v, after %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Write removing through a directory that became a symlink leading outside: error %v, want one that names the symlink as the likely cause", err)
	}
}
