package visible

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text\nsecond line\twith a tab", "plain text\nsecond line\twith a tab"},
		{"\x1b[2K\x1b[1Aharmless", `\u001b[2K\u001b[1Aharmless`}, // ANSI: erase the line, go up
		{"a\u009b31mb", `a\u009b31mb`},                           // C1 CSI
		{"x\u202eexe.txt", `x\u202eexe.txt`},                     // bidi override
		{"is\u2066Admin\u2069", `is\u2066Admin\u2069`},           // bidi isolates
		{"zero\u200bwidth\ufeff\u2060", `zero\u200bwidth\ufeff\u2060`},
		{"line\u2028sep\u2029para", `line\u2028sep\u2029para`},
		{"tag\U000e0041", `tag\u{e0041}`},
		{"del\x7f cr\r bell\a", `del\u007f cr\r bell\u0007`},
		{"bad \xff byte", `bad \xff byte`},
		{"café ünïcode 日本 ✓", "café ünïcode 日本 ✓"},
	}
	for _, tt := range tests {
		if got := Text(tt.in); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if got := Line("a\nb\tc"); got != `a\nb\tc` {
		t.Errorf("Line = %q", got)
	}
}

func TestJSONKeepsValuesAndShowsEscapes(t *testing.T) {
	in := map[string]string{"s": "\x1b[31m red \u009b \u202e \u200b \u2028 \U000e0041 \x7f ok é"}
	raw, _ := json.Marshal(in)
	out := JSON(raw)
	for _, c := range []string{"\x1b", "\u009b", "\u202e", "\u200b", "\u2028", "\U000e0041", "\x7f"} {
		if json.Valid(out) && containsRaw(out, c) {
			t.Errorf("JSON output still holds %q raw: %s", c, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || !reflect.DeepEqual(back, in) {
		t.Errorf("JSON output decodes to %q (%v), want %q", back, err, in)
	}
}

func containsRaw(b []byte, s string) bool {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return true
		}
	}
	return false
}

func TestLinesSplitWhereJavaScriptDoes(t *testing.T) {
	src := "// harmless comment\u2028await wipe();\r\nconst a = 1;\rb();\n\u2029x\n"
	want := []SourceLine{
		{Text: "// harmless comment", End: "U+2028"},
		{Text: "await wipe();", End: `\r\n`},
		{Text: "const a = 1;", End: `\r`},
		{Text: "b();"},
		{Text: "", End: "U+2029"},
		{Text: "x"},
	}
	if got := Lines(src); !reflect.DeepEqual(got, want) {
		t.Errorf("Lines = %#v\nwant %#v", got, want)
	}
}

// TestWriter: text written in any pieces comes out as Text shows it, a
// character split across writes escaped whole; Flush shows what a cut
// sequence left.
func TestWriter(t *testing.T) {
	in := "ok\n\ttab \x1b]52;c;cHduZWQ=\x07 \u009b2J \u0085 \u202e \u2028 é 日本 \U0001F600 \x7f \xff end"
	want := Text(in)
	for size := 1; size <= len(in); size++ {
		var out strings.Builder
		w := NewWriter(&out)
		for i := 0; i < len(in); i += size {
			n, err := w.Write([]byte(in[i:min(i+size, len(in))]))
			if err != nil || n != min(size, len(in)-i) {
				t.Fatalf("Write = %d, %v", n, err)
			}
		}
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("in pieces of %d: %q, want %q", size, out.String(), want)
		}
	}
	var out strings.Builder
	w := NewWriter(&out)
	w.Write([]byte("cut \xe6\x97"))
	if out.String() != "cut " {
		t.Errorf("before Flush: %q", out.String())
	}
	w.Flush()
	if out.String() != `cut \xe6\x97` {
		t.Errorf("after Flush: %q", out.String())
	}
}
