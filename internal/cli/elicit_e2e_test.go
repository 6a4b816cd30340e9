//go:build linux

package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestElicitationInTheTerminal: server-everything's elicitation tool asks
// for a form of twelve fields; a person (this test, at a pseudo-terminal)
// answers the name and keeps every default; the answer reaches the
// program. Without a terminal the request is declined and the program sees
// why.
func TestElicitationInTheTerminal(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	everything := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/server-everything"), "dist", "index.js")
	writeFile(t, filepath.Join(ws, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"]}}}`, everything))
	writeFile(t, filepath.Join(ws, "ask.ts"), `import { callMCPTool } from "mcpcode:runtime";
const r: any = await callMCPTool("everything", "trigger-elicitation-request", {});
console.log(r.content.map((c: any) => c.text).join("\n"));`)

	// The person: answer each prompt as it appears.
	out, shown, err := runAtPTY(t, ws, func(line string) string {
		switch {
		case strings.HasPrefix(line, "Answer?"):
			return "y\n"
		case strings.Contains(line, "(name)"):
			return "Ada Lovelace\n"
		case strings.HasPrefix(line, "  ") && strings.Contains(line, "("):
			return "\n" // keep the default, or leave it empty
		}
		return ""
	}, "run", "ask.ts")
	if err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nterminal:\n%s", err, out, shown)
	}
	for _, want := range []string{`mcpcode: server "everything" asks:`, "Your full, legal name", "[It was a dark and stormy night.]", "1) Superman (hero-1)"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the form lacks %q:\n%s", want, shown)
		}
	}
	for _, want := range []string{"User provided the requested information", "- Name: Ada Lovelace", "- Favorite Integer: 42", `"firstLine": "It was a dark and stormy night."`} {
		if !strings.Contains(out, want) {
			t.Errorf("the program's output lacks %q:\n%s", want, out)
		}
	}

	// Without a terminal: declined, and the program sees why.
	res := runBinary(t, ws, 3*time.Minute, "run", "ask.ts")
	if !strings.Contains(res.stdout+res.stderr, "mcpcode run has no terminal to ask the person in") {
		t.Errorf("without a terminal: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
}
