package precheck

import (
	"fmt"
	"strings"
	"testing"
)

func rep(s string, n int) string { return strings.Repeat(s, n) }

// deepShapes nest n levels deep, each in a different kind of bracket.
var deepShapes = []struct {
	name string
	deep func(n int) string
}{
	{"arrays", func(n int) string { return "export default " + rep("[", n) + rep("]", n) + ";" }},
	{"parentheses", func(n int) string { return "export default " + rep("(", n) + "1" + rep(")", n) + ";" }},
	{"blocks", func(n int) string { return rep("{", n) + rep("}", n) }},
	{"objects", func(n int) string { return "export default " + rep("{a:", n) + "1" + rep("}", n) + ";" }},
	{"calls", func(n int) string { return "export default " + rep("f(", n) + "1" + rep(")", n) + ";" }},
	{"template substitutions", func(n int) string { return "export default " + rep("`${", n) + "1" + rep("}`", n) + ";" }},
	{"function bodies", func(n int) string {
		return "export default " + rep("function () { return ", n) + "1" + rep("; }", n) + ";"
	}},
	{"arrow bodies", func(n int) string { return "export default " + rep("(a) => {", n) + rep("}", n) + ";" }},
	{"if blocks", func(n int) string { return rep("if (a) {\n", n) + rep("}\n", n) }},
	{"mixed", func(n int) string {
		open := []string{"[", "(", "{", "`${"}
		close := []string{"]", ")", "}", "}`"}
		var b, e strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(open[i%4])
			e.WriteString(close[(n-1-i)%4])
		}
		return "export default " + b.String() + "1" + e.String() + ";"
	}},
}

func TestNestingLimit(t *testing.T) {
	t.Parallel()
	for _, tt := range deepShapes {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// A comment line first: the error must point at the code.
			const head = "// deep code below\n"
			src := head + tt.deep(MaxNesting+5)
			err := Nesting(src)
			if err == nil || err.Message != NestingMessage || err.Offset < len(head) || !strings.ContainsAny(src[err.Offset:err.Offset+1], "[({$") {
				t.Fatalf("Nesting = %+v, want %q at a bracket after the comment", err, NestingMessage)
			}
			if err := Nesting(tt.deep(MaxNesting)); err != nil {
				t.Errorf("%d levels refused: %+v", MaxNesting, err)
			}
		})
	}
}

// TestNestingErrorPointsAtTheDeepBracket: the error is at the opening
// bracket that goes one level too deep.
func TestNestingErrorPointsAtTheDeepBracket(t *testing.T) {
	t.Parallel()
	src := "export default " + rep("[", 300) + rep("]", 300) + ";"
	err := Nesting(src)
	if err == nil || err.Offset != len("export default ")+MaxNesting {
		t.Errorf("Nesting = %+v, want offset %d", err, len("export default ")+MaxNesting)
	}
}

// TestNestingScanIsNotFooled puts text that looks like closing brackets
// where esbuild does not read code (strings, comments, regular expressions,
// templates, HTML-like comments) inside nesting that is too deep: misreading
// the text as code would close brackets and hide the depth.
func TestNestingScanIsNotFooled(t *testing.T) {
	t.Parallel()
	const n = MaxNesting + 5
	around := func(text string) string { return "export default " + rep("[", n) + text + rep("]", n) + ";" }
	tests := []struct{ name, src string }{
		{"string", around(`"]]]]]]]]]]\"]]]]"`)},
		{"single-quoted string", around(`']]]]]]\']]]]'`)},
		{"block comment", around("/* ]]]]]]]]]] */ 1")},
		{"line comment", around("1 // ]]]]]]]]]]\n")},
		{"line comment ended by U+2028", "export default 1; // ]]]]]]]]\u2028export const x = " + rep("[", n) + rep("]", n)},
		{"regular expression", around(`/\]\]]]]]]]]]/`)},
		{"regular expression class", around(`/[\/]]]]]]]]]/`)},
		{"regular expression after a statement block", rep("{", n) + "if (1) {}\n/}}}}}}}}}}/.test(\"x\");\n" + rep("}", n)},
		{"regular expression after a control statement", rep("{", n) + "if (1) /}}}}}}}}}}/.test(\"x\");\n" + rep("}", n)},
		{"regular expression after return", rep("{", n) + "return /}}}}}}}}}}/;\n" + rep("}", n)},
		{"template text", around("`]]]]]]]]]${\"x\"}]]]]]]`")},
		{"nested template", around("`a${`]]]]${1}]]]]`}]]]]`")},
		{"HTML-like comment", around("<!-- ]]]]]\n")},
		{"HTML-like closing comment", around("\n--> ]]]]]\n")},
		{"escaped name", around(`\u{5d}\u{5d}`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := Nesting(tt.src); err == nil || err.Message != NestingMessage {
				t.Errorf("Nesting = %+v, want the nesting limit", err)
			}
		})
	}
}

// TestNestingScanAcceptsBracketsInText: brackets in text, however many,
// do not count; divisions are not taken for regular expressions.
func TestNestingScanAcceptsBracketsInText(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src string }{
		{"text", `const s = "` + rep("[(", 300) + `";
const t = ` + "`" + rep("{[(", 300) + "`" + `;
const r = /` + rep(`\[\(`, 300) + `/;
// ` + rep("[[(({{", 300) + `
/* ` + rep("[[(({{", 300) + ` */
export default [s.length, t.length, r.source.length];`},
		{"divisions", "let a = 1, b = 2;\nexport default " + rep("(a / b) / (", MaxNesting-1) + "a" + rep(")", MaxNesting-1) + ";"},
		{"property named like a keyword", "const o: any = {};\nexport default " + rep("o.if(", MaxNesting) + "1" + rep(") / 2", MaxNesting) + ";"},
		{"postfix increment then division", "let a = 1;\nexport default " + rep("(a++ / 2 / (", MaxNesting/2) + "1" + rep("))", MaxNesting/2) + ";"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := Nesting(tt.src); err != nil {
				t.Errorf("Nesting = %+v, want it accepted", err)
			}
		})
	}
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	var b Build
	if err := b.Admit(MaxFileBytes + 1); err == nil || err.Offset != -1 || !strings.Contains(err.Message, "over the limit of 1 MiB for program and skill files: split it into several files") {
		t.Errorf("Admit of a big file = %+v", err)
	}
	b = Build{}
	if err := b.Admit(MaxFileBytes); err != nil {
		t.Fatalf("Admit(1 MiB) = %+v", err)
	}
	if err := b.Admit(MaxFileBytes); err != nil {
		t.Fatalf("second Admit(1 MiB) = %+v", err)
	}
	if err := b.Admit(1); err == nil || !strings.Contains(err.Message, "the program's files outside servers/ total more than 2 MiB: make the program smaller") {
		t.Errorf("Admit over the build's bytes = %+v", err)
	}
	b = Build{}
	for i := 0; i < MaxProgramFiles; i++ {
		if err := b.Admit(1); err != nil {
			t.Fatalf("file %d: %+v", i, err)
		}
	}
	if err := b.Admit(1); err == nil || err.Message != fmt.Sprintf("the program imports more than %d files outside servers/: import fewer files", MaxProgramFiles) {
		t.Errorf("Admit over the file count = %+v", err)
	}
}
