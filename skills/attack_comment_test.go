package skills

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Attacks on the reviewers' flow (issue 23): a hostile proposal, a hostile
// pull request, a hand edit of an approved skill, a revoked skill brought
// back. Each test fails when its attack works.

// TestAttackCutCommentKeepsTheGrant: a pull request adds a skill approved
// with write, and enough else (many files, long names) that the cards do
// not fit a comment: what is left, the summary, said only "new skill".
// Whatever is cut, the summary says that a new skill holds write.
func TestAttackCutCommentKeepsTheGrant(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "lead-writer", writeLead)
	if _, err := approve(w, "lead-writer", ApproveOptions{AllowWrite: true, ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	card, err := w.card("lead-writer", false)
	if err != nil {
		t.Fatal(err)
	}
	card.SinceApproved = &Diff{Name: "lead-writer", Status: DiffAdded, Base: "main at 000000000000"}
	d := &GitDiff{Base: "main", BaseCommit: "0000000000000000000000000000000000000000", Skills: []SkillChange{{Diff: card.SinceApproved, Card: card}}}
	for _, limit := range []int{0, 2000, 600} {
		md := d.Markdown(limit)
		head, _, _ := strings.Cut(md, "\n---\n")
		if !strings.Contains(head, "- `lead-writer`: new skill, **WITH WRITE ACCESS**") {
			t.Errorf("limit %d: the summary does not say the new skill has write:\n%s", limit, head)
		}
	}
}

// TestAttackForgedApproverIsAClaim: in a pull request, SKILL.md's
// approver is whatever the branch's author wrote (git's user.name of
// whoever ran `skills approve`, or a hand edit with the hash recomputed).
// The comment the workflow posts stated it as a fact ("Approved by: the
// maintainer"); it must say that this change records it.
func TestAttackForgedApproverIsAClaim(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	w := demoWorkspace(t)
	propose(t, w, "lead-status", readLead)
	if _, err := approve(w, "lead-status", ApproveOptions{ApprovedBy: "Ana <ana@example.com>", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	git(t, w.Root, "init", "-q", "-b", "main")
	git(t, w.Root, "add", ".")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "base")
	git(t, w.Root, "checkout", "-q", "-b", "change")
	writeFile(t, filepath.Join(w.Root, SkillsDir, "lead-status", programFile), strings.Replace(readLead, `"Lead"`, `"User"`, 1))
	if _, err := approve(w, "lead-status", ApproveOptions{ApprovedBy: "Ana <ana@example.com>", ApprovedAt: fixedNow().Add(60e9)}); err != nil {
		t.Fatal(err)
	}
	propose(t, w, "fresh", readSheet)
	if _, err := approve(w, "fresh", ApproveOptions{ApprovedBy: "Ana <ana@example.com>", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	git(t, w.Root, "add", "-A", "skills")
	git(t, w.Root, "-c", "user.name=Mallory", "-c", "user.email=m@x", "commit", "-q", "-m", "change")
	d, err := w.DiffGit(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	md := d.Markdown(0)
	if n := strings.Count(md, "**Approved by:**"); n != 0 {
		t.Errorf("the card states %d approvals written in this change as facts:\n%s", n, md)
	}
	if n := strings.Count(md, "**Approval recorded in this change:** `Ana <ana@example.com>`"); n != 2 {
		t.Errorf("%d approvals shown as recorded in this change, want 2:\n%s", n, md)
	}
	// The version it is compared with was approved on the base: that
	// stands as the base's record.
	if !strings.Contains(md, "approved by `Ana <ana@example.com>` on `2026-11-29 10:00 UTC`") {
		t.Errorf("the base's approval is not shown:\n%s", md)
	}
	if text := d.Render(); strings.Contains(text, "\nApproved by Ana") {
		t.Errorf("the terminal cards state the approval as a fact:\n%s", text)
	}
}
