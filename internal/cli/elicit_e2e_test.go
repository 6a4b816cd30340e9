//go:build linux

package cli

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/ptytest"
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

	master, slave := ptytest.Open(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "ask.ts")
	cmd.Dir = ws
	var stdout bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, &stdout, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	// The person: answer each prompt as it appears.
	var screen strings.Builder
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		var pending string
		for {
			n, err := master.Read(buf)
			if n > 0 {
				mu.Lock()
				screen.Write(buf[:n])
				mu.Unlock()
				pending += string(buf[:n])
				for {
					i := strings.Index(pending, ": ")
					if i < 0 {
						break
					}
					// A prompt wider than the terminal goes on behind the gutter.
					prompt := strings.ReplaceAll(strings.ReplaceAll(pending[:i], "\r\n"+formGutter, ""), "\n"+formGutter, "")
					pending = pending[i+2:]
					line := prompt[strings.LastIndex(prompt, "\n")+1:]
					switch {
					case strings.HasPrefix(line, "Answer?"):
						master.Write([]byte("y\n"))
					case strings.Contains(line, "(name)"):
						master.Write([]byte("Ada Lovelace\n"))
					case strings.HasPrefix(line, "  ") && strings.Contains(line, "("):
						master.Write([]byte("\n")) // keep the default, or leave it empty
					}
				}
			}
			if err != nil {
				return
			}
		}
	}()
	err := cmd.Wait()
	master.Close()
	<-done
	mu.Lock()
	shown := screen.String()
	mu.Unlock()
	if err != nil {
		t.Fatalf("run: %v\nstdout:\n%s\nterminal:\n%s", err, stdout.String(), shown)
	}
	for _, want := range []string{`mcpcode: server "everything" asks:`, "Your full, legal name", "[It was a dark and stormy night.]", "1) Superman (hero-1)"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the form lacks %q:\n%s", want, shown)
		}
	}
	out := stdout.String()
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
