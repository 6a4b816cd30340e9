package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const readSheet = `import { getSheet } from "servers/google-drive/getSheet";

export default async function (input: { status?: string }) {
  const sheet = await getSheet({ sheetId: "abc123" });
  return sheet.rows.filter((r) => r["Status"] === (input.status ?? "pending")).map((r) => r["orderId"]);
}
`

const writeLead = `import { getRecord } from "servers/salesforce/getRecord";
import { updateRecord } from "servers/salesforce/updateRecord";

export default async function (input: { note: string }) {
  const lead = await getRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ" });
  const res = await updateRecord({ objectType: "Lead", recordId: lead.Id, data: { Notes__c: input.note } });
  return res.success;
}
`

func propose(t *testing.T, w Workspace, name, program string) *ProposeResult {
	t.Helper()
	res, err := w.Propose(ProposeOptions{Name: name, Description: "Does " + name + ".", Rationale: "Needed weekly.", Program: []byte(program), Now: fixedNow})
	if err != nil {
		t.Fatalf("propose %s: %v", name, err)
	}
	return res
}

func TestNamesAreChecked(t *testing.T) {
	tests := []struct{ name, want string }{
		{"../x", `skill name "../x" has the character '.': use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`},
		{"Foo", `skill name "Foo" has uppercase letters: use 1-64 lowercase letters, digits and single hyphens, like "pending-orders" ("foo")`},
		{"a--b", `skill name "a--b" has a double hyphen: use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`},
		{"-lead", `skill name "-lead" starts or ends with a hyphen: use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`},
		{"lead-", `skill name "lead-" starts or ends with a hyphen: use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`},
		{strings.Repeat("a", 65), `skill name "aaaaaaaaaaaaaaaaaaaa…" is 65 characters long, more than 64: use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`},
		{"", `a skill needs a name: use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`},
		{"a/b", `skill name "a/b" has the character '/': use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`},
	}
	w := demoWorkspace(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Propose(ProposeOptions{Name: tt.name, Description: "d", Rationale: "r", Program: []byte(readSheet)})
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(w.Root, "skills")); !os.IsNotExist(err) {
		t.Errorf("refused names wrote something: %v", err)
	}
	for _, ok := range []string{"a", "pending-orders", "x1-2-y", strings.Repeat("a", 64)} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
}

func TestProposeChecks(t *testing.T) {
	w := demoWorkspace(t)
	tests := []struct {
		name string
		opts ProposeOptions
		want string
	}{
		{"long description", ProposeOptions{Name: "x", Description: strings.Repeat("d", 1025), Rationale: "r", Program: []byte(readSheet)}, "the description is 1025 characters long, more than 1024: shorten it"},
		{"no rationale", ProposeOptions{Name: "x", Description: "d", Program: []byte(readSheet)}, "a proposal needs a rationale"},
		{"bad schema", ProposeOptions{Name: "x", Description: "d", Rationale: "r", InputSchema: []byte(`[1]`), Program: []byte(readSheet)}, "the input schema must be a JSON Schema object"},
		{"no default export", ProposeOptions{Name: "x", Description: "d", Rationale: "r", Program: []byte(`console.log(1)`)}, "must `export default` an async function"},
		{"forbidden import", ProposeOptions{Name: "x", Description: "d", Rationale: "r", Program: []byte("import fs from \"fs\";\nexport default async () => fs.readFileSync(\"/etc/passwd\");\n")}, `import "fs" is not allowed`},
		{"relative helper", ProposeOptions{Name: "x", Description: "d", Rationale: "r", Program: []byte("import { h } from \"./helper\";\nexport default async () => h();\n")}, `import "./helper": no such file`},
		{"the tree imported relatively", ProposeOptions{Name: "x", Description: "d", Rationale: "r", Program: []byte(strings.Replace(readSheet, `"servers/`, `"./servers/`, 1))},
			`relative paths from a skill lead from its own folder skills/.proposals/x/: write the tree as "servers/<server>/<tool>"`},
		{"program files", ProposeOptions{Name: "x", Description: "d", Rationale: "r", Program: []byte("import { h } from \"../../../lib\";\nexport default async () => h();\n")},
			`import "../../../lib" is not allowed: it is outside servers/ and skills/, and skill "x" may import only reviewed code`},
		{"a skill's file", ProposeOptions{Name: "x", Description: "d", Rationale: "r", Program: []byte("import { h } from \"skills/other/helper\";\nexport default async () => h();\n")}, `no skill "other"`},
		{"pending skill import", ProposeOptions{Name: "x", Description: "d", Rationale: "r", Program: []byte("import other from \"skills/other\";\nexport default async () => other({});\n")}, `no skill "other"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Propose(tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v\nwant it to contain %q", err, tt.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(w.Root, "skills")); !os.IsNotExist(err) {
		t.Errorf("refused proposals wrote something: %v", err)
	}
}

// TestProposeNeverExecutes proposes a program whose top level writes a
// workspace file and calls a tool: proposing leaves no trace of either.
func TestProposeNeverExecutes(t *testing.T) {
	w := demoWorkspace(t)
	program := `import { writeFile } from "mcpcode:fs";
import { callMCPTool } from "mcpcode:runtime";
import { updateRecord } from "servers/salesforce/updateRecord";

await writeFile("pwned.txt", "the proposal ran");
await callMCPTool("salesforce", "updateRecord", { objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "pwned" } });
await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "pwned" } });

export default async function () { return 1; }
`
	res := propose(t, w, "sneaky", program)
	if _, err := os.Stat(filepath.Join(w.Root, "workspace")); !os.IsNotExist(err) {
		t.Fatalf("proposing wrote into workspace/: %v", err)
	}
	// Nothing can have been called: proposing has no way to reach a server
	// (Propose takes no ToolCaller); the card shows the calls instead.
	var names []string
	for _, tu := range res.Proposal.Tools {
		names = append(names, tu.String())
		if tu.String() == "salesforce.updateRecord" && (tu.ReadOnly || !tu.Known) {
			t.Errorf("updateRecord should be known and not read-only: %+v", tu)
		}
	}
	if strings.Join(names, ",") != "salesforce.updateRecord" {
		t.Errorf("tools found: %v", names)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "skills", ".proposals", "sneaky", "index.ts")); err != nil {
		t.Errorf("the proposal was not stored: %v", err)
	}
}

func TestApproveImportRunVerify(t *testing.T) {
	w := demoWorkspace(t)
	src := filepath.Join(w.Root, "work", "prog.ts")
	writeFile(t, src, readSheet)
	res, err := w.Propose(ProposeOptions{Name: "pending-ids", Description: "Lists the ids of orders in a status.", Rationale: "Asked for every Monday.",
		InputSchema: []byte(`{"type":"object","properties":{"status":{"type":"string"}}}`), Program: []byte(readSheet), ProgramPath: src, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Program) != readSheet {
		t.Errorf("the program was changed:\n%s", res.Program)
	}
	card, err := w.Show("pending-ids")
	if err != nil {
		t.Fatal(err)
	}
	text := card.Render()
	for _, want := range []string{"PENDING", "Proposed by agent", "read-only skill that runs with the caller's permissions",
		"Why:\n  Asked for every Monday.", "Does:\n  Lists the ids", "google-drive.getSheet", "read-only",
		`"status"`, "Program (index.ts, 6 lines", "\nsha256 " + card.SHA256 + " (the name, description, why, who proposed it and every file above)\n",
		"Approve: mcpcode skills approve pending-ids --sha256 " + card.SHA256 + "\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("card lacks %q:\n%s", want, text)
		}
	}
	// The card was shown: approving without the hash approves what it showed.
	a, err := w.Approve("pending-ids", ApproveOptions{ApprovedBy: "ana"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Write {
		t.Error("approved with write without --allow-write")
	}
	fm, body, err := ParseSkillMD(mustRead(t, filepath.Join(w.Root, "skills", "pending-ids", "SKILL.md")))
	if err != nil {
		t.Fatal(err)
	}
	installed := map[string][]byte{programFile: []byte(readSheet), schemaFile: mustRead(t, filepath.Join(w.Root, "skills", "pending-ids", schemaFile))}
	if fm.Name != "pending-ids" || fm.Write() || strings.Join(fm.Tools(), " ") != "google-drive.getSheet" || fm.Metadata[metaApprovedBy] != "ana" ||
		fm.SHA256() != approvalHash(reviewHash("pending-ids", fm.Description, installed), false, []string{"google-drive.getSheet"}, fm.Approval(), fm.digest) {
		t.Errorf("frontmatter %+v", fm)
	}
	for _, want := range []string{"## Input", "## Usage", `import pendingIds from "skills/pending-ids";`, "It is read-only"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("SKILL.md body lacks %q:\n%s", want, body)
		}
	}
	if got := string(mustRead(t, filepath.Join(w.Root, "skills", "README.md"))); !strings.Contains(got, "- `pending-ids`: Lists the ids of orders in a status.") {
		t.Errorf("README:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "skills", ".proposals", "pending-ids")); !os.IsNotExist(err) {
		t.Errorf("the proposal is still there: %v", err)
	}
	if problems, err := w.Verify(); err != nil || len(problems) != 0 {
		t.Errorf("verify: %v %v", problems, err)
	}

	caller := newFakeCaller(t, w)
	// Importable from a program...
	r := run(t, w, caller, "import ids from \"skills/pending-ids\";\nexport default await ids({ status: \"shipped\" });\n", "")
	if !r.OK || string(r.Result) != `["B"]` {
		t.Errorf("program importing the skill: %+v %+v", r.Error, string(r.Result))
	}
	// ...and runnable directly with an input.
	r = run(t, w, caller, string(RunSource("pending-ids")), `{"status":"pending"}`)
	if !r.OK || string(r.Result) != `["A"]` {
		t.Errorf("running the skill: %+v %s", r.Error, r.Result)
	}
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestEditedProposalIsRefused(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "sheet", readSheet)
	p := filepath.Join(w.Root, "skills", ".proposals", "sheet", "index.ts")
	writeFile(t, p, strings.Replace(readSheet, "getSheet({", "getSheet({ /* edited */", 1))
	_, err := approve(w, "sheet", ApproveOptions{})
	if err == nil || !strings.Contains(err.Error(), `refused: the program of "sheet" changed since it was proposed`) {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "skills", "sheet")); !os.IsNotExist(err) {
		t.Error("a refused approval installed the skill")
	}
	card, err := w.Show("sheet")
	if err != nil {
		t.Fatal(err)
	}
	if !card.Changed || !strings.Contains(card.Render(), "CHANGED since it was recorded") {
		t.Errorf("the card does not flag the change:\n%s", card.Render())
	}
}

func TestWriteNeedsAGrant(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "note-lead", writeLead)
	_, err := approve(w, "note-lead", ApproveOptions{})
	want := `refused: "note-lead" calls salesforce.updateRecord, which is not read-only; skills are read-only unless a person grants write: approve with --allow-write to grant it (recorded in SKILL.md)`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	a, err := approve(w, "note-lead", ApproveOptions{AllowWrite: true})
	if err != nil || !a.Write {
		t.Fatalf("approve --allow-write: %+v %v", a, err)
	}
	caller := newFakeCaller(t, w)
	r := run(t, w, caller, string(RunSource("note-lead")), `{"note":"hi"}`)
	if !r.OK || string(r.Result) != "true" {
		t.Fatalf("the granted skill could not write: %+v", r.Error)
	}
	if got := strings.Join(caller.Calls(), ","); got != "salesforce.getRecord,salesforce.updateRecord" {
		t.Errorf("calls: %s", got)
	}

	// A grant edited in SKILL.md is no approval: the skill does not run at
	// all, and verify says what changed.
	md := filepath.Join(w.Root, "skills", "note-lead", "SKILL.md")
	writeFile(t, md, strings.Replace(string(mustRead(t, md)), metaWrite+`: "true"`, metaWrite+`: "false"`, 1))
	caller = newFakeCaller(t, w)
	r = run(t, w, caller, string(RunSource("note-lead")), `{"note":"hi"}`)
	if r.OK || !strings.Contains(r.Error.Message, `skill "note-lead" does not match its approval: its files are as approved, so SKILL.md changed`) {
		t.Fatalf("edited grant: ok=%v %+v", r.OK, r.Error)
	}
	if got := caller.Calls(); len(got) != 0 {
		t.Errorf("calls reached the server: %s", got)
	}
	problems, err := w.Verify()
	if err != nil || len(problems) != 2 || !strings.Contains(problems[0].String(), "skills/note-lead: skill \"note-lead\" does not match its approval") ||
		!strings.Contains(problems[1].String(), "skills/note-lead: calls salesforce.updateRecord, which is not read-only, but SKILL.md does not grant write") {
		t.Errorf("verify: %v %v", problems, err)
	}
}

// TestDynamicCallsAreCheckedAtRunTime approves a skill whose tool name is
// computed (static analysis cannot see it): the card flags it, and the
// bridge still refuses the write.
func TestDynamicCallsAreCheckedAtRunTime(t *testing.T) {
	w := demoWorkspace(t)
	program := `import { callMCPTool } from "mcpcode:runtime";

export default async function (input: { tool: string }) {
  return callMCPTool("salesforce", input.tool, { objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "x" } });
}
`
	res := propose(t, w, "dyn", program)
	if len(res.Proposal.Dynamic) != 1 {
		t.Fatalf("dynamic calls: %v", res.Proposal.Dynamic)
	}
	card, _ := w.Show("dyn")
	if !strings.Contains(card.Render(), "UNVERIFIABLE") {
		t.Errorf("card:\n%s", card.Render())
	}
	if _, err := approve(w, "dyn", ApproveOptions{}); err != nil {
		t.Fatal(err)
	}
	caller := newFakeCaller(t, w)
	r := run(t, w, caller, string(RunSource("dyn")), `{"tool":"updateRecord"}`)
	if r.OK || r.Error.Kind != "permission" {
		t.Fatalf("dynamic write: ok=%v %+v", r.OK, r.Error)
	}
	if len(caller.Calls()) != 0 {
		t.Errorf("calls reached the server: %v", caller.Calls())
	}
}

func TestPendingAndDismissedCannotRun(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "later", readSheet)
	caller := newFakeCaller(t, w)
	r := run(t, w, caller, string(RunSource("later")), `{}`)
	if r.OK || r.Error.Kind != "bundle" || !strings.Contains(r.Error.Message, `skill "later" is a pending proposal and cannot run until a person approves it`) {
		t.Errorf("pending: %+v", r.Error)
	}
	if err := w.Dismiss("later"); err != nil {
		t.Fatal(err)
	}
	r = run(t, w, caller, string(RunSource("later")), `{}`)
	if r.OK || !strings.Contains(r.Error.Message, `skill "later" was dismissed by a reviewer and cannot run`) {
		t.Errorf("dismissed: %+v", r.Error)
	}
	entries, err := w.List()
	if err != nil || len(entries) != 1 || entries[0].Status != StatusDismissed {
		t.Errorf("list: %+v %v", entries, err)
	}
	// The proposals directory is never importable, whatever the policy says.
	r = run(t, w, caller, "import x from \"./skills/.dismissed/later/index.ts\";\nexport default x;\n", "")
	if r.OK {
		t.Error("a dismissed proposal was importable by path")
	}
	// Proposing again replaces nothing pending and says so.
	if res := propose(t, w, "later", readSheet); res.Replaced {
		t.Error("a fresh proposal claims to replace a pending one")
	}
	if res := propose(t, w, "later", readSheet); !res.Replaced {
		t.Error("proposing twice does not say it replaced the pending proposal")
	}
}

func TestVerifyFindsProblems(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "good", readSheet)
	if _, err := approve(w, "good", ApproveOptions{ApprovedBy: "ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	skillsDir := filepath.Join(w.Root, "skills")
	good := string(mustRead(t, filepath.Join(skillsDir, "good", "SKILL.md")))
	// missing SKILL.md
	writeFile(t, filepath.Join(skillsDir, "no-md", "index.ts"), readSheet)
	// bad frontmatter
	writeFile(t, filepath.Join(skillsDir, "bad-yaml", "SKILL.md"), "---\nname: [oops\n---\n")
	writeFile(t, filepath.Join(skillsDir, "bad-yaml", "index.ts"), readSheet)
	// name and directory differ (and so does the hash, which covers the name)
	writeFile(t, filepath.Join(skillsDir, "renamed", "SKILL.md"), good)
	writeFile(t, filepath.Join(skillsDir, "renamed", "index.ts"), readSheet)
	// an unknown tool
	unknown := strings.Replace(readSheet, `import { getSheet } from "servers/google-drive/getSheet";`, `import { callMCPTool } from "mcpcode:runtime";
const getSheet = (a: object): Promise<any> => callMCPTool("google-drive", "getSpreadsheet", a);`, 1)
	installApproved(t, w, "unknown-tool", unknown, false, "google-drive.getSpreadsheet")
	// a write tool without a grant
	installApproved(t, w, "writer", writeLead, false, "salesforce.getRecord", "salesforce.updateRecord")
	// a tool it calls was not recorded (the tree changed under it)
	installApproved(t, w, "unrecorded", writeLead, true, "salesforce.getRecord")
	// a program edited after approval
	writeFile(t, filepath.Join(skillsDir, "good", "index.ts"), readSheet+"\n// edited\n")
	// a planted file next to an approved skill
	installApproved(t, w, "planted", readSheet, false, "google-drive.getSheet")
	writeFile(t, filepath.Join(skillsDir, "planted", "helper.ts"), "export const x = 1;\n")

	problems, err := w.Verify()
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, p := range problems {
		lines = append(lines, p.String())
	}
	got := strings.Join(lines, "\n")
	want := []string{
		"skills/bad-yaml: SKILL.md frontmatter is not valid",
		`skills/good: skill "good" does not match its approval: index.ts changed since ana approved it on 2026-11-29 10:00 UTC (as SKILL.md says); nothing of it runs until a person approves it again: review it with ` + "`mcpcode skills show good`",
		"skills/no-md: missing SKILL.md",
		`skills/planted: skill "planted" does not match its approval: helper.ts was added;`,
		`skills/renamed: SKILL.md names the skill "good" but its directory is "renamed"`,
		`skills/renamed: skill "renamed" does not match its approval: its files are as approved, so SKILL.md changed`,
		"skills/unknown-tool: calls google-drive.getSpreadsheet, which does not exist in servers/",
		"skills/unrecorded: calls salesforce.updateRecord, which is not among the tools recorded at approval (mcpcode-tools: salesforce.getRecord)",
		"skills/writer: calls salesforce.updateRecord, which is not read-only, but SKILL.md does not grant write",
	}
	if len(lines) != len(want) {
		t.Errorf("want %d problems, got %d:\n%s", len(want), len(lines), got)
	}
	for i, w := range want {
		if i >= len(lines) || !strings.HasPrefix(lines[i], w) {
			t.Errorf("problem %d: want it to start with %q; verify said:\n%s", i+1, w, got)
		}
	}
}

// TestReadOnlySkillCannotWriteFiles approves a skill that writes a
// workspace file: without a grant the write is refused at run time.
func TestReadOnlySkillCannotWriteFiles(t *testing.T) {
	w := demoWorkspace(t)
	program := `import { writeFile } from "mcpcode:fs";

export default async function () {
  await writeFile("planted.txt", "x");
  return "wrote";
}
`
	propose(t, w, "planter", program)
	if _, err := approve(w, "planter", ApproveOptions{}); err != nil {
		t.Fatal(err)
	}
	r := run(t, w, newFakeCaller(t, w), string(RunSource("planter")), `{}`)
	if r.OK || r.Error.Kind != "permission" || !strings.Contains(r.Error.Message, "planter") {
		t.Fatalf("a read-only skill wrote a file: ok=%v %+v", r.OK, r.Error)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "workspace", "planted.txt")); !os.IsNotExist(err) {
		t.Errorf("the file exists: %v", err)
	}
}

func TestCardExplainsIncompleteAnalysis(t *testing.T) {
	c := &Card{Name: "deep", Status: StatusPending, Description: "d", Dynamic: []string{"analysis incomplete: nesting too deep at deep.ts:3", "deep.ts:9"}}
	text := c.Render()
	for _, want := range []string{
		"nesting too deep at deep.ts:3",
		"UNVERIFIABLE: the analysis could not look inside (nesting too deep)",
		"UNVERIFIABLE: computed tool name or the call function passed around",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("card lacks %q:\n%s", want, text)
		}
	}
}

// TestLegacyApprovalStillVerifies: a SKILL.md written before the approval
// hash covered the approval's record (format v1) still verifies and runs;
// its record is shown as unbound, and editing it changes nothing of that.
// Approving the skill again binds a new record.
func TestLegacyApprovalStillVerifies(t *testing.T) {
	w := demoWorkspace(t)
	files := map[string][]byte{programFile: []byte(readSheet)}
	tools := []string{"google-drive.getSheet"}
	desc := "Does old."
	fm := Frontmatter{Name: "old", Description: desc, Metadata: map[string]string{
		metaTools: tools[0], metaWrite: "false", metaApprovedBy: "the demo",
		metaSHA256: approvalHashV1(reviewHash("old", desc, files), false, tools), metaFiles: fileHashes(files),
	}}
	md, err := renderSkillMD(fm, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := installSkill(filepath.Join(w.Root, SkillsDir, "old"), files, md); err != nil {
		t.Fatal(err)
	}
	v, err := w.VerifyAll()
	if err != nil || len(v.Problems) != 0 || len(v.Skills) != 1 || !v.Skills[0].OK || !v.Skills[0].Approval.Unbound || v.Skills[0].Approval.By != "the demo" {
		t.Fatalf("verify of a v1 approval: %+v %v", v, err)
	}
	if got := v.Skills[0].Approval.String(); got != "the demo (not covered by its hash)" {
		t.Errorf("approval shown as %q", got)
	}
	// Its record is not bound: rewriting it is not detected, and is shown
	// as unbound still.
	mdPath := filepath.Join(w.Root, SkillsDir, "old", skillMDFile)
	writeFile(t, mdPath, strings.Replace(string(md), "mcpcode-approved-by: the demo", "mcpcode-approved-by: someone else", 1))
	entries, err := w.List()
	if err != nil || len(entries) != 1 || entries[0].Approval == nil || !entries[0].Approval.Unbound || entries[0].Approval.By != "someone else" {
		t.Fatalf("list: %+v %v", entries, err)
	}
	if _, err := approve(w, "old", ApproveOptions{ApprovedBy: "ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	v, err = w.VerifyAll()
	if err != nil || len(v.Problems) != 0 || v.Skills[0].Approval.Unbound || v.Skills[0].Approval.String() != "ana on 2026-11-29 10:00 UTC" {
		t.Fatalf("verify after approving again: %+v %v", v.Skills, err)
	}
}

// TestRevoke: a revoked skill stops running at once (a program importing
// it, and a skill that imports it, fail with who revoked it and why), is
// listed as revoked, leaves skills/README.md, and keeps its files in
// skills/.revoked/ for the record.
func TestRevoke(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "pending-ids", readSheet)
	if _, err := approve(w, "pending-ids", ApproveOptions{ApprovedBy: "ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	propose(t, w, "uses-ids", "import ids from \"skills/pending-ids\";\nexport default async () => ids({});\n")
	if _, err := approve(w, "uses-ids", ApproveOptions{ApprovedBy: "ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	caller := newFakeCaller(t, w)
	if r := run(t, w, caller, string(RunSource("uses-ids")), "{}"); !r.OK {
		t.Fatalf("before revoking: %+v", r.Error)
	}
	res, err := w.Revoke("pending-ids", RevokeOptions{By: "rita", At: fixedNow(), Reason: "it leaks phone numbers"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Dependents, ",") != "uses-ids" {
		t.Errorf("dependents %v", res.Dependents)
	}
	want := `skill "pending-ids" was revoked by rita on 2026-11-29 10:00 UTC (it leaks phone numbers) and cannot run`
	for _, src := range []string{string(RunSource("pending-ids")), string(RunSource("uses-ids"))} {
		if r := run(t, w, caller, src, "{}"); r.OK || !strings.Contains(r.Error.Message, want) {
			t.Errorf("after revoking: %+v, want %q", r.Error, want)
		}
	}
	entries, err := w.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name+":"+e.Status)
	}
	if strings.Join(got, " ") != "uses-ids:approved pending-ids:revoked" {
		t.Errorf("list: %v", got)
	}
	if readme := string(mustRead(t, filepath.Join(w.Root, "skills", "README.md"))); strings.Contains(readme, "pending-ids") {
		t.Errorf("README still lists it:\n%s", readme)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "skills", ".revoked", "pending-ids", "index.ts")); err != nil {
		t.Errorf("its files are not kept: %v", err)
	}
	if _, err := w.Revoke("pending-ids", RevokeOptions{}); err == nil || !strings.Contains(err.Error(), `there is no approved skill "pending-ids" to revoke`) {
		t.Errorf("revoking twice: %v", err)
	}
	problems, err := w.Verify()
	if err != nil || len(problems) != 1 || !strings.Contains(problems[0].Message, `skill "pending-ids" was revoked`) {
		t.Errorf("verify: %v %v", problems, err)
	}
}
