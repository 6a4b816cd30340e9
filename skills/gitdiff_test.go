package skills

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mdcheck"
)

// TestDiffGit: on a branch, one skill gains a write tool (and the
// reviewer's grant), one's recorded example result changes, one is
// removed and one is added; main moves on meanwhile. `skills diff
// --base main` shows exactly the branch's changes, each with its card.
func TestDiffGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for the pull-request flow test: install git")
	}
	w := demoWithSkill(t) // pending-orders, approved, with a recorded example
	ctx := context.Background()
	approveProgram := func(name, program string, write bool) {
		t.Helper()
		if _, err := w.Propose(ProposeOptions{Name: name, Description: "Does " + name + ".", Rationale: "Needed.", Program: []byte(program), Now: fixedNow}); err != nil {
			t.Fatal(err)
		}
		if _, err := approve(w, name, ApproveOptions{AllowWrite: write, ApprovedBy: "Ana <ana@example.com>", ApprovedAt: fixedNow()}); err != nil {
			t.Fatal(err)
		}
	}
	approveProgram("lead-status", readLead, false)
	approveProgram("gone", readSheet, false)
	git(t, w.Root, "init", "-q", "-b", "main")
	git(t, w.Root, "add", ".")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "base")
	git(t, w.Root, "checkout", "-q", "-b", "change")

	// lead-status now writes; the reviewer grants it on the branch.
	writeFile(t, filepath.Join(w.Root, "skills", "lead-status", "index.ts"), writeLead)
	if _, err := approve(w, "lead-status", ApproveOptions{AllowWrite: true, ApprovedBy: "Rita <rita@example.com>", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	// pending-orders' example records another result.
	ex := filepath.Join(w.Root, "skills", "pending-orders", "examples", "1.json")
	writeFile(t, ex, strings.Replace(string(mustRead(t, ex)), `"total":412`, `"total":400`, 1))
	// gone is removed; fresh is new.
	if err := os.RemoveAll(filepath.Join(w.Root, "skills", "gone")); err != nil {
		t.Fatal(err)
	}
	approveProgram("fresh", readSheet, false)
	git(t, w.Root, "add", "-A", "skills")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "change skills")
	// main moves on: a skill added there is not the branch's change.
	git(t, w.Root, "checkout", "-q", "main")
	approveProgram("main-only", readSheet, false)
	git(t, w.Root, "add", "-A", "skills")
	git(t, w.Root, "-c", "user.name=t", "-c", "user.email=t@x", "commit", "-q", "-m", "main moves on")
	git(t, w.Root, "checkout", "-q", "change")

	d, err := w.DiffGit(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*SkillChange{}
	var names []string
	for i := range d.Skills {
		ch := &d.Skills[i]
		got[ch.Diff.Name] = ch
		names = append(names, ch.Diff.Name+":"+ch.Diff.Status)
	}
	if strings.Join(names, " ") != "fresh:added gone:removed lead-status:changed pending-orders:changed" {
		t.Fatalf("skills changed: %v", names)
	}
	lead := got["lead-status"].Diff
	if lead.Grant == nil || !lead.Grant.Widened || len(lead.ToolsAdded) != 1 || lead.ToolsAdded[0].String() != "salesforce.updateRecord" ||
		lead.BaseApproval == nil || lead.BaseApproval.By != "Ana <ana@example.com>" || got["lead-status"].Card == nil || got["lead-status"].Card.SinceApproved != lead {
		t.Errorf("lead-status: %+v", lead)
	}
	var files []string
	for _, f := range lead.Files {
		files = append(files, f.Path)
	}
	if strings.Join(files, " ") != "index.ts SKILL.md" {
		t.Errorf("lead-status files: %v", files)
	}
	po := got["pending-orders"].Diff
	if len(po.Examples) != 1 || !po.Examples[0].ResultChanged || len(po.Examples[0].Result) != 1 || po.Examples[0].Result[0].Path != "/total" ||
		string(po.Examples[0].Result[0].Before) != "412" || string(po.Examples[0].Result[0].After) != "400" {
		t.Errorf("pending-orders: %+v", po)
	}
	if got["gone"].Card != nil || got["fresh"].Card == nil || got["fresh"].Card.SinceApproved.Status != DiffAdded {
		t.Errorf("gone/fresh: %+v %+v", got["gone"], got["fresh"])
	}
	if mb := git(t, w.Root, "merge-base", "main", "change"); d.BaseCommit != mb {
		t.Errorf("base commit %s, want the merge base %s", d.BaseCommit, mb)
	}

	md := d.Markdown(0)
	r := mdcheck.Parse(md)
	if len(r.Active) > 0 {
		t.Errorf("active nodes: %q", r.Active)
	}
	for _, want := range []string{"## Skills changed against `main`", "- `lead-status`: changed, **ASKS FOR WRITE ACCESS**", "- `gone`: **REMOVED** (revoked: callers fail)",
		"- `fresh`: new skill", "This change asks for WRITE access", "result `/total`: `412` -> `400`", "### Skill `gone` (REMOVED)"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q", want)
		}
	}
	// Bounded for a comment: it fits, and says what it cut.
	bound := len(md) * 2 / 3
	if small := d.Markdown(bound); len(small) > bound || !strings.Contains(small, "more lines not shown here") || mdcheck.Parse(small).CodeBlocks == 0 {
		t.Errorf("bounded to %d of %d bytes: %d bytes\n%s", bound, len(md), len(small), small)
	}
	if raw, err := json.Marshal(d); err != nil || !strings.Contains(string(raw), `"widened":true`) {
		t.Errorf("JSON: %v %s", err, raw)
	}

	// No change, no card.
	if d, err := w.DiffGit(ctx, "HEAD"); err != nil || len(d.Skills) != 0 || d.Markdown(0) != "" {
		t.Errorf("against HEAD: %+v %v", d, err)
	}
	// git's environment is mcpcode's own: a GIT_DIR (or injected
	// configuration) in the caller's environment does not redirect it.
	t.Setenv("GIT_DIR", filepath.Join(t.TempDir(), "decoy"))
	t.Setenv("GIT_CONFIG_COUNT", "1")
	t.Setenv("GIT_CONFIG_KEY_0", "core.hooksPath")
	t.Setenv("GIT_CONFIG_VALUE_0", "/nonexistent")
	if again, err := w.DiffGit(ctx, "main"); err != nil || len(again.Skills) != len(d.Skills) {
		t.Errorf("with GIT_DIR set elsewhere: %v", err)
	}
	for _, bad := range []string{"--output=/tmp/x", "no-such-branch", ""} {
		if _, err := w.DiffGit(ctx, bad); err == nil {
			t.Errorf("base %q accepted", bad)
		}
	}
}
