package skills

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestAttackHostileBaseIsNotFollowed (held): the base revision's skills
// are read from git objects, never from the disk: a skill file that is a
// symbolic link in the base (to a secret outside the repository) is
// reported, not followed, and a file over the size limit is not read.
func TestAttackHostileBaseIsNotFollowed(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	secret := filepath.Join(t.TempDir(), "secret.txt")
	writeFile(t, secret, "SECRET-OUTSIDE\n")
	w := demoWorkspace(t)
	propose(t, w, "linked", readSheet)
	if _, err := approve(w, "linked", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(w.Root, SkillsDir, "linked", "notes.txt")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(w.Root, SkillsDir, "huge", "SKILL.md"), "---\nname: huge\ndescription: Huge.\n---\n")
	writeFile(t, filepath.Join(w.Root, SkillsDir, "huge", "big.txt"), "SECRET-BIG "+strings.Repeat("x", maxSkillBytes))
	git(t, w.Root, "init", "-q", "-b", "main")
	git(t, w.Root, "add", ".")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "base")
	git(t, w.Root, "checkout", "-q", "-b", "change")
	for _, name := range []string{"linked", "huge"} {
		if err := os.RemoveAll(filepath.Join(w.Root, SkillsDir, name)); err != nil {
			t.Fatal(err)
		}
	}
	git(t, w.Root, "add", "-A", "skills")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "change")
	d, err := w.DiffGit(context.Background(), "main")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(d)
	for _, out := range []string{string(raw), d.Markdown(0), d.Render()} {
		if strings.Contains(out, "SECRET-") {
			t.Fatalf("the diff read what it must not:\n%.2000s", out)
		}
	}
	problems := map[string]string{}
	for _, ch := range d.Skills {
		problems[ch.Diff.Name] = ch.Diff.BaseProblem
	}
	if !strings.Contains(problems["linked"], "notes.txt is a symbolic link") || !strings.Contains(problems["huge"], "more than 8 MiB") {
		t.Errorf("base problems: %q", problems)
	}
}

// TestAttackSkillsFolderLinkedOutside: a pull request that makes skills/
// a symbolic link (to a directory of the CI runner, say) had skills diff
// list every directory there as a skill, names and all, in the comment
// and the job's summary, and verify annotate each of them. Both say that
// skills/ is a link, and nothing of what it leads to.
func TestAttackSkillsFolderLinkedOutside(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "SECRET-DIR", "x"), "x")
	w := demoWorkspace(t)
	propose(t, w, "lead-status", readLead)
	if _, err := approve(w, "lead-status", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	git(t, w.Root, "init", "-q", "-b", "main")
	git(t, w.Root, "add", ".")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "base")
	if err := os.RemoveAll(filepath.Join(w.Root, SkillsDir)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Root, SkillsDir)); err != nil {
		t.Fatal(err)
	}
	d, err := w.DiffGit(context.Background(), "main")
	if err == nil {
		raw, _ := json.Marshal(d)
		t.Errorf("skills diff through a linked skills/: %s", raw)
	} else if !strings.Contains(err.Error(), "skills is a symbolic link") {
		t.Errorf("error: %v", err)
	}
	v, err := w.VerifyAll()
	if err != nil {
		t.Fatal(err)
	}
	if raw, _ := json.Marshal(v); len(v.Problems) != 1 || strings.Contains(string(raw), "SECRET-DIR") {
		t.Errorf("verify through a linked skills/: %s", raw)
	}
}
