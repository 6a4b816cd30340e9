//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// stubbornSalesforce makes the workspace's salesforce server outlive its
// stdin's end: the demo server under a shell that then sleeps for ten
// minutes, as a server that does not exit when its client is gone. It
// returns mcp.json as written, for a test to edit further.
func stubbornSalesforce(t *testing.T, ws string) map[string]map[string]map[string]any {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ws, "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]map[string]map[string]any
	if err := json.Unmarshal(raw, &cfg); err != nil {
		t.Fatal(err)
	}
	cfg["mcpServers"]["salesforce"]["command"] = "sh"
	cfg["mcpServers"]["salesforce"]["args"] = []string{"-c", `"$0" demo-server salesforce; exec sleep 600`, binary}
	wrapped, _ := json.Marshal(cfg)
	writeFile(t, filepath.Join(ws, "mcp.json"), string(wrapped))
	return cfg
}

// TestKilledSessionLeavesNoServer: a session killed with SIGKILL (no
// chance to stop its servers) leaves none of them behind, even one that
// does not exit when its stdin ends; its socket, left behind, is no
// obstacle: the next run works without it and without a word, and a new
// session starts and stops.
func TestKilledSessionLeavesNoServer(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := sessionWorkspace(t)
	stubbornSalesforce(t, ws)
	r := startReaper(t, ws, "session", "start", "--idle", "0")
	runOK(t, ws, "run", "set.ts")
	st := sessionStatusJSON(t, ws)
	if len(st.Servers) != 1 || st.Servers[0].Pid == 0 {
		t.Fatalf("the session holds %+v, want salesforce running", st.Servers)
	}
	if err := syscall.Kill(st.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitGone(t, st.Pid)
	if left := r.left(); left != "none" {
		t.Errorf("left after the session was killed: %s", left)
	}
	if _, err := os.Lstat(filepath.Join(ws, ".mcpcode", "session", "sock")); err != nil {
		t.Fatalf("the killed session's socket: %v (this test is about one left behind)", err)
	}
	res := runOK(t, ws, "run", "get.ts")
	if !strings.Contains(res.stdout, "description:") || strings.Contains(res.stdout, "set by run 1") || res.stderr != "" {
		t.Errorf("a run after the session was killed: stdout %q stderr %q, want a fresh server's answer and no warning", res.stdout, res.stderr)
	}
	r2 := startReaper(t, ws, "session", "start", "--idle", "0")
	runOK(t, ws, "session", "stop")
	if left := r2.left(); left != "none" {
		t.Errorf("left after a new session was stopped: %s", left)
	}
}
