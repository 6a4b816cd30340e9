package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/workerstart"
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
					most = max(most, workerChildren(t, cmd.Process.Pid))
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

// workerChildren counts the processes whose parent is pid and whose
// command is this binary's worker command.
func workerChildren(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err1 := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, err2 := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err1 != nil || err2 != nil {
			continue // gone meanwhile
		}
		args := strings.Split(strings.TrimSuffix(string(cmdline), "\x00"), "\x00")
		// stat: pid (comm) state ppid ...; comm may hold spaces.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(args) == 2 && args[1] == workerstart.Arg && len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			n++
		}
	}
	return n
}
