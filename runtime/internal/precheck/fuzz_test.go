package precheck

import (
	"strings"
	"testing"
)

// shapes wrap filler text n levels deep in one kind of bracket each. The
// filler goes where esbuild reads no code (a string, a comment, template
// text, a regular expression), after hiding whatever in it would end that
// place early, so it never changes the nesting.
var shapes = []struct {
	open, close string
	filler      func(text string) string
}{
	{"[", "]", stringLiteral},
	{"(", ")", blockComment},
	{"{", "}", lineComment},
	{"`${", "}`", templateText},
	{"f(", ")", regexpLiteral},
	{"{a:", "}", stringLiteral},
	{"if (a) {", "}", regexpAfterOperator},
}

// stringLiteral is text as a double-quoted string literal.
func stringLiteral(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\u2028", `\u2028`, "\u2029", `\u2029`)
	return `"` + r.Replace(text) + `"`
}

func blockComment(text string) string {
	return "/*" + strings.ReplaceAll(text, "*/", "* /") + "*/"
}

func lineComment(text string) string {
	r := strings.NewReplacer("\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ")
	return "//" + r.Replace(text) + "\n"
}

// templateText is text as a template literal without substitutions.
func templateText(text string) string {
	r := strings.NewReplacer(`\`, `\\`, "`", "\\`", "$", `\$`)
	return "`" + r.Replace(text) + "`"
}

// regexpLiteral is text as a regular expression, every character escaped
// but line terminators (which cannot be in one).
func regexpLiteral(text string) string {
	var b strings.Builder
	b.WriteString("/")
	for _, r := range text {
		switch r {
		case '\n', '\r', '\u2028', '\u2029':
			b.WriteString(`\n`)
		default:
			if r < 0x80 && !isIdentPart(byte(r)) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	b.WriteString("/g")
	return b.String()
}

func regexpAfterOperator(text string) string { return "x = " + regexpLiteral(text) + ";" }

// FuzzPrecheck checks that Nesting never panics on any source, that an
// error it reports points inside the source, and that on generated shapes
// (depth levels of one kind of bracket around text that cannot change the
// nesting) it refuses exactly the shapes deeper than MaxNesting.
func FuzzPrecheck(f *testing.F) {
	f.Add("export default [[1]];", uint16(3), uint8(0), "]]]")
	f.Add("`${`${1}`}`", uint16(MaxNesting), uint8(3), "${`")
	f.Add("/[/]/; if (a) /}/.test(x)", uint16(MaxNesting+1), uint8(6), "[/]*")
	f.Fuzz(func(t *testing.T, src string, depth uint16, shape uint8, text string) {
		for _, s := range []string{src, text} {
			if err := Nesting(s); err != nil && (err.Offset < 0 || err.Offset >= len(s) || err.Message != NestingMessage) {
				t.Fatalf("Nesting(%q) = %+v: the error must point inside the source", s, err)
			}
		}
		n := int(depth % (2*MaxNesting + 2))
		sh := shapes[int(shape)%len(shapes)]
		gen := "let a: any, x: any;\n" + strings.Repeat(sh.open, n) + sh.filler(text) + " 1" + strings.Repeat(sh.close, n) + "\n"
		err := Nesting(gen)
		if refused := err != nil; refused != (n > MaxNesting) {
			t.Fatalf("%d levels of %q around %q: Nesting = %+v, want refused = %v", n, sh.open, sh.filler(text), err, n > MaxNesting)
		}
	})
}
