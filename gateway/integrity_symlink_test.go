package gateway

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestServeDoesNotListASymlinkedSkill: an approved skill's folder moved out
// of the workspace and replaced by a symbolic link (a cloned repository
// can carry one) is not a tool: its files are no longer the workspace's.
func TestServeDoesNotListASymlinkedSkill(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	layOutSkill(t, ws.Root, "linked", "Approved, then moved out and linked.")
	approveAsLaidOut(t, ws, "linked")
	layOutSkill(t, ws.Root, "kept", "Approved and unchanged.")
	approveAsLaidOut(t, ws, "kept")
	outside := filepath.Join(t.TempDir(), "linked")
	if err := os.Rename(filepath.Join(ws.Root, "skills", "linked"), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Root, "skills", "linked")); err != nil {
		t.Fatal(err)
	}
	_, s := connect(t, ws, Options{}, nil)
	names := toolNames(t, s)
	if !slices.Contains(names, "kept") {
		t.Errorf("the approved skill is not a tool: %q", names)
	}
	if slices.Contains(names, "linked") {
		t.Errorf("a skill whose folder is a symbolic link is offered as a tool: %q", names)
	}
}
