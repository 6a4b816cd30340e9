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

// TestAttackSkillNamesCannotCommandTheRunner: a pull request controls the
// names of the directories under skills/ and what SKILL.md says (who
// approved). Written to end a workflow command and start others
// (stop-commands hides every annotation after it, add-mask hides text
// from the log, error and warning add annotations of their own), they
// stay inside the one line of their problem: every line verify prints
// that GitHub's runner reads as a command is an ::error of mcpcode's. The
// runner also reads the legacy form "##[command]data" anywhere in a line,
// not only at its start (actions/runner, ActionCommand.TryParse): verify
// listed "ok skills/NAME approved by ##[stop-commands]x" and every
// annotation after it was dropped.
func TestAttackSkillNamesCannotCommandTheRunner(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ws := t.TempDir()
	mcptest.CopyDemoTree(t, ws)
	demo := filepath.Join(moduleRoot(t), "examples", "demo")
	writeFile(t, filepath.Join(ws, "mcp.json"), string(mustReadFile(t, filepath.Join(demo, "mcp.json"))))
	for _, name := range []string{"x\n::stop-commands::tok\n::add-mask::Verify", "y,title=ok::\r\n  ::notice::all good", "z##[stop-commands]tok"} {
		writeFile(t, filepath.Join(ws, "skills", name, "SKILL.md"), "---\nname: x\ndescription: x\n---\n")
	}
	// An approved skill that verifies, whose SKILL.md names as approver a
	// legacy command that stops the runner reading the rest.
	for _, f := range []string{"SKILL.md", "index.ts", "input.schema.json", "examples/1.json"} {
		writeFile(t, filepath.Join(ws, "skills", "pending-orders", f), string(mustReadFile(t, filepath.Join(demo, "skills", "pending-orders", f))))
	}
	md := filepath.Join(ws, "skills", "pending-orders", "SKILL.md")
	writeFile(t, md, strings.Replace(string(mustReadFile(t, md)), "mcpcode-approved-by: the demo", "mcpcode-approved-by: the demo ##[stop-commands]tok2", 1))
	if code := ta.run("skills", "verify", "--dir", ws, "--format", "github"); code != exitFailure {
		t.Fatalf("exit %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	errors := 0
	for _, l := range strings.Split(ta.stdout.String()+ta.stderr.String(), "\n") {
		l = strings.TrimLeft(l, " \t")
		switch {
		case strings.HasPrefix(l, "::error file="):
			errors++
			if strings.Contains(l, "\r") {
				t.Errorf("a raw CR in %q", l)
			}
		case strings.HasPrefix(l, "::"):
			t.Errorf("a command that is not mcpcode's annotation: %q", l)
		}
		if strings.Contains(l, "##[") {
			t.Errorf("a legacy command in %q", l)
		}
	}
	if errors < 2 {
		t.Errorf("%d annotations:\n%s", errors, ta.stdout)
	}
}
