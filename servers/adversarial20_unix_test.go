//go:build unix

package servers

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Attacks of a hostile stdio server on the opening (issue 20) that need
// real processes: restarts and leftovers.

// startsIn reads the pids the era server's processes wrote.
func startsIn(t *testing.T, file string) []int {
	t.Helper()
	data, _ := os.ReadFile(file)
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(f)
		if err != nil {
			t.Fatal(err)
		}
		pids = append(pids, pid)
	}
	return pids
}

// TestAdversarialServerExitingAlwaysIsStartedTwicePerConnect: a server
// that exits on server/discover and again on initialize is started again
// once (the legacy opening), not in a loop: each connect starts it twice
// and fails saying where it exited.
func TestAdversarialServerExitingAlwaysIsStartedTwicePerConnect(t *testing.T) {
	t.Parallel()
	starts := filepath.Join(t.TempDir(), "starts")
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "exit-always", "exit-always", map[string]string{"MCPCODE_TEST_STARTS": starts})}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second})
	defer p.Close()
	for i := 1; i <= 2; i++ {
		_, err := p.Connect(context.Background(), "exit-always")
		if err == nil || !strings.Contains(err.Error(), "exited with status 1 before answering initialize") {
			t.Errorf("connect %d: %v", i, err)
		}
		if n := len(startsIn(t, starts)); n != 2*i {
			t.Errorf("after %d connects the server was started %d times, want %d", i, n, 2*i)
		}
	}
}

// TestAdversarialLateDiscoverLeavesOneProcess: a server that answers
// server/discover only after mcpcode fell back to initialize (and refuses
// initialize) is connected again; the first process is stopped before the
// second starts, so one process serves the one session.
func TestAdversarialLateDiscoverLeavesOneProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	starts := filepath.Join(dir, "starts")
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "late-modern", "late-modern",
		map[string]string{"MCPCODE_TEST_STATE": filepath.Join(dir, "state"), "MCPCODE_TEST_STARTS": starts})}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second})
	defer p.Close()
	l, err := p.Connect(context.Background(), "late-modern")
	if err != nil {
		t.Fatal(err)
	}
	if l.ProtocolVersion != modernProtocolVersion {
		t.Errorf("connected at %s", l.ProtocolVersion)
	}
	pids := startsIn(t, starts)
	if len(pids) != 2 {
		t.Fatalf("started %d times, want twice: %v", len(pids), pids)
	}
	if err := syscall.Kill(pids[0], 0); err == nil {
		t.Errorf("the first process (%d) still runs beside the second", pids[0])
	}
	if err := syscall.Kill(pids[1], 0); err != nil {
		t.Errorf("the serving process (%d): %v", pids[1], err)
	}
	p.Close()
	if err := syscall.Kill(pids[1], 0); err == nil {
		t.Errorf("the serving process (%d) outlived the pool", pids[1])
	}
}
