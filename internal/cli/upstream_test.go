package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
)

// TestBrokenServerEntryFailsOnlyThatServer: an unset ${VAR} in one entry of
// mcp.json fails that server (exit 1, its reason shown), never the command
// as a whole (exit 2), and a run that does not call it is not touched.
func TestBrokenServerEntryFailsOnlyThatServer(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ta.cli.app.Environ = []string{"PATH=" + os.Getenv("PATH")} // no CRM_TOKEN
	ws := t.TempDir()
	ta.fakes.set("ok", &mcptest.RawServer{Name: "ok", Version: "1", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"ping","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)}})
	writeFile(t, filepath.Join(ws, "mcp.json"), `{"mcpServers": {
  "crm": {"type": "http", "url": "https://crm.test/mcp", "headers": {"Authorization": "Bearer ${CRM_TOKEN}"}},
  "ok": {"command": "fake-upstream-ok"}}}`)
	reason := `mcp.json: server "crm": environment variable CRM_TOKEN is not set (used in headers.Authorization); set it, or write ${CRM_TOKEN:-default}`

	if code := ta.run("servers", "--dir", ws); code != exitFailure {
		t.Fatalf("servers: exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, ta.stdout, ta.stderr)
	}
	out := ta.stdout.String()
	if !strings.Contains(out, "crm     failed  http") || !strings.Contains(out, "ok      ok      stdio") {
		t.Errorf("servers table:\n%s", out)
	}
	if !strings.Contains(ta.stderr.String(), reason) {
		t.Errorf("servers does not say why crm failed:\n%s", ta.stderr)
	}

	ta.stdout.buf.Reset()
	if code := ta.run("servers", "--dir", ws, "ok"); code != exitOK {
		t.Fatalf("servers ok: exit %d\n%s", code, ta.stderr)
	}
	if out := ta.stdout.String(); !strings.Contains(out, "ok ") || strings.Contains(out, "crm") {
		t.Errorf("servers ok shows other servers:\n%s", out)
	}
	if code := ta.run("servers", "--dir", ws, "nope"); code != exitUsage {
		t.Errorf("servers nope: exit %d, want 2", code)
	}

	ta.stdout.buf.Reset()
	if code := ta.run("gen", "--dir", ws); code != exitFailure {
		t.Fatalf("gen: exit %d, want 1\n%s", code, ta.stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "servers", "ok", "ping.ts")); err != nil {
		t.Errorf("gen did not generate the working server: %v", err)
	}

	prog := filepath.Join(ws, "prog.ts")
	writeFile(t, prog, `import { ping } from "./servers/ok/index.ts";
await ping({});
export default "pinged";`)
	ta.stdout.buf.Reset()
	if code := ta.run("run", "--dir", ws, "--isolation", "none", prog); code != exitOK {
		t.Fatalf("run of a program calling only the working server: exit %d\nstdout:\n%s\nstderr:\n%s", code, ta.stdout, ta.stderr)
	}
	if !strings.Contains(ta.stdout.String(), `"pinged"`) {
		t.Errorf("run output:\n%s", ta.stdout)
	}
}
