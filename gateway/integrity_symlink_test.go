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

// TestServeDoesNotListSkillsThroughASymlinkedSkillsDir: skills/ itself a
// symbolic link to another directory of approved skills (a cloned
// repository can carry one): read refuses it, and serve offers none of
// its skills as tools either (their descriptions are text from outside the
// workspace).
func TestServeDoesNotListSkillsThroughASymlinkedSkillsDir(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	layOutSkill(t, ws.Root, "elsewhere", "Approved in another directory.")
	approveAsLaidOut(t, ws, "elsewhere")
	outside := filepath.Join(t.TempDir(), "skills")
	if err := os.Rename(filepath.Join(ws.Root, "skills"), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Root, "skills")); err != nil {
		t.Fatal(err)
	}
	_, s := connect(t, ws, Options{}, nil)
	if names := toolNames(t, s); slices.Contains(names, "elsewhere") {
		t.Errorf("a skill under skills/ that is a symbolic link is offered as a tool: %q", names)
	}
}
