package runtime

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime/internal/precheck"
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

// TestBundleNestingLimit: the pre-check's refusal (see
// runtime/internal/precheck for the shapes it reads) is a diagnostic at the
// bracket that goes too deep, in the file that has it.
func TestBundleNestingLimit(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, file, deep string }{
		{name: "arrays", file: "prog.ts", deep: "export default " + rep("[", 205) + rep("]", 205) + ";"},
		{name: "template substitutions in JavaScript", file: "prog.js", deep: "export default " + rep("`${", 205) + "1" + rep("}`", 205) + ";"},
		{name: "blocks in TSX", file: "prog.tsx", deep: rep("{", 205) + rep("}", 205)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, nil)
			// A comment line first: the diagnostic must point at the code.
			d := bundleDiagnostic(t, ws, tt.file, "// deep code below\n"+tt.deep)
			if d.Text != precheck.NestingMessage || d.File != tt.file || d.Line != 2 || d.Column == 0 {
				t.Errorf("diagnostic = %+v, want %q in %s on line 2", d, precheck.NestingMessage, tt.file)
			}
		})
	}
}

// TestBundleNestingScanAcceptsBracketsInText bundles and runs a program
// with many brackets in text: the pre-check must let it through, and
// esbuild and goja must read the text as the scan did.
func TestBundleNestingScanAcceptsBracketsInText(t *testing.T) {
	t.Parallel()
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

func TestBundleSizeLimits(t *testing.T) {
	t.Parallel()
	big := "export const s = \"" + rep("x", precheck.MaxFileBytes) + "\";\n"
	t.Run("program source", func(t *testing.T) {
		t.Parallel()
		d := bundleDiagnostic(t, newWorkspace(t, nil), "prog.ts", big)
		if d.File != "prog.ts" || !strings.Contains(d.Text, "over the limit of 1 MiB: split it into several files") {
			t.Errorf("diagnostic = %+v", d)
		}
	})
	t.Run("program named like a generated file", func(t *testing.T) {
		t.Parallel()
		d := bundleDiagnostic(t, newWorkspace(t, nil), "servers/slack/prog.ts", big)
		if d.File != "servers/slack/prog.ts" || !strings.Contains(d.Text, "over the limit of 1 MiB") {
			t.Errorf("diagnostic = %+v", d)
		}
	})
	t.Run("imported file", func(t *testing.T) {
		t.Parallel()
		ws := newWorkspace(t, map[string]string{"data/big.ts": big})
		d := bundleDiagnostic(t, ws, "prog.ts", `import { s } from "./data/big"; export default s.length;`)
		if d.File != "data/big.ts" || !strings.Contains(d.Text, "the file is over the limit of 1 MiB for program and skill files: split it into several files") {
			t.Errorf("diagnostic = %+v", d)
		}
	})
	t.Run("all files together", func(t *testing.T) {
		t.Parallel()
		part := "export const s = \"" + rep("x", precheck.MaxFileBytes-100) + "\";\n"
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
	t.Parallel()
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
// tree has a size limit of its own, and the same nesting limit.
func TestBundleGeneratedFilesAreCheckedForNesting(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, map[string]string{"servers/slack/deep.ts": "export const x = " + rep("[", 205) + rep("]", 205) + ";\n"})
	d := bundleDiagnostic(t, ws, "prog.ts", `import { x } from "servers/slack/deep"; export default x;`)
	if d.File != "servers/slack/deep.ts" || !strings.HasPrefix(d.Text, "nesting deeper than 200 levels") {
		t.Errorf("diagnostic = %+v", d)
	}
}

// TestBundleShallowShapes bundles shapes of real programs, large but
// shallow: they must bundle (quickly; the guard catches a hang).
func TestBundleShallowShapes(t *testing.T) {
	t.Parallel()
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
			t.Parallel()
			if _, err := bundleGuarded(t, BundleOptions{Workspace: newWorkspace(t, nil), Entry: "prog.ts", Source: []byte(tt.src)}); err != nil {
				t.Fatalf("Bundle: %.500v", err)
			}
		})
	}
}

func TestBundleDiagnosticOmitsLongLines(t *testing.T) {
	t.Parallel()
	src := "export default " + rep("[", 300) + rep("]", 300) + ";" + rep(" ", 1000) + "\n"
	d := bundleDiagnostic(t, newWorkspace(t, nil), "prog.ts", src)
	if d.LineText != "" || d.Line != 1 || d.Column != len("export default ")+201 {
		t.Errorf("diagnostic = %+v, want no line text at 1:%d", d, len("export default ")+201)
	}
}
