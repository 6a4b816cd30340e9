package cli

import (
	"bytes"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"
)

// TestRunStartsExactlyOneWorker: `mcpcode run` in worker isolation has one
// worker process for its program (started as the binary initializes, and
// taken by the run), never a second one beside it; with isolation "none"
// it has none.
func TestRunStartsExactlyOneWorker(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("counts processes through /proc")
	}
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), `{"mcpServers":{}}`)
	writeFile(t, filepath.Join(ws, "wait.ts"), `await new Promise((r) => setTimeout(r, 1500)); console.log("waited");`)
	for _, tc := range []struct {
		isolation string
		want      int
	}{{"worker", 1}, {"none", 0}} {
		t.Run(tc.isolation, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(binary, "run", "--isolation", tc.isolation, "wait.ts")
			cmd.Dir = ws
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			most := 0
			for watching := true; watching; {
				select {
				case err := <-done:
					if err != nil {
						t.Fatalf("mcpcode run: %v\n%s", err, out.String())
					}
					watching = false
				case <-time.After(20 * time.Millisecond):
					most = max(most, len(workerPIDs(t, cmd.Process.Pid)))
				}
			}
			if !strings.Contains(out.String(), "waited") {
				t.Fatalf("output %q, want the program's", out.String())
			}
			if most != tc.want {
				t.Errorf("at most %d worker processes at once, want %d", most, tc.want)
			}
		})
	}
}
