package app

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackMailmapCannotNameAnotherEditor: verify names who changed a
// skill's file as git knows it. A pull request controls .mailmap, which
// git may apply to names it prints: Mallory's edit, mapped to the
// approver's name, would read as the approver's own. verify names the
// commit's author as recorded.
func TestAttackMailmapCannotNameAnotherEditor(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	ws := demoWorkspaceApp(t)
	gitIn(t, ws.Root, "init", "-q", "-b", "main")
	approveSkill(t, ws, "pending-ids", listIDs, false, "")
	gitIn(t, ws.Root, "add", ".")
	gitIn(t, ws.Root, "-c", "user.name=Ana", "-c", "user.email=ana@example.com", "commit", "-q", "-m", "approve")
	writeFile(t, filepath.Join(ws.Root, "skills", "pending-ids", "index.ts"), strings.Replace(listIDs, `"pending"`, `"shipped"`, 1))
	writeFile(t, filepath.Join(ws.Root, ".mailmap"), "Ana <ana@example.com> Mallory <m@evil.example>\n")
	gitIn(t, ws.Root, "add", ".")
	gitIn(t, ws.Root, "-c", "user.name=Mallory", "-c", "user.email=m@evil.example", "-c", "log.mailmap=true", "commit", "-q", "-m", "small fix")
	problems, err := ws.VerifySkills()
	if err != nil || len(problems) != 1 {
		t.Fatalf("verify: %v %v", problems, err)
	}
	if msg := problems[0].Message; !strings.Contains(msg, "by Mallory <m@evil.example>") || strings.Contains(msg, "by Ana <ana@example.com>;") {
		t.Errorf("verify names the editor as:\n%s", msg)
	}
}
