package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// TestRunStartsExactlyOneWorker: `mcpcode run` in worker isolation has one
// worker process for its program (started as soon as the run's flags are
// read, and taken by the run), never a second one beside it; with
// isolation "none" it has none.
func TestRunStartsExactlyOneWorker(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("counts processes through /proc")
	}
	t.Parallel()
	ws := waitingWorkspace(t)
	for _, tc := range []struct {
		isolation string
		want      int
	}{{"worker", 1}, {"none", 0}} {
		t.Run(tc.isolation, func(t *testing.T) {
			t.Parallel()
			most := 0
			runWatching(t, ws, func(pid int) { most = max(most, len(workerPIDs(t, pid))) }, "run", "--isolation", tc.isolation, "wait.ts")
			if most != tc.want {
				t.Errorf("at most %d worker processes at once, want %d", most, tc.want)
			}
		})
	}
}

// waitingWorkspace is a workspace with no servers and wait.ts, a program
// that runs for 1.5 s and then prints "waited".
func waitingWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), `{"mcpServers":{}}`)
	writeFile(t, filepath.Join(ws, "wait.ts"), `await new Promise((r) => setTimeout(r, 1500)); console.log("waited");`)
	return ws
}

// runWatching runs mcpcode with args in ws to its end, calling watch with
// its process id every 20 ms meanwhile, and checks that the program ran.
func runWatching(t *testing.T, ws string, watch func(pid int), args ...string) {
	t.Helper()
	runWatchingWith(t, ws, nil, watch, args...)
}

// runWatchingWith is runWatching with extra open files given to mcpcode
// (fd 3 on).
func runWatchingWith(t *testing.T, ws string, extra []*os.File, watch func(pid int), args ...string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir = ws
	cmd.ExtraFiles = extra
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("mcpcode %s: %v\n%s", strings.Join(args, " "), err, out.String())
			}
			if !strings.Contains(out.String(), "waited") {
				t.Fatalf("output %q, want the program's", out.String())
			}
			return
		case <-time.After(20 * time.Millisecond):
			watch(cmd.Process.Pid)
		}
	}
}
