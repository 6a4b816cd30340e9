package skills

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mdcheck"
)

// Attacks on the reviewers' flow (issue 23): a hostile proposal, a hostile
// pull request, a hand edit of an approved skill, a revoked skill brought
// back. Each test fails when its attack works.

// TestAttackRestoredRevokedSkill: a revoked skill's files are kept in
// skills/.revoked/NAME/, SKILL.md and all, and their hashes still match.
// Copying the folder back must not make the revoked approval run again:
// only a new approval does.
func TestAttackRestoredRevokedSkill(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "pending-ids", readSheet)
	if _, err := approve(w, "pending-ids", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Revoke("pending-ids", RevokeOptions{By: "Rita", At: fixedNow(), Reason: "it leaks"}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(w.Root, SkillsDir, ".revoked", "pending-ids")
	for _, f := range []string{skillMDFile, programFile} {
		writeFile(t, filepath.Join(w.Root, SkillsDir, "pending-ids", f), string(mustRead(t, filepath.Join(src, f))))
	}
	r := run(t, w, newFakeCaller(t, w), string(RunSource("pending-ids")), "{}")
	if r.OK || !strings.Contains(r.Error.Message, `was revoked by Rita`) {
		t.Errorf("the revoked approval runs again once its folder is copied back: %+v", r.Error)
	}
	problems, err := w.Verify()
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Message, "was revoked by Rita") {
		t.Errorf("verify: %v %v", problems, err)
	}
	// A new approval of the same files is a new review: it runs.
	if _, err := approve(w, "pending-ids", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow().Add(3600e9)}); err != nil {
		t.Fatal(err)
	}
	if r := run(t, w, newFakeCaller(t, w), string(RunSource("pending-ids")), "{}"); !r.OK {
		t.Errorf("approved again, it does not run: %+v", r.Error)
	}
}

// TestAttackRevokedSkillBroughtBackInAPullRequest: a pull request that
// moves skills/.revoked/NAME back to skills/NAME showed "new skill", with
// the revoked approval's record as if it stood. The card must say the
// skill was revoked at the base, by whom and why.
func TestAttackRevokedSkillBroughtBackInAPullRequest(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	w := demoWorkspace(t)
	propose(t, w, "pending-ids", readSheet)
	if _, err := approve(w, "pending-ids", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Revoke("pending-ids", RevokeOptions{By: "Rita", At: fixedNow(), Reason: "it leaks phone numbers"}); err != nil {
		t.Fatal(err)
	}
	git(t, w.Root, "init", "-q", "-b", "main")
	git(t, w.Root, "add", ".")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "base")
	git(t, w.Root, "checkout", "-q", "-b", "restore")
	if err := os.Rename(filepath.Join(w.Root, SkillsDir, ".revoked", "pending-ids"), filepath.Join(w.Root, SkillsDir, "pending-ids")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(w.Root, SkillsDir, "pending-ids", "revoked.json")); err != nil {
		t.Fatal(err)
	}
	git(t, w.Root, "add", "-A", "skills")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "restore")
	d, err := w.DiffGit(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown(0)
	if os.Getenv("MCPCODE_SHOW_CARD") != "" {
		t.Log(md)
	}
	if len(mdcheck.Parse(md).Active) > 0 {
		t.Errorf("active nodes in:\n%s", md)
	}
	for _, want := range []string{"It was REVOKED at the base by `Rita` on `2026-11-29 10:00 UTC`, because: `it leaks phone numbers`", "WITH THE APPROVAL THAT WAS REVOKED"} {
		if !strings.Contains(md, want) {
			t.Errorf("the pull request's card lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(d.summary(), "REVOKED") {
		t.Errorf("the summary does not say it was revoked:\n%s", d.summary())
	}
}

// TestAttackRevokedCardIsNotStillShown: approving without --sha256
// approves what `skills show` showed last. That record outlived a
// revocation: the revoked skill's files copied back were approved again
// by a bare `skills approve NAME`, on the strength of a card read before
// it was revoked. Revoking forgets it.
func TestAttackRevokedCardIsNotStillShown(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "pending-ids", readSheet)
	if _, err := approve(w, "pending-ids", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Show("pending-ids"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Revoke("pending-ids", RevokeOptions{By: "Rita", At: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(w.Root, SkillsDir, ".revoked", "pending-ids")
	for _, f := range []string{skillMDFile, programFile} {
		writeFile(t, filepath.Join(w.Root, SkillsDir, "pending-ids", f), string(mustRead(t, filepath.Join(src, f))))
	}
	if _, err := w.Approve("pending-ids", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow().Add(3600e9)}); err == nil || !strings.Contains(err.Error(), "show the card first") {
		t.Errorf("approved again without its card being shown since it was revoked: %v", err)
	}
}
