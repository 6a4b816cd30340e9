package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The attacks of issue 11 on the review itself: each failed on the code
// before the fix (the comment of each says how).

// TestCardShowsWhatIsThere: the card escapes every control and format
// character and splits the program where JavaScript ends its lines.
// Before: an ANSI sequence in a comment erased and redrew a line of the
// card, and code after a U+2028 inside a // comment looked like comment
// text, on a terminal and in --json.
func TestCardShowsWhatIsThere(t *testing.T) {
	w := demoWorkspace(t)
	program := "import { getSheet } from \"servers/google-drive/getSheet\";\n" +
		"// reads the sheet\x1b[2K\x1b[1A\r// (nothing else)\n" +
		"// harmless comment\u2028await getSheet({ sheetId: \"wipe\" });\n" +
		"const s = \"\u202eevil\u202c\u200b\";\n" +
		"export default async () => s;\n"
	propose(t, w, "sneaky", program)
	card, err := w.Show("sneaky")
	if err != nil {
		t.Fatal(err)
	}
	text := card.Render()
	for _, c := range []string{"\x1b", "\r", "\u2028", "\u202e", "\u202c", "\u200b"} {
		if strings.Contains(text, c) {
			t.Errorf("the card holds %q raw:\n%s", c, text)
		}
	}
	for _, want := range []string{
		"   2 │ // reads the sheet\\u001b[2K\\u001b[1A  ⏎ (line ends with \\r)\n   3 │ // (nothing else)\n",
		"   4 │ // harmless comment  ⏎ (line ends with U+2028)\n   5 │ await getSheet({ sheetId: \"wipe\" });\n",
		`   6 │ const s = "\u202eevil\u202c\u200b";`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("card lacks %q:\n%s", want, text)
		}
	}
	// The code hidden after U+2028 is real code: the analysis lists it.
	if len(card.Tools) != 1 || card.Tools[0].String() != "google-drive.getSheet" {
		t.Errorf("tools on the card: %+v", card.Tools)
	}
}

// TestApprovalIsBoundToWhatWasRead: approving installs exactly what the
// card showed. Before: re-proposing between show and approve installed the
// new program without a word.
func TestApprovalIsBoundToWhatWasRead(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "sheet", readSheet)
	card, err := w.Show("sheet")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(card.Render(), "Approve: mcpcode skills approve sheet --sha256 "+card.SHA256+"\n") {
		t.Errorf("the card does not print the exact command:\n%s", card.Render())
	}
	// The agent swaps the program after the person read the card.
	propose(t, w, "sheet", writeLead)
	if _, err := w.Approve("sheet", ApproveOptions{AllowWrite: true}); err == nil || !strings.Contains(err.Error(), `refused: "sheet" changed since its card was last shown`) {
		t.Errorf("approve without the hash: %v", err)
	}
	if _, err := w.Approve("sheet", ApproveOptions{AllowWrite: true, SHA256: card.SHA256}); err == nil || !strings.Contains(err.Error(), `refused: --sha256 `+card.SHA256[:12]+` is not the hash of "sheet" as it is now`) {
		t.Errorf("approve with the hash read: %v", err)
	}
	if _, err := w.Approve("sheet", ApproveOptions{AllowWrite: true, SHA256: strings.Repeat("0", 64)}); err == nil || !strings.Contains(err.Error(), "refused: --sha256") {
		t.Errorf("approve with another hash: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.Root, "skills", "sheet")); !os.IsNotExist(err) {
		t.Fatalf("a refused approval installed the skill: %v", err)
	}
	// A proposal never shown is not approved without its hash either.
	propose(t, w, "unread", readSheet)
	if _, err := w.Approve("unread", ApproveOptions{}); err == nil || !strings.Contains(err.Error(), "refused: approve what you read: show the card first") {
		t.Errorf("approve of an unread proposal: %v", err)
	}
	// What the person reads is what is installed.
	card, err = w.Show("sheet")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Approve("sheet", ApproveOptions{AllowWrite: true, SHA256: card.SHA256}); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, filepath.Join(w.Root, "skills", "sheet", "index.ts"))); got != writeLead {
		t.Errorf("installed:\n%s", got)
	}
}

// TestImportsAreResolvedNotRewritten: a proposal's imports are resolved
// by esbuild from the skill's own folder, whatever their spelling. Before:
// the import rewriter missed `from` followed by a newline or a comment;
// the proposal was analysed with ./helper resolving next to the workspace
// root, approved, and at run time the import led to a file planted next to
// the skill, which no hash covered.
func TestImportsAreResolvedNotRewritten(t *testing.T) {
	w := demoWorkspace(t)
	writeFile(t, filepath.Join(w.Root, "helper.ts"), "export const h = () => 1;\n")
	for name, program := range map[string]string{
		"newline": "import { h } from\n\"./helper\";\nexport default async () => h();\n",
		"comment": "import { h } from /* the helper */ \"./helper\";\nexport default async () => h();\n",
	} {
		_, err := w.Propose(ProposeOptions{Name: name, Description: "d", Rationale: "r", Program: []byte(program)})
		if err == nil || !strings.Contains(err.Error(), `import "./helper": no such file in the workspace (looked for skills/.proposals/`+name+`/helper.ts`) {
			t.Errorf("%s: propose error = %v, want ./helper looked for in the proposal's own folder", name, err)
		}
	}
}

// TestSymlinksUnderSkillsAreRefused: approving through a symbolic link
// writes nothing. Before: a planted skills/<name> symlink made approve
// write outside the workspace.
func TestSymlinksUnderSkillsAreRefused(t *testing.T) {
	w := demoWorkspace(t)
	outside := t.TempDir()
	propose(t, w, "sheet", readSheet)
	card, err := w.Show("sheet")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Root, "skills", "sheet")); err != nil {
		t.Fatal(err)
	}
	_, err = w.Approve("sheet", ApproveOptions{SHA256: card.SHA256})
	if err == nil || !strings.Contains(err.Error(), "refused: skills/sheet is a symbolic link: symbolic links under skills/ are refused") {
		t.Errorf("approve through a symlink: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Errorf("approve wrote outside the workspace: %v", entries)
	}
	problems, err := w.Verify()
	if err != nil || len(problems) != 1 || problems[0].String() != "skills/sheet: skills/sheet is a symbolic link: symbolic links under skills/ are refused (a skill is exactly the files in its folder); replace it with the real directory or file" {
		t.Errorf("verify: %v %v", problems, err)
	}
}

// TestNamespaceImportsListWhatIsCalled: the analysis follows the members a
// program takes from a namespace import, so the card lists what it calls
// and an honest read-only program is approved read-only. Before: every
// tool of the server was listed, so it needed --allow-write.
func TestNamespaceImportsListWhatIsCalled(t *testing.T) {
	w := demoWorkspace(t)
	for name, program := range map[string]string{
		"destructured": "import * as sf from \"servers/salesforce\";\nconst { getRecord } = sf;\nexport default async () => getRecord({ objectType: \"Lead\", recordId: \"1\" });\n",
		"renamed":      "import * as sf from \"servers/salesforce\";\nconst { getRecord: get } = sf;\nexport default async () => get({ objectType: \"Lead\", recordId: \"1\" });\n",
		"member":       "import * as sf from \"servers/salesforce\";\nconst all = [sf.getRecord];\nexport default async () => all[0]({ objectType: \"Lead\", recordId: \"1\" });\n",
	} {
		res := propose(t, w, name, program)
		if got := joinTools(res.Proposal.Tools); got != "salesforce.getRecord" {
			t.Errorf("%s: the card lists %s, want salesforce.getRecord", name, got)
		}
		if _, err := approve(w, name, ApproveOptions{}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// What cannot be resolved still lists every tool.
	res := propose(t, w, "dynamic", "import * as sf from \"servers/salesforce\";\nexport default async (i: { f: string }) => (sf as any)[i.f]({});\n")
	if got := joinTools(res.Proposal.Tools); got != "salesforce.getRecord, salesforce.query, salesforce.updateRecord" {
		t.Errorf("dynamic: the card lists %s, want every tool of the server", got)
	}
}

// TestRecordedToolsMustStillMap: when the tree under an approved skill
// changes so that a function it calls now calls another upstream tool (as
// gen did when an upstream added a tool whose name was taken), verify
// fails and the runtime refuses the call. Before: verify passed and the
// skill called the other tool.
func TestRecordedToolsMustStillMap(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "lead", "import { getRecord } from \"servers/salesforce/getRecord\";\nexport default async () => (await getRecord({ objectType: \"Lead\", recordId: \"00Q5f000001abcXYZ\" })).Status;\n")
	if _, err := approve(w, "lead", ApproveOptions{}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(w.Root, "servers", "salesforce", "getRecord.ts")
	// Re-pointed at another read-only tool: nothing but the record says
	// it is not the approved one.
	writeFile(t, file, strings.Replace(string(mustRead(t, file)), `"salesforce", "getRecord"`, `"salesforce", "query"`, 1))
	problems, err := w.Verify()
	want := "skills/lead: calls salesforce.query, which is not among the tools recorded at approval (mcpcode-tools: salesforce.getRecord)"
	if err != nil || len(problems) != 1 || !strings.HasPrefix(problemText(problems), want) {
		t.Errorf("verify:\n%s %v\nwant it to start with %s", problemText(problems), err, want)
	}
	caller := newFakeCaller(t, w)
	r := run(t, w, caller, string(RunSource("lead")), `{}`)
	if r.OK || r.Error.Kind != "permission" || !strings.Contains(r.Error.Message, `skill "lead" may not call salesforce.query: a skill may call only the tools recorded when it was approved`) {
		t.Errorf("run: ok=%v %+v", r.OK, r.Error)
	}
	if len(caller.Calls()) != 0 {
		t.Errorf("calls reached the server: %v", caller.Calls())
	}
}
