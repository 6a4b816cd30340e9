package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// TestServerEverythingNoticesResourcesAndTasks: against server-everything
// over stdio, a run shows the server's progress (also to onProgress) and
// log messages, marked as the server's; it reads a resource_link a tool
// returned; a task-only tool is marked unusable by gen and fails at once.
func TestServerEverythingNoticesResourcesAndTasks(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	everything := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/server-everything"), "dist", "index.js")
	writeFile(t, filepath.Join(ws, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"everything": {"command": "node", "args": [%q, "stdio"]}}}`, everything))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	index, err := os.ReadFile(filepath.Join(ws, "servers", "everything", "index.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(index), "// UNUSABLE: it can only be called as a task (execution.taskSupport \"required\"), which mcpcode does not support yet.\n// Simulates a deep research operation") {
		t.Errorf("index.ts does not mark simulate-research-query unusable:\n%s", index)
	}
	writeFile(t, filepath.Join(ws, "prog.ts"), `import { readResource, ToolError } from "mcpcode:runtime";
import { toggleSimulatedLogging, triggerLongRunningOperation, getResourceLinks, simulateResearchQuery } from "./servers/everything/index.ts";
const seen: string[] = [];
await toggleSimulatedLogging({});
await triggerLongRunningOperation({ duration: 2, steps: 4 }, { onProgress: (p) => seen.push(p.progress + "/" + p.total) });
console.log("onProgress:", seen.join(" "));
const links: any = await getResourceLinks({ count: 1 });
const link = links.content.find((c: any) => c.type === "resource_link");
const contents = await readResource("everything", link.uri);
console.log("read", link.uri, "with", contents.length, "content of", contents[0].uri);
try {
  await simulateResearchQuery({ topic: "x" } as any);
} catch (e) {
  console.log("task-only:", e instanceof ToolError && e.kind, (e as Error).message);
}`)
	res := runBinary(t, ws, 3*time.Minute, "run", "prog.ts")
	if res.code != 0 {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	for _, want := range []string{
		"[everything progress] 1/4\n", "[everything progress] 4/4\n",
		"onProgress: 1/4 2/4 3/4 4/4\n",
		"read demo://resource/",
		`task-only: tool everything.simulate-research-query cannot be called: it can only be called as a task (execution.taskSupport "required")`,
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("the run's output lacks %q:\n%s", want, res.stdout)
		}
	}
	// Log messages: server-everything logs, at info, the roots it received
	// (350 ms after connecting, during the 2 s operation), and a random
	// level message when logging is toggled on (debug ones are not asked
	// for); at least one reaches the run, marked as the server's.
	if !regexp.MustCompile(`(?m)^\[everything (info|notice|warning|error|critical|alert|emergency)( everything-server)?\] `).MatchString(res.stdout) {
		t.Errorf("no log message of the server in the run's output:\n%s", res.stdout)
	}
	log, _ := os.ReadFile(filepath.Join(ws, ".mcpcode", "logs", "everything.log"))
	if !strings.Contains(string(log), "[progress] 4/4\n") || !strings.Contains(string(log), "[log ") {
		t.Errorf("the server's log lacks its notices:\n%s", log)
	}
}
