package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
)

// TestAttackFailureMessagesAreVisible: a command that fails on untrusted
// input printed its error as it was, and errors quote that input (a
// program's line that does not bundle, with the file it is in). A skill
// in a pull request whose program does not bundle, shown by a reviewer
// with `skills show`, wrote its escape sequences to the reviewer's
// terminal. Every error is printed with hidden characters escaped.
func TestAttackFailureMessagesAreVisible(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ws := t.TempDir()
	mcptest.CopyDemoTree(t, ws)
	demo := filepath.Join(moduleRoot(t), "examples", "demo")
	writeFile(t, filepath.Join(ws, "mcp.json"), string(mustReadFile(t, filepath.Join(demo, "mcp.json"))))
	for _, f := range []string{"SKILL.md", "index.ts"} {
		writeFile(t, filepath.Join(ws, "skills", "pending-orders", f), string(mustReadFile(t, filepath.Join(demo, "skills", "pending-orders", f))))
	}
	// The line esbuild quotes holds the escape sequences raw, in a comment.
	const raw = "a\x1b[2Kb\u009b31mc\u202ed\u2066e\u200bf\x07i"
	broken := "const x = 1 +; // " + raw + "\nexport default x;\n"
	writeFile(t, filepath.Join(ws, "skills", "pending-orders", "index.ts"), broken)
	prog := filepath.Join(ws, "prog.ts")
	writeFile(t, prog, broken)
	for _, args := range [][]string{
		{"skills", "show", "--dir", ws, "pending-orders"},
		{"skills", "show", "--dir", ws, "--format", "markdown", "pending-orders"},
		{"skills", "propose", "--dir", ws, "--name", "broken", "--description", "d", "--rationale", "r", prog},
	} {
		ta.stdout.buf.Reset()
		ta.stderr.buf.Reset()
		if code := ta.run(args...); code == exitOK {
			t.Fatalf("%v succeeded on a program that does not bundle", args)
		}
		out := ta.stdout.String() + ta.stderr.String()
		holdsHidden(t, strings.Join(args[:2], " "), out)
		if !strings.Contains(out, `a\u001b[2Kb\u009b31mc\u202ed\u2066e\u200bf\u0007i`) {
			t.Errorf("%v: the error does not show the line, escaped:\n%s", args, out)
		}
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
