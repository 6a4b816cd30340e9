package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// hangServerArg makes the test binary a stdio MCP server whose write tool
// deleteLead creates a marker file (the write happened) and then never
// answers; it exits when the process that started it is gone.
const hangServerArg = "__test-hang-server"

func serveHangServer(marker string) {
	ppid := os.Getppid()
	go func() {
		for os.Getppid() == ppid {
			time.Sleep(50 * time.Millisecond)
		}
		os.Exit(0) // the run that started this server was killed
	}()
	srv := &mcptest.RawServer{Name: "crm", Version: "1", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"deleteLead","inputSchema":{"type":"object","properties":{"id":{"type":"number"}}},"annotations":{"destructiveHint":true}}`)},
		Call: func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
			_ = os.WriteFile(marker, args, 0o600)
			<-ctx.Done()
			return nil, ctx.Err()
		}}
	_ = srv.Serve(context.Background(), &mcp.StdioTransport{})
}

// TestKilledRunLeavesItsWriteOnRecord: a run killed with SIGKILL after a
// write was sent (the server got it) still shows that write in the audit
// log: its intent is recorded before it is sent.
func TestKilledRunLeavesItsWriteOnRecord(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "written")
	writeFile(t, filepath.Join(ws, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"crm": {"command": %q, "args": [%q, %q]}}}`, binary, hangServerArg, marker))
	writeFile(t, filepath.Join(ws, "prog.ts"), `import { callMCPTool } from "mcpcode:runtime";
await callMCPTool("crm", "deleteLead", { id: 42 });`)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "prog.ts")
	cmd.Dir = ws
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the server never got the write")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()

	res := runBinary(t, ws, time.Minute, "audit", "--since", "all", "--json")
	var recs []audit.Record
	for _, line := range strings.Split(strings.TrimSpace(res.stdout), "\n") {
		var r audit.Record
		if json.Unmarshal([]byte(line), &r) == nil {
			recs = append(recs, r)
		}
	}
	if res.code != 0 || len(recs) != 1 || len(recs[0].Calls) != 1 || recs[0].Calls[0].Server != "crm" || recs[0].Calls[0].Tool != "deleteLead" {
		t.Fatalf("audit after the kill: exit %d, %d records\n%s%s", res.code, len(recs), res.stdout, res.stderr)
	}
	if !recs[0].Incomplete || recs[0].Calls[0].Outcome != audit.OutcomeUnknown {
		t.Errorf("the killed run is not marked incomplete with the write's outcome unknown: %s", res.stdout)
	}
	table := runBinary(t, ws, time.Minute, "audit", "--since", "all")
	if !strings.Contains(table.stdout, "crm.deleteLead") || !strings.Contains(table.stdout, "incomplete") {
		t.Errorf("the audit table does not show the write:\n%s%s", table.stdout, table.stderr)
	}
}
