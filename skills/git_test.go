package skills

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/runtime"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// TestProposeGit lays a skill out as approved on a new branch in one
// commit, leaving the working tree, the index and the current branch as
// they were.
func TestProposeGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for the pull-request flow test: install git")
	}
	w := demoWorkspace(t)
	// The workspace is a subdirectory of the repository.
	repo := t.TempDir()
	ws := filepath.Join(repo, "agents", "ws")
	if err := os.MkdirAll(filepath.Dir(ws), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(w.Root, ws); err != nil {
		t.Fatal(err)
	}
	w = NewWorkspace(ws)
	// ProposeGit's context reaches the bundler.
	type ctxKey struct{}
	var bundledWith []any
	w.Bundle = func(ctx context.Context, o runtime.BundleOptions) (*runtime.Program, error) {
		bundledWith = append(bundledWith, ctx.Value(ctxKey{}))
		return runtime.Bundle(o)
	}
	git(t, repo, "init", "-q", "-b", "main")
	git(t, repo, "-c", "user.name=t", "-c", "user.email=t@x", "add", ".")
	git(t, repo, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "base")
	head := git(t, repo, "rev-parse", "HEAD")
	writeFile(t, filepath.Join(ws, "uncommitted.txt"), "work in progress")
	statusBefore := git(t, repo, "status", "--porcelain")

	prog := filepath.Join(ws, "note.ts")
	writeFile(t, prog, writeLead)
	gp, err := w.ProposeGit(context.WithValue(t.Context(), ctxKey{}, "the caller's"), ProposeOptions{Name: "note-lead", Description: "Adds a note to the lead.", Rationale: "Done after every call.", Program: []byte(writeLead), ProgramPath: prog, Now: fixedNow, TypeCheck: checkedTS})
	if err != nil {
		t.Fatal(err)
	}
	if len(bundledWith) != 1 || bundledWith[0] != "the caller's" {
		t.Errorf("the bundler got contexts carrying %v, want one: the caller's", bundledWith)
	}
	if gp.Branch != "skill/note-lead" {
		t.Errorf("branch %q", gp.Branch)
	}
	if got := git(t, repo, "rev-parse", "skill/note-lead^"); got != head {
		t.Errorf("the branch is not one commit on top of HEAD: parent %s, HEAD %s", got, head)
	}
	files := git(t, repo, "diff", "--name-only", head, "skill/note-lead")
	want := "agents/ws/skills/README.md\nagents/ws/skills/note-lead/SKILL.md\nagents/ws/skills/note-lead/index.ts"
	if files != want {
		t.Errorf("files in the commit:\n%s\nwant:\n%s", files, want)
	}
	md := git(t, repo, "show", "skill/note-lead:agents/ws/skills/note-lead/SKILL.md")
	fm, _, err := ParseSkillMD([]byte(md))
	if err != nil {
		t.Fatal(err)
	}
	if fm.Write() {
		t.Error("the pull request grants write by itself")
	}
	if tc := fm.TypeCheck([]byte(writeLead)); tc == nil || *tc != *checkedTS {
		t.Errorf("SKILL.md records the type check %+v, want %+v", tc, checkedTS)
	}
	if git(t, repo, "rev-parse", "--abbrev-ref", "HEAD") != "main" || git(t, repo, "rev-parse", "HEAD") != head {
		t.Error("the current branch moved")
	}
	if got := git(t, repo, "status", "--porcelain"); got != statusBefore+"\n?? agents/ws/note.ts" && got != "?? agents/ws/note.ts\n"+statusBefore {
		t.Errorf("the working tree changed:\n%s\nbefore:\n%s", got, statusBefore)
	}
	if _, err := os.Stat(filepath.Join(ws, "skills")); !os.IsNotExist(err) {
		t.Errorf("skills/ appeared in the working tree: %v", err)
	}

	// Checked out and verified (as CI would), the write tool needs a
	// reviewer's grant. A grant typed into SKILL.md is no approval (the
	// hash covers the grant); a reviewer grants it with mcpcode on the
	// branch, and then verify passes.
	checkout := t.TempDir()
	git(t, repo, "worktree", "add", "-q", checkout, "skill/note-lead")
	cw := NewWorkspace(filepath.Join(checkout, "agents", "ws"))
	// Its card, and the pull request's comment, say it type-checked.
	checked := "SKILL.md records that the program type-checked with TypeScript 7.0.2 against the tree version 5e2b4c1d9a7f"
	card, err := cw.Show("note-lead")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(card.Render(), "Type check: "+checked) {
		t.Errorf("the card does not say %q:\n%s", checked, card.Render())
	}
	diff, err := cw.DiffGit(t.Context(), "main")
	if err != nil {
		t.Fatal(err)
	}
	comment := strings.ReplaceAll(diff.Markdown(0), "`", "")
	if !strings.Contains(comment, "**Type check:** "+checked) {
		t.Errorf("the pull request's comment does not say %q:\n%s", checked, comment)
	}
	problems, err := cw.Verify()
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Message, "does not grant write") {
		t.Errorf("verify on the branch: %v %v", problems, err)
	}
	mdPath := filepath.Join(cw.Root, "skills", "note-lead", "SKILL.md")
	proposed := mustRead(t, mdPath)
	writeFile(t, mdPath, strings.Replace(string(proposed), metaWrite+`: "false"`, metaWrite+`: "true"`, 1))
	if problems, err := cw.Verify(); err != nil || len(problems) != 1 || !strings.Contains(problems[0].Message, "SKILL.md changed") {
		t.Errorf("verify after a grant typed into SKILL.md: %v %v", problems, err)
	}
	writeFile(t, mdPath, string(proposed))
	if _, err := approve(cw, "note-lead", ApproveOptions{AllowWrite: true, ApprovedBy: "reviewer"}); err != nil {
		t.Fatal(err)
	}
	if problems, err := cw.Verify(); err != nil || len(problems) != 0 {
		t.Errorf("verify after the reviewer's grant: %v %v", problems, err)
	}
	// Approved again with the same program, it keeps the record; with
	// another program, the record (of the old one) is not shown.
	if card, err := cw.Show("note-lead"); err != nil || card.TypeCheck == nil || *card.TypeCheck != *checkedTS {
		t.Errorf("after the reviewer's grant, the card's type check is %+v (%v)", card, err)
	}
	writeFile(t, filepath.Join(cw.Root, "skills", "note-lead", "index.ts"), writeLead+"// edited in the pull request\n")
	if card, err := cw.Show("note-lead"); err != nil || card.TypeCheck != nil || !strings.Contains(card.Render(), "Type check: none recorded in SKILL.md for this program.") {
		t.Errorf("an edited program shows the old program's check: %+v (%v)", card, err)
	}

	// The branch exists now: proposing the same name again is refused.
	if _, err := w.ProposeGit(context.Background(), ProposeOptions{Name: "note-lead", Description: "d", Rationale: "r", Program: []byte(writeLead)}); err == nil || !strings.Contains(err.Error(), "branch skill/note-lead already exists") {
		t.Errorf("second proposal: %v", err)
	}
}
