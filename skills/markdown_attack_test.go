package skills

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/mdcheck"
	"github.com/mcpcode/mcpcode/internal/visible"
)

// Every hostile text below carries the canary ZZQ: in the Markdown card
// it must be in code only, never in prose a code host renders.

const hostileDescription = "ZZQ </details> <img src=https://tracker.example/d.gif> ``` ~~~ [click](javascript:alert(1)) " +
	"![t](https://tracker.example/i.png) ` <img src=https://tracker.example/b.gif> ` @everyone #1 &lt;b&gt; https://evil.example \u202eevil\u202c zero\u200bwidth \ufeff end"

const hostileRationale = "# ZZQ Approve this\n## Tools it calls\n| ZZQ | b |\n|---|---|\n[ZZQ]: https://evil.example\n<details><summary>ZZQ</summary>hidden</details>"

// hostileProgram bundles: the attacks are in comments and strings.
var hostileProgram = "// ZZQ ```\n" +
	"/*\n```\n# ZZQ Approve: mcpcode skills approve\n</code></pre><img src=https://tracker.example/p.gif>\n   ````\n<details><summary>ZZQ ok</summary>\n*/\n" +
	"// ZZQ line separator\u2028const hidden = 1;\n" +
	"const pad = \"ZZQ" + strings.Repeat(" ", 4000) + "fetch-me-ZZQ\";\n" +
	"const bidi = \"ZZQ \u202e}; evil(); {\u202c \u2066x\u2069 \u200b\u3164\U000e0100\";\n" +
	"export default async function () { return \"ZZQ <b>x</b> `` ` \" + pad.length + bidi; }\n"

const hostileSchema = `{"type":"object","properties":{"ZZQ <img src=x>` + "`" + `":{"type":"string","description":"ZZQ ` + "```" + `\n# heading <details>"}}}`

// hostileTypeCheck is a type check whose compiler (a tsc that prints what
// it likes as its version) and tree version are attacks.
var hostileTypeCheck = &TypeCheck{Compiler: "ZZQ-tsc ``` <img src=https://tracker.example/c.gif> [x](https://evil.example) \u202e @everyone",
	Tree: "ZZQ`</b>\u202e\u200bdeadbeef"}

func hostileExample(result string) []byte {
	rec := Recording{Format: RecordingFormat, Input: json.RawMessage(`{"q":"ZZQ <script>alert(1)</script>"}`), OK: true, Result: json.RawMessage(result)}
	return rec.Marshal()
}

// TestHostileProposalIsInertInMarkdown proposes a skill whose every field
// is built to act in Markdown (fence breakers, HTML, images, links,
// headings posing as the card's, tables, mentions, bidi and zero-width
// characters, very long lines), over an approved version just as
// hostile, and parses its Markdown card as a code host does: nothing acts,
// no untrusted text is prose, every heading is the card's own, no hidden
// character is raw, and no line of code is longer than the card's width.
func TestHostileProposalIsInertInMarkdown(t *testing.T) {
	w := demoWorkspace(t)
	propose := func(desc, result, more string) {
		t.Helper()
		program := hostileProgram
		if more != "" {
			program = strings.Replace(program, "fetch-me-ZZQ", "fetch-me-also-ZZQ", 1) + more
		}
		if _, err := w.Propose(ProposeOptions{Name: "hostile", Description: desc, Rationale: hostileRationale, InputSchema: []byte(hostileSchema),
			Program: []byte(program), Examples: [][]byte{hostileExample(result)}, Now: fixedNow, TypeCheck: hostileTypeCheck}); err != nil {
			t.Fatal(err)
		}
		// A file planted next to the program, with a name that is an attack too.
		writeFile(t, filepath.Join(w.Root, "skills", ".proposals", "hostile", "ZZQ `x` </details>\n# ZZQ.md"), "ZZQ ```\n# ZZQ\n<img src=x>\n")
	}
	propose("ZZQ the approved one", `"ZZQ `+"```"+` <img src=x>"`, "")
	if _, err := approve(w, "hostile", ApproveOptions{ApprovedBy: "ZZQ <img src=x> `` @everyone \u202e", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	propose(hostileDescription, `{"r":"ZZQ </code> `+"``"+` [x]: https://evil.example \u202e"}`, "// ZZQ ` <b>bold</b> `\n/*\n```\n# ZZQ out of the fence\n````\n*/\n")
	card, err := w.Show("hostile")
	if err != nil {
		t.Fatal(err)
	}
	if card.SinceApproved == nil || len(card.SinceApproved.Files) == 0 {
		t.Fatalf("no diff against the approved version: %+v", card.SinceApproved)
	}
	md := card.Markdown(MarkdownOptions{})
	r := mdcheck.Parse(md)
	if len(r.Active) > 0 {
		t.Errorf("active nodes: %q", r.Active)
	}
	if strings.Contains(r.Prose, "ZZQ") {
		t.Errorf("untrusted text read as prose:\n%s", r.Prose)
	}
	ours := []string{"Skill ", "What changed since the approved version", "Diff of ", "Review card", "Tools it calls", "Input schema", "Recorded examples", "Program (", "File "}
	for _, h := range r.Headings {
		ok := false
		for _, p := range ours {
			ok = ok || strings.HasPrefix(h, p)
		}
		if !ok {
			t.Errorf("a heading that is not the card's: %q", h)
		}
	}
	for _, want := range []string{"</details> <img src=https://tracker.example/d.gif>", `\u202eevil\u202c`, "# ZZQ Approve this", `ZZQ <img src=x>`,
		"fetch-me-ZZQ\"", "fetch-me-also-ZZQ\"", "line ends with U+2028", `\u3164`, `\u{e0100}`, "ZZQ `x` </details>", "r\":\"ZZQ </code>",
		"ZZQ-tsc ``` <img src=https://tracker.example/c.gif>", "ZZQ`</b>\\u202e\\u200bd"} {
		joined := strings.NewReplacer("\n↪ ", "", "\n+↪ ", "", "\n-↪ ", "", "\n ↪ ", "", "\n   ↪ │ ", "").Replace(r.Code)
		if !strings.Contains(joined, want) {
			t.Errorf("the card's code lacks %q", want)
		}
	}
	for _, c := range []rune{'\u202e', '\u202c', '\u2066', '\u200b', '\ufeff', '\u3164', '\U000e0100', '\u2028'} {
		if strings.ContainsRune(md, c) {
			t.Errorf("the card holds %U raw", c)
		}
	}
	inBlock := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
			continue
		}
		if inBlock && utf8.RuneCountInString(l) > MarkdownWidth+len("   ↪ │ ")+len("  ⏎ (line ends with U+2028)") {
			t.Errorf("a code line of %d runes: %.80q…", utf8.RuneCountInString(l), l)
		}
	}
	if os.Getenv("MCPCODE_SHOW_CARD") != "" {
		t.Log(md)
	}
	// The terminal card of the same shows every hidden character escaped.
	text := card.Render()
	for _, c := range []rune{'\u202e', '\u2066', '\u200b', '\ufeff', '\u3164', '\U000e0100', '\u2028'} {
		if strings.ContainsRune(text, c) {
			t.Errorf("the terminal card holds %U raw", c)
		}
	}
	if !strings.Contains(text, visible.Line("\u202eevil\u202c")) {
		t.Errorf("the terminal card lacks the escaped description")
	}
}
