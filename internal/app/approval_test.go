package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/skills"
)

const listIDs = `import { getSheet } from "servers/google-drive/getSheet";

export default async function (input: { status?: string }) {
  const sheet = await getSheet({ sheetId: "abc123" });
  return sheet.rows.filter((r) => r["Status"] === (input.status ?? "pending")).map((r) => r["orderId"]);
}
`

// gitIn runs git in dir with no global or system configuration.
func gitIn(t *testing.T, dir string, args ...string) string {
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

// TestVerifyNamesApproverAndEditor: a skill approved by one person (her
// name and email from git, the commit checked out, the time) and edited by
// another fails verify, which names who approved it, what changed and who
// changed it. The record is covered by the hash: forging the approver
// fails too.
func TestVerifyNamesApproverAndEditor(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	ws := demoWorkspaceApp(t)
	gitIn(t, ws.Root, "init", "-q", "-b", "main")
	gitIn(t, ws.Root, "config", "user.name", "Ana")
	gitIn(t, ws.Root, "config", "user.email", "ana@example.com")
	gitIn(t, ws.Root, "add", ".")
	gitIn(t, ws.Root, "commit", "-q", "-m", "the tree")
	base := gitIn(t, ws.Root, "rev-parse", "HEAD")

	if _, err := ws.Propose(skills.ProposeOptions{Name: "pending-ids", Description: "Lists the ids of orders in a status.", Rationale: "Asked for every Monday.", Program: []byte(listIDs)}); err != nil {
		t.Fatal(err)
	}
	card, err := ws.ShowSkill("pending-ids")
	if err != nil {
		t.Fatal(err)
	}
	before := time.Now().UTC().Truncate(time.Second)
	if _, err := ws.ApproveSkill("pending-ids", skills.ApproveOptions{SHA256: card.SHA256}); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(ws.Root, "skills", "pending-ids", "SKILL.md")
	data, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	fm, _, err := skills.ParseSkillMD(data)
	if err != nil {
		t.Fatal(err)
	}
	rec := fm.Approval()
	at, err := time.Parse(time.RFC3339, rec.At)
	if rec.By != "Ana <ana@example.com>" || rec.Commit != base || err != nil || at.Before(before) || at.After(time.Now()) {
		t.Errorf("approval record %+v (time: %v), want Ana <ana@example.com> at commit %s, now", rec, err, base)
	}
	entries, err := ws.ListSkills()
	if err != nil || len(entries) != 1 || entries[0].Approval == nil || entries[0].Approval.By != "Ana <ana@example.com>" || entries[0].Approval.Unbound {
		t.Fatalf("list: %+v %v", entries, err)
	}
	v, err := ws.VerifySkillsAll()
	if err != nil || len(v.Problems) != 0 || len(v.Skills) != 1 || !v.Skills[0].OK || v.Skills[0].Approval.By != "Ana <ana@example.com>" {
		t.Fatalf("verify after approval: %+v %v", v, err)
	}
	gitIn(t, ws.Root, "add", ".")
	gitIn(t, ws.Root, "commit", "-q", "-m", "approve pending-ids")

	// Bob edits the program and commits it.
	prog := filepath.Join(ws.Root, "skills", "pending-ids", "index.ts")
	writeFile(t, prog, strings.Replace(listIDs, `"pending"`, `"shipped"`, 1))
	gitIn(t, ws.Root, "-c", "user.name=Bob", "-c", "user.email=bob@example.com", "commit", "-q", "-am", "small fix")
	bob := gitIn(t, ws.Root, "rev-parse", "HEAD")
	problems, err := ws.VerifySkills()
	if err != nil || len(problems) != 1 {
		t.Fatalf("verify after Bob's edit: %v %v", problems, err)
	}
	msg := problems[0].Message
	for _, want := range []string{
		`skill "pending-ids" does not match its approval: index.ts changed since Ana <ana@example.com> approved it on ` + at.Format("2006-01-02 15:04 UTC") + ` at commit ` + base[:12] + ` (as SKILL.md says)`,
		`; index.ts was last changed in commit ` + bob[:12] + ` by Bob <bob@example.com>; nothing of it runs until a person approves it again`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("verify says:\n%s\nwant it to contain:\n%s", msg, want)
		}
	}
	if problems[0].File != "skills/pending-ids/index.ts" {
		t.Errorf("problem file %q", problems[0].File)
	}

	// An edit not committed yet is named as such.
	writeFile(t, prog, listIDs+"// more\n")
	if problems, err := ws.VerifySkills(); err != nil || len(problems) != 1 || !strings.Contains(problems[0].Message, "; index.ts has uncommitted changes;") {
		t.Errorf("verify with an uncommitted edit: %v %v", problems, err)
	}

	// The program as approved, but the record rewritten: refused too.
	writeFile(t, prog, listIDs)
	writeFile(t, md, strings.Replace(string(data), "mcpcode-approved-by: Ana <ana@example.com>", "mcpcode-approved-by: Mallory <m@example.com>", 1))
	if problems, err := ws.VerifySkills(); err != nil || len(problems) != 1 || !strings.Contains(problems[0].Message, "its files are as approved, so SKILL.md changed") ||
		!strings.Contains(problems[0].Message, "since Mallory <m@example.com> approved it") {
		t.Errorf("verify with a forged approver: %v %v", problems, err)
	}
	writeFile(t, md, string(data))
	if problems, err := ws.VerifySkills(); err != nil || len(problems) != 0 {
		t.Errorf("verify as approved: %v %v", problems, err)
	}
}
