//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestModernOnlyServer: an upstream server that speaks only MCP 2026-07-28
// (testdata/mcp2026/server.mjs, written with the official TypeScript SDK
// v2, which rejects initialize), over stdio and over stateless streamable
// HTTP, is generated and called by the real binary. Its tools answer
// input_required (multi round-trip requests): roots are served; a
// question for the person is asked at a terminal with the form, and the
// call completes with the answer; with no terminal the program gets an
// error saying nobody could be asked, and the tool's action (a note
// written to a file) does not happen; sampling is declined with the
// reason. Over HTTP, a tool name that is not ASCII travels Base64-encoded
// in Mcp-Name, which the server checks against the body.
func TestModernOnlyServer(t *testing.T) {
	e2e(t)
	t.Parallel()
	script := filepath.Join(moduleRoot(t), "testdata", "mcp2026", "server.mjs")
	npmDir := filepath.Join(moduleRoot(t), "testdata", "npm")
	npmPackageDir(t, "@modelcontextprotocol/server")
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			notes := filepath.Join(ws, "notes.txt")
			env := map[string]string{"NPM_DIR": npmDir, "NOTES_FILE": notes}
			entry := map[string]any{"command": "node", "args": []string{script, "stdio"}, "env": env}
			if transport == "http" {
				entry = map[string]any{"type": "http", "url": "http://" + startModernServer(t, script, env) + "/mcp"}
			}
			cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"modern": entry}})
			writeFile(t, filepath.Join(ws, "mcp.json"), string(cfg))

			res := runBinary(t, ws, 3*time.Minute, "servers", "--json", "modern")
			if res.code != 0 || !strings.Contains(res.stdout, `"protocolVersion": "2026-07-28"`) {
				t.Fatalf("servers: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
				t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
			}
			for _, f := range []string{"add.ts", "writeNote.ts", "listRoots.ts", "askModel.ts"} {
				if _, err := os.Stat(filepath.Join(ws, "servers", "modern", f)); err != nil {
					t.Errorf("gen wrote no %s: %v", f, err)
				}
			}

			writeFile(t, filepath.Join(ws, "read.ts"), `import { add, listRoots, askModel } from "./servers/modern/index.ts";
import { callMCPTool } from "mcpcode:runtime";
console.log("sum:", (await add({ a: 2, b: 3 }) as any).content[0].text);
console.log("greeting:", (await callMCPTool("modern", "grüße", {}) as any).content[0].text);
console.log("roots:", (await listRoots({}) as any).content[0].text);
try {
  await askModel({});
  console.log("sampling: answered?");
} catch (e) {
  console.log("sampling:", String(e));
}`)
			res = runBinary(t, ws, 3*time.Minute, "run", "read.ts")
			wantRoot := "roots: roots: file://" + filepath.Join(ws, "workspace")
			for _, want := range []string{"sum: 2+3=5", "greeting: grüße zurück", wantRoot,
				"sampling: ToolError: calling modern.ask_model:", "declined: the server asked for a model's completion (sampling), but mcpcode has no model of its own"} {
				if !strings.Contains(res.stdout, want) {
					t.Errorf("run read.ts lacks %q\nstdout:\n%s\nstderr:\n%s", want, res.stdout, res.stderr)
				}
			}

			writeFile(t, filepath.Join(ws, "write.ts"), `import { writeNote } from "./servers/modern/index.ts";
const r: any = await writeNote({ text: "hello" });
console.log("result:", r.content[0].text);`)

			// No terminal: nobody can be asked; the note is not written.
			res = runBinary(t, ws, 3*time.Minute, "run", "write.ts")
			if res.code == 0 || !strings.Contains(res.stdout+res.stderr, `calling write_note: it was not completed: declined: the server asked the user "Write the note \"hello\"?", but mcpcode run has no terminal to ask the person in`) ||
				!strings.Contains(res.stdout+res.stderr, "the server, which needs that answer first, was sent nothing more") {
				t.Errorf("without a terminal: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
			}
			if data, err := os.ReadFile(notes); err == nil {
				t.Errorf("the note was written although nobody was asked: %q", data)
			}

			// At a terminal: the person is asked, answers, and the call
			// completes with the answer.
			stdout, screen, err := runAtPTY(t, ws, func(prompt string) string {
				switch {
				case strings.HasPrefix(prompt, "Answer?"):
					return "y\n"
				case strings.Contains(prompt, "Why (reason)"):
					return "for the record\n"
				}
				return ""
			}, "run", "write.ts")
			if err != nil {
				t.Fatalf("run at a terminal: %v\nstdout:\n%s\nterminal:\n%s", err, stdout, screen)
			}
			for _, want := range []string{`mcpcode: server "modern" asks:`, `Write the note "hello"?`} {
				if !strings.Contains(screen, want) {
					t.Errorf("the terminal lacks %q:\n%s", want, screen)
				}
			}
			if !strings.Contains(stdout, "result: written: hello because for the record") {
				t.Errorf("stdout:\n%s", stdout)
			}
			if data, _ := os.ReadFile(notes); string(data) != "hello (for the record)\n" {
				t.Errorf("notes file %q", data)
			}
		})
	}
}

// startModernServer starts server.mjs on stateless streamable HTTP on a
// free loopback port and returns its address once it listens.
func startModernServer(t *testing.T, script string, env map[string]string) string {
	t.Helper()
	port := freePort(t)
	cmd := exec.Command("node", script, "http")
	cmd.Env = append(os.Environ(), "PORT="+port)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	addr := "127.0.0.1:" + port
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			t.Fatalf("server.mjs never listened on %s:\n%s", addr, logs.String())
		}
	}
}
