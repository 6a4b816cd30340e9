package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// bundleGuarded bundles with a guard: a build that hangs fails the test
// instead of stalling it (the build goroutine is left behind).
func bundleGuarded(t *testing.T, opts BundleOptions) (*Program, error) {
	t.Helper()
	type out struct {
		p   *Program
		err error
	}
	done := make(chan out, 1)
	go func() {
		p, err := Bundle(opts)
		done <- out{p, err}
	}()
	select {
	case o := <-done:
		return o.p, o.err
	case <-time.After(guard):
		t.Fatalf("Bundle did not return within %s", guard)
		return nil, nil
	}
}

// bundleDiagnostic bundles src (named name) and returns its first
// diagnostic, failing when bundling succeeds.
func bundleDiagnostic(t *testing.T, ws, name, src string) Diagnostic {
	t.Helper()
	_, err := bundleGuarded(t, BundleOptions{Workspace: ws, Entry: name, Source: []byte(src), Skills: defaultPolicy})
	var be *BundleError
	if !errors.As(err, &be) {
		t.Fatalf("Bundle error = %v, want a *BundleError", err)
	}
	return be.Diagnostics[0]
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

func TestBundleNestingLimit(t *testing.T) {
	const nestingMsg = "nesting deeper than 200 levels: split the expression or the function"
	tests := []struct {
		name string
		file string // default prog.ts
		deep func(n int) string
	}{
		{name: "arrays", deep: func(n int) string { return "export default " + rep("[", n) + rep("]", n) + ";" }},
		{name: "parentheses", deep: func(n int) string { return "export default " + rep("(", n) + "1" + rep(")", n) + ";" }},
		{name: "blocks", deep: func(n int) string { return rep("{", n) + rep("}", n) }},
		{name: "objects", deep: func(n int) string { return "export default " + rep("{a:", n) + "1" + rep("}", n) + ";" }},
		{name: "arrow chain", deep: func(n int) string { return "export default " + rep("a=>", n) + "1;" }},
		{name: "arrow chain with parameters in parentheses", deep: func(n int) string { return "export default " + rep("(a)=>", n) + "1;" }},
		{name: "arrows across lines", deep: func(n int) string { return "export default " + rep("a =>\n", n) + "1;" }},
		{name: "template substitutions", deep: func(n int) string { return "export default " + rep("`${", n) + "1" + rep("}`", n) + ";" }},
		{name: "prefix operators", deep: func(n int) string { return "export default " + rep("!", n) + "1;" }},
		{name: "await chain", deep: func(n int) string { return "export default " + rep("await ", n) + "1;" }},
		{name: "assignment chain", deep: func(n int) string { return "let a: any;\nexport default " + rep("a = ", n) + "1;" }},
		{name: "conditional chain", deep: func(n int) string { return "let a: any;\nexport default " + rep("a ? 1 : ", n) + "1;" }},
		{name: "conditional chain across lines", deep: func(n int) string { return "let a: any;\nexport default a\n" + rep("? 1\n: a\n", n) + ";" }},
		{name: "exponent chain", deep: func(n int) string { return "let a = 1;\nexport default " + rep("a ** ", n) + "1;" }},
		{name: "if chain", deep: func(n int) string { return "let a = 1;\n" + rep("if (a)\n", n) + "a++;" }},
		{name: "labels", deep: func(n int) string {
			var b strings.Builder
			for i := 0; i < n; i++ {
				fmt.Fprintf(&b, "l%d:\n", i)
			}
			return b.String() + ";"
		}},
		{name: "class heritage", deep: func(n int) string {
			return "export default " + rep("class extends ", n) + "Object {}" + rep(" {}", n) + ";"
		}},
		{name: "JSX elements", file: "prog.tsx", deep: func(n int) string { return "export default " + rep("<a>", n) + rep("</a>", n) + ";" }},
		{name: "function bodies", deep: func(n int) string {
			return "export default " + rep("function () { return ", n) + "1" + rep("; }", n) + ";"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			name := tt.file
			if name == "" {
				name = "prog.ts"
			}
			// A comment line first: the diagnostic must point at the code.
			d := bundleDiagnostic(t, ws, name, "// deep code below\n"+tt.deep(205))
			if d.Text != nestingMsg || d.File != name || d.Line < 2 {
				t.Errorf("diagnostic = %+v, want %q in %s from line 2", d, nestingMsg, name)
			}
			if _, err := bundleGuarded(t, BundleOptions{Workspace: ws, Entry: name, Source: []byte(tt.deep(40))}); err != nil {
				var be *BundleError
				if errors.As(err, &be) && strings.Contains(err.Error(), "nesting") {
					t.Errorf("40 levels refused: %v", err)
				}
			}
		})
	}
}

// TestBundleNestingScanIsNotFooled puts text that looks like closing
// brackets where esbuild does not read code (strings, comments, regular
// expressions, templates, HTML-like comments, JSX text) before nesting that
// is too deep: the scan must still see it.
func TestBundleNestingScanIsNotFooled(t *testing.T) {
	// around wraps text in nesting that is too deep: misreading the text
	// as code would close brackets and hide the depth.
	around := func(text string) string { return "export default " + rep("[", 205) + text + rep("]", 205) + ";" }
	tests := []struct {
		name, file, src string
	}{
		{name: "string", src: around(`"]]]]]]]]]]\"]]]]"`)},
		{name: "single-quoted string", src: around(`']]]]]]\']]]]'`)},
		{name: "block comment", src: around("/* ]]]]]]]]]] */ 1")},
		{name: "line comment", src: around("1 // ]]]]]]]]]]\n")},
		{name: "line comment ended by U+2028", src: "export default 1; // ]]]]]]]]\u2028export const x = " + rep("[", 205) + rep("]", 205)},
		{name: "regular expression", src: around(`/\]\]]]]]]]]]/`)},
		{name: "regular expression class", src: around(`/[\/]]]]]]]]]/`)},
		{name: "regular expression after a statement block", src: rep("{", 205) + "if (1) {}\n/}}}}}}}}}}/.test(\"x\");\n" + rep("}", 205)},
		{name: "regular expression after a control statement", src: rep("{", 205) + "if (1) /}}}}}}}}}}/.test(\"x\");\n" + rep("}", 205)},
		{name: "template text", src: around("`]]]]]]]]]${\"x\"}]]]]]]`")},
		{name: "HTML-like comment", src: around("<!-- ]]]]]\n")},
		{name: "HTML-like closing comment", src: around("\n--> ]]]]]\n")},
		{name: "JSX text", file: "prog.tsx", src: around("<p>]]]]]]]]]]]]</p>")},
		{name: "JSX text with an apostrophe", file: "prog.tsx", src: "export const e = <p>it's</p>; export default " + rep("[", 205) + rep("]", 205)},
		{name: "JSX attribute", file: "prog.tsx", src: around(`<p title="]]]]]]]]]]]]]]]" />`)},
		{name: "JSX element as an attribute", file: "prog.tsx", src: around(`<p title=<b /> lang="x">]]]]]]]]]]]]</p>`)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name := tt.file
			if name == "" {
				name = "prog.ts"
			}
			d := bundleDiagnostic(t, newWorkspace(t, nil), name, tt.src)
			if !strings.HasPrefix(d.Text, "nesting deeper than 200 levels") {
				t.Errorf("diagnostic = %+v, want the nesting limit", d)
			}
		})
	}
}

func TestBundleNestingScanAcceptsBracketsInText(t *testing.T) {
	src := `const s = "` + rep("[(", 300) + `";
const t = ` + "`" + rep("{[(", 300) + "`" + `;
const r = /` + rep(`\[\(`, 300) + `/;
// ` + rep("[[(({{", 300) + `
/* ` + rep("[[(({{", 300) + ` */
export default [s.length, t.length, r.source.length];`
	p, err := bundleGuarded(t, BundleOptions{Workspace: newWorkspace(t, nil), Entry: "prog.ts", Source: []byte(src)})
	if err != nil {
		t.Fatalf("Bundle: %v", err)
	}
	res := Run(t.Context(), p, RunOptions{})
	mustOK(t, res)
	if string(res.Result) != "[600,900,1200]" {
		t.Errorf("result = %s", res.Result)
	}
}

func TestBundleAmbiguousSlash(t *testing.T) {
	ws := newWorkspace(t, nil)
	d := bundleDiagnostic(t, ws, "prog.ts", "export const f = function () {}\n/[(]/.test(\"x\");\n")
	if d.Line != 2 || !strings.Contains(d.Text, "cannot tell whether this '/' starts a regular expression or divides: put a semicolon before it") {
		t.Errorf("diagnostic = %+v", d)
	}
	if _, err := bundleGuarded(t, BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte("export const f = function () {};\n/[(]/.test(\"x\");\n")}); err != nil {
		t.Errorf("with a semicolon: %v", err)
	}
}

func TestBundleChainLimit(t *testing.T) {
	const msg = "expression nested or chained more than 1000 levels deep (calls, property accesses, operators): split it into several statements"
	tests := []struct{ name, src string }{
		{name: "property accesses", src: "let a: any = {};\nexport default a" + rep(".a", 1005) + ";"},
		{name: "calls", src: "let a: any = () => a;\nexport default a" + rep("()", 1005) + ";"},
		{name: "then chain", src: "const p = Promise.resolve(1);\nexport default p" + rep(".then((x) => x)", 505) + ";"},
		{name: "binary operators", src: "let a = 1;\nexport default " + rep("a + ", 1005) + "a;"},
		{name: "comma operators", src: "let a = 1;\nexport default (" + rep("a, ", 1005) + "a);"},
		{name: "chains around parentheses", src: "let a: any = {};\nexport default " + rep("(", 150) + "a" + rep(".a.a.a.a.a.a)", 150) + ";"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := bundleDiagnostic(t, newWorkspace(t, nil), "prog.ts", tt.src); d.Text != msg || d.Line != 2 {
				t.Errorf("diagnostic = %+v, want %q on line 2", d, msg)
			}
		})
	}
}

// TestBundleWorkBudgets builds, for each shape esbuild or goja handles in
// more than linear time, a source whose shallow pieces are each accepted
// but together exceed the budget.
func TestBundleWorkBudgets(t *testing.T) {
	lines := func(n int, line func(i int) string) string {
		var b strings.Builder
		b.WriteString("const all: any[] = [];\nlet a: any = 1;\n")
		for i := 0; i < n; i++ {
			b.WriteString(line(i))
		}
		return b.String() + "export default all;\n"
	}
	tests := []struct {
		name, src, msg string
	}{
		{name: "arrow chains with colliding names", src: lines(20, func(int) string { return "all.push(" + rep("a => ", 150) + "1);\n" }),
			msg: workMessage[workRename]},
		{name: "numbered names around nested scopes", src: func() string {
			var b strings.Builder
			b.WriteString("export default function () {\n  let a = 1")
			for i := 2; i < 3000; i++ {
				fmt.Fprintf(&b, ", a%d = %d", i, i)
			}
			b.WriteString(";\n" + rep("  { let a = 2; }\n", 2000) + "}\n")
			return b.String()
		}(), msg: workMessage[workRename]},
		{name: "deep blocks repeated", src: lines(200, func(int) string { return rep("{", 190) + rep("}", 190) + "\n" }), msg: workMessage[workDeep]},
		{name: "deep prefix operators repeated", src: lines(400, func(int) string { return "all.push(" + rep("!", 190) + "a);\n" }), msg: workMessage[workDeep]},
		{name: "operator chains", src: lines(80, func(int) string { return "all.push(" + rep("a + ", 900) + "a);\n" }), msg: workMessage[workChain]},
		{name: "comma chains", src: lines(40, func(int) string { return "all.push((" + rep("a(), ", 900) + "a()));\n" }), msg: workMessage[workChain]},
		{name: "string literals joined with +", src: lines(15, func(int) string { return `all.push("` + rep("y", 10000) + `"` + rep(` + "x"`, 900) + ");\n" }), msg: workMessage[workFold]},
		{name: "less-than chains", src: lines(5, func(int) string { return "all.push(" + rep("a < ", 990) + "a);\n" }), msg: workMessage[workAngle]},
		{name: "switch cases", src: func() string {
			var b strings.Builder
			b.WriteString("let a: any = 1, r = 0;\nswitch (a) {\n")
			for i := 0; i < 25000; i++ {
				fmt.Fprintf(&b, "case %d:\n", i)
			}
			b.WriteString("r = 1;\n}\nexport default r;\n")
			return b.String()
		}(), msg: workMessage[workCases]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := bundleDiagnostic(t, newWorkspace(t, nil), "prog.ts", tt.src)
			if d.Text != tt.msg || d.File != "prog.ts" || d.Line == 0 {
				t.Errorf("diagnostic = %+v, want %q with a position", d, tt.msg)
			}
		})
	}
}

// TestBundleWorkBudgetsSpanFiles splits colliding names over two files:
// the budget is the build's, not each file's.
func TestBundleWorkBudgetsSpanFiles(t *testing.T) {
	var names strings.Builder
	names.WriteString("export const a = 1")
	for i := 2; i < 4000; i++ {
		fmt.Fprintf(&names, ", a%d = %d", i, i)
	}
	names.WriteString(";\n")
	ws := newWorkspace(t, map[string]string{"names.ts": names.String()})
	src := "import * as n from \"./names\";\nexport default function () {\n" + rep("  { let a = 2; }\n", 2000) + "  return n;\n}\n"
	_, err := bundleGuarded(t, BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(src)})
	if err == nil || !strings.Contains(err.Error(), workMessage[workRename]) {
		t.Fatalf("error = %v, want the renaming budget", err)
	}
}

func TestBundleSizeLimits(t *testing.T) {
	big := "export const s = \"" + rep("x", maxSourceFileBytes) + "\";\n"
	t.Run("program source", func(t *testing.T) {
		d := bundleDiagnostic(t, newWorkspace(t, nil), "prog.ts", big)
		if d.File != "prog.ts" || !strings.Contains(d.Text, "over the limit of 1 MiB: split it into several files") {
			t.Errorf("diagnostic = %+v", d)
		}
	})
	t.Run("program named like a generated file", func(t *testing.T) {
		d := bundleDiagnostic(t, newWorkspace(t, nil), "servers/slack/prog.ts", big)
		if d.File != "servers/slack/prog.ts" || !strings.Contains(d.Text, "over the limit of 1 MiB") {
			t.Errorf("diagnostic = %+v", d)
		}
	})
	t.Run("imported file", func(t *testing.T) {
		ws := newWorkspace(t, map[string]string{"data/big.ts": big})
		d := bundleDiagnostic(t, ws, "prog.ts", `import { s } from "./data/big"; export default s.length;`)
		if d.File != "data/big.ts" || !strings.Contains(d.Text, "the file is over the limit of 1 MiB for program and skill files: split it into several files") {
			t.Errorf("diagnostic = %+v", d)
		}
	})
	t.Run("all files together", func(t *testing.T) {
		part := "export const s = \"" + rep("x", maxSourceFileBytes-100) + "\";\n"
		ws := newWorkspace(t, map[string]string{"a.ts": part, "b.ts": part, "c.ts": part})
		_, err := bundleGuarded(t, BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(`import { s as a } from "./a"; import { s as b } from "./b"; import { s as c } from "./c"; export default a + b + c;`)})
		if err == nil || !strings.Contains(err.Error(), "the program's files outside servers/ total more than 2 MiB: make the program smaller") {
			t.Errorf("error = %.300v", err)
		}
	})
}

// TestBundleGeneratedUnions: the generator writes enums of up to 10000
// values as unions of literals.
func TestBundleGeneratedUnions(t *testing.T) {
	var union strings.Builder
	for i := 0; i < 10000; i++ {
		if i > 0 {
			union.WriteString(" | ")
		}
		fmt.Fprintf(&union, "%q", fmt.Sprint("value-", i))
	}
	ws := newWorkspace(t, map[string]string{"servers/slack/enum.ts": "export type Value = " + union.String() + ";\nexport const first: Value = \"value-0\";\n"})
	if _, err := bundleGuarded(t, BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(`import { first } from "servers/slack/enum"; export default first;`)}); err != nil {
		t.Fatalf("Bundle: %.300v", err)
	}
}

// TestBundleGeneratedFilesAreCheckedForNesting: the generated servers/
// tree is exempt from the size and work limits, not from the nesting limit.
func TestBundleGeneratedFilesAreCheckedForNesting(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"servers/slack/deep.ts": "export const x = " + rep("[", 205) + rep("]", 205) + ";\n"})
	d := bundleDiagnostic(t, ws, "prog.ts", `import { x } from "servers/slack/deep"; export default x;`)
	if d.File != "servers/slack/deep.ts" || !strings.HasPrefix(d.Text, "nesting deeper than 200 levels") {
		t.Errorf("diagnostic = %+v", d)
	}
}

// TestBundleShallowShapes bundles the shapes that stay within the limits:
// they must bundle (quickly; the guard catches a hang).
func TestBundleShallowShapes(t *testing.T) {
	lines := func(head string, n int, line func(i int) string, tail string) string {
		var b strings.Builder
		b.WriteString(head)
		for i := 0; i < n; i++ {
			b.WriteString(line(i))
		}
		return b.String() + tail
	}
	tests := []struct{ name, src string }{
		{name: "many small functions", src: lines("const fs: any[] = [];\n", 3000, func(i int) string { return fmt.Sprintf("fs.push(function f%d(a: number) { return a + %d; });\n", i, i) }, "export default fs.length;\n")},
		{name: "large object literal", src: lines("export default {\n", 5000, func(i int) string { return fmt.Sprintf("  k%d: [%d, \"v%d\"],\n", i, i, i) }, "};\n")},
		{name: "many then calls", src: lines("const p = Promise.resolve(1);\n", 3000, func(int) string { return "p.then((x) => x + 1);\n" }, "export default 1;\n")},
		{name: "long then chain", src: "export default Promise.resolve(1)" + rep(".then((x) => x + 1)", 400) + ";\n"},
		{name: "a few deep arrows", src: lines("const all: any[] = [];\n", 3, func(int) string { return "all.push(" + rep("(a) => ", 190) + "1);\n" }, "export default all.length;\n")},
		{name: "big switch", src: lines("let a: any = 7, r = 0;\nswitch (a) {\n", 2000, func(i int) string { return fmt.Sprintf("  case %d: r = %d; break;\n", i, i) }, "}\nexport default r;\n")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := bundleGuarded(t, BundleOptions{Workspace: newWorkspace(t, nil), Entry: "prog.ts", Source: []byte(tt.src)}); err != nil {
				t.Fatalf("Bundle: %.500v", err)
			}
		})
	}
}

func TestBundleDiagnosticOmitsLongLines(t *testing.T) {
	src := "export default " + rep("[", 300) + rep("]", 300) + ";" + rep(" ", 1000) + "\n"
	d := bundleDiagnostic(t, newWorkspace(t, nil), "prog.ts", src)
	if d.LineText != "" || d.Line != 1 || d.Column != len("export default ")+201 {
		t.Errorf("diagnostic = %+v, want no line text at 1:%d", d, len("export default ")+201)
	}
}
