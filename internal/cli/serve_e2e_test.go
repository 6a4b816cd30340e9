package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
)

// TestServeWithTheOfficialSDKClient drives `mcpcode serve` over stdio with
// the official TypeScript SDK's client: initialize, search, read a tool
// file, execute a program that calls demo tools (its write confirmed by
// elicitation), propose a skill, approve it with the CLI, see
// tools/list_changed, and call the skill as a tool.
func TestServeWithTheOfficialSDKClient(t *testing.T) {
	e2e(t)
	t.Parallel()
	npm := npmPackageDir(t, "@modelcontextprotocol/sdk")
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(binary)))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join("testdata", "serve-client.mjs"), binary, ws)
	cmd.Env = append(os.Environ(), "NPM_DIR="+filepath.Dir(filepath.Dir(filepath.Dir(npm))))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		lines = append(lines, line)
		if line == "PROPOSED" {
			// A person reviews and approves the proposal with the CLI.
			approveSkill(t, ws, "count-orders")
			stdin.Write([]byte("approved\n"))
		}
	}
	err = cmd.Wait()
	out := strings.Join(lines, "\n")
	if err != nil {
		t.Fatalf("the SDK client failed: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	for _, want := range []string{"ok initialize mcpcode", "ok tools execute,propose_skill,read,search_tools", "ok search google-drive.getSheet",
		"ok read servers/google-drive/getSheet.ts", "ok execute: 10000 rows in, 5 out, write confirmed by a plain accept", "ok list_changed", "ok skill count-orders:"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
