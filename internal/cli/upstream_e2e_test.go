package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTimeMCPConnects: time-mcp 1.0.6 prints "Starting Time MCP server..."
// on stdout before it speaks MCP; the line is skipped and logged, and the
// server connects and answers calls.
func TestTimeMCPConnects(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	script := filepath.Join(npmPackageDir(t, "time-mcp"), "dist", "index.js")
	writeFile(t, filepath.Join(ws, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"time": {"command": "node", "args": [%q]}}}`, script))
	res := runBinary(t, ws, 3*time.Minute, "tools", "time")
	if res.code != 0 {
		t.Fatalf("tools time: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if !strings.Contains(res.stdout, "current_time") {
		t.Errorf("tools time lists no current_time:\n%s", res.stdout)
	}
	log, err := os.ReadFile(filepath.Join(ws, ".mcpcode", "logs", "time.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "[stdout, not JSON-RPC, skipped] Starting Time MCP server") {
		t.Errorf("the skipped banner is not in the server's log:\n%s", log)
	}
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	writeFile(t, filepath.Join(ws, "now.ts"), `import { callMCPTool } from "mcpcode:runtime";
const r: any = await callMCPTool("time", "current_time", { format: "YYYY-MM-DD" });
console.log(/\d{4}-\d{2}-\d{2}/.test(JSON.stringify(r)) ? "date ok" : "no date: " + JSON.stringify(r));`)
	res = runBinary(t, ws, 3*time.Minute, "run", "now.ts")
	if res.code != 0 || !strings.Contains(res.stdout, "date ok") {
		t.Errorf("run: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
}
