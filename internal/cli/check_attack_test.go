package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/tsc"
)

// TestCheckShowsNoControlCharacters (attack): a program's line is part of
// its type errors, and the compiler's messages quote its names: escape
// sequences and bidi overrides in them reach the terminal escaped, as text
// and as JSON, from check and from run --check.
func TestCheckShowsNoControlCharacters(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), `{"mcpServers":{}}`)
	const program = "const title: number = \"\x1b]0;pwned\x07\x1b[2J\";\nconst other: number = \"\u202eevil\";\n"
	for _, args := range [][]string{{"check", "-"}, {"check", "--json", "-"}, {"run", "--check", "-"}, {"run", "--check", "--json", "-"}} {
		ta := newTestApp(t)
		ta.cli.app.Environ = []string{"PATH=" + filepath.Dir(tsc.Path(t))}
		ta.cli.stdin = strings.NewReader(program)
		code := ta.run(append(args, "--dir", ws)...)
		out := ta.stdout.String() + ta.stderr.String()
		if code != 3 || !strings.Contains(out, "const other: number") {
			t.Fatalf("%v: exit %d\n%s", args, code, out)
		}
		if strings.ContainsAny(out, "\x1b\x07\u202e") {
			t.Errorf("%v shows control characters raw: %q", args, out)
		}
	}
}
