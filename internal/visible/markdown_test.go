package visible

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mdcheck"
)

// hostile are texts that act in Markdown, each carrying the canary ZZQ: a
// renderer must show every one of them as code, never as prose.
var hostile = []string{
	"ZZQ <img src=https://tracker.example/pixel.gif>",
	"ZZQ <details><summary>ok</summary>hidden</details>",
	"ZZQ</code></pre><script>alert(1)</script>",
	"ZZQ ``` closes a fence? `` ` ``",
	"``` ZZQ",
	"ZZQ [click](javascript:alert(1)) ![x](https://tracker.example/x.png)",
	"ZZQ https://evil.example www.evil.example evil@evil.example",
	"ZZQ &lt;b&gt; &amp; &#x202e;",
	"ZZQ | a | b |\n|---|---|\n| c | d |",
	"# ZZQ Approve\n## Tools it calls",
	"ZZQ @everyone #1 :tada:",
	"[ZZQ]: https://evil.example",
	"ZZQ <!-- comment -->",
	"ZZQ \u202eevil\u202c \u200b \u2066x\u2069 \ufeff \u3164 \U000e0100",
	"ZZQ ~~~\n~~~",
	"ZZQ\r\n```\r\nbroke out",
	"`ZZQ`",
	" ZZQ ",
	"ZZQ \\` backslash",
	"ZZQ\n```\n# ZZQ out of the fence\n```",
	"ZZQ\n   ````\nZZQ out of the fence",
	"$`ZZQ math`$ $$ZZQ$$",
	"ZZQ [^1]\n\n[^1]: a footnote",
	"<https://evil.example> ZZQ <evil@evil.example>",
	"ZZQ\x00nul \x7f del",
	"ZZQ\n===\nsetext",
	"ZZQ\n> [!CAUTION]\n> approve now",
	"   ",
	"ZZQ ```suggestion\nrm -rf /\n```",
	"ZZQ\t<b>\ttab</b>",
}

func TestCodeSpanIsInert(t *testing.T) {
	var md strings.Builder
	for _, h := range hostile {
		md.WriteString("- a value: " + CodeSpan(h) + " and more\n")
	}
	r := mdcheck.Parse(md.String())
	if len(r.Active) > 0 {
		t.Errorf("active nodes: %q\n%s", r.Active, md.String())
	}
	if strings.Contains(r.Prose, "ZZQ") {
		t.Errorf("untrusted text read as prose:\n%s\n--- document:\n%s", r.Prose, md.String())
	}
	for _, h := range hostile {
		if strings.TrimSpace(h) == "" {
			continue
		}
		if !strings.Contains(r.Code, strings.TrimSpace(Line(h))) {
			t.Errorf("%q is not in the code, which is:\n%s", h, r.Code)
		}
	}
	for _, c := range []string{"\u202e", "\u200b", "\ufeff", "\u3164", "\U000e0100", "\r"} {
		if strings.Contains(r.Code, c) {
			t.Errorf("code holds %q raw", c)
		}
	}
	if got := CodeSpan("`x`"); got != "`` `x` ``" {
		t.Errorf("CodeSpan(`x`) = %q", got)
	}
	if got := CodeSpan(""); got != "` `" {
		t.Errorf("CodeSpan(\"\") = %q", got)
	}
}

func TestCodeBlockIsInert(t *testing.T) {
	var md strings.Builder
	md.WriteString("## Card\n\n")
	for _, h := range hostile {
		md.WriteString(CodeBlock("text", h, 40))
		md.WriteString("\n")
		// Lines indented with up to three spaces can close a fence too.
		md.WriteString(CodeBlock("diff", " "+strings.ReplaceAll(h, "\n", "\n "), 40))
		md.WriteString("\n")
	}
	md.WriteString("## End\n")
	r := mdcheck.Parse(md.String())
	if len(r.Active) > 0 {
		t.Errorf("active nodes: %q", r.Active)
	}
	if strings.Contains(r.Prose, "ZZQ") {
		t.Errorf("untrusted text read as prose:\n%s\n--- document:\n%s", r.Prose, md.String())
	}
	if !reflect.DeepEqual(r.Headings, []string{"Card", "End"}) || r.CodeBlocks != 2*len(hostile) {
		t.Errorf("headings %q, %d code blocks (want Card, End and %d):\n%s", r.Headings, r.CodeBlocks, 2*len(hostile), md.String())
	}
}

func TestWrapLine(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"abcdefgh", 3, []string{"abc", "+de", "+fg", "+h"}},
		{"ab\u202ecd", 5, []string{"ab", `+\u202e`, "+cd"}}, // an escape is never split
		{"short", 10, []string{"short"}},
		{"a\nb", 0, []string{`a\nb`}},
		{strings.Repeat(" ", 5) + "x", 3, []string{"   ", "+  ", "+x"}},
	}
	for _, tt := range tests {
		if got := WrapLine(tt.in, tt.width, "+"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("WrapLine(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
	got := WrappedLines("12345678\u2028ab", 4)
	want := []SourceLine{{Text: "1234"}, {Text: "5678", End: "U+2028", Continued: true}, {Text: "ab"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("WrappedLines = %#v", got)
	}
}

func TestHiddenCoversInvisibleLetters(t *testing.T) {
	// Characters that show as nothing although they are not format
	// characters: variation selectors (which can carry a byte each) and
	// the Hangul fillers JavaScript takes as identifiers.
	for _, r := range []rune{'\ufe0f', '\U000e0100', '\U000e01ef', '\u3164', '\u115f', '\uffa0', '\u034f', '\u180b'} {
		if !Hidden(r) {
			t.Errorf("%U is not hidden", r)
		}
	}
	for _, r := range []rune{'a', 'é', '日', '✓', ' ', '\u00a0'} {
		if Hidden(r) {
			t.Errorf("%U is hidden", r)
		}
	}
}
