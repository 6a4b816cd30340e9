package cli

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestToolsAgainstRealServers connects to real npm servers over every
// transport, plus one whose command does not exist.
func TestToolsAgainstRealServers(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	everything := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/server-everything"), "dist", "index.js")
	memory := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/server-memory"), "dist", "index.js")
	filesystem := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/server-filesystem"), "dist", "index.js")
	httpAddr := startNodeServer(t, "streamableHttp")
	sseAddr := startNodeServer(t, "sse")
	shared := filepath.Join(ws, "shared")
	writeFile(t, filepath.Join(shared, "hello.txt"), "hi")
	cfg := fmt.Sprintf(`{"mcpServers": {
  "everything": {"command": "node", "args": [%q, "stdio"]},
  "memory": {"command": "node", "args": [%q], "env": {"MEMORY_FILE_PATH": %q}},
  "filesystem": {"command": "node", "args": [%q, %q]},
  "everything-http": {"type": "http", "url": "http://%s/mcp"},
  "everything-sse": {"type": "sse", "url": "http://%s/sse"},
  "broken": {"command": "mcpcode-e2e-no-such-command"}
}}`, everything, memory, filepath.Join(ws, "memory.jsonl"), filesystem, shared, httpAddr, sseAddr)
	writeFile(t, filepath.Join(ws, "mcp.json"), cfg)

	// A connect timeout far beyond the guard: if the broken server held the
	// others up until it expired, the guard would fail the test.
	res := runBinary(t, ws, 3*time.Minute, "tools", "--connect-timeout", "10m")
	if res.code != 1 {
		t.Errorf("exit code %d, want 1\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"everything (", "everything-http (", "everything-sse (", "memory (9 tools)", "filesystem (",
		"  echo", "  create_entities", "  read_text_file",
		`broken: failed: command "mcpcode-e2e-no-such-command" not found`,
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, res.stdout)
		}
	}
	if !strings.Contains(res.stderr, `server "broken": command "mcpcode-e2e-no-such-command" not found`) {
		t.Errorf("stderr does not explain the broken server:\n%s", res.stderr)
	}

	res = runBinary(t, ws, 3*time.Minute, "servers", "--json")
	if res.code != 1 {
		t.Errorf("servers --json exit code %d, want 1", res.code)
	}
	var out struct {
		Servers []serverReport `json:"servers"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("servers --json: %v\n%s", err, res.stdout)
	}
	byName := map[string]serverReport{}
	for _, s := range out.Servers {
		byName[s.Name] = s
	}
	for _, name := range []string{"everything", "everything-http", "everything-sse", "memory", "filesystem"} {
		s := byName[name]
		if s.Status != "ok" || s.Tools == 0 || s.ServerName == "" {
			t.Errorf("%s: %+v", name, s)
		}
	}
	if s := byName["everything-http"]; s.Transport != "http" {
		t.Errorf("everything-http transport %q", s.Transport)
	}
	if s := byName["everything-sse"]; s.Transport != "sse" {
		t.Errorf("everything-sse transport %q", s.Transport)
	}
	if s := byName["broken"]; s.Status != "failed" || !strings.Contains(s.Error, "not found") {
		t.Errorf("broken: %+v", s)
	}
}
