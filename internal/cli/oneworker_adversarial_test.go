package cli

import (
	"bytes"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/runtime/worker"
)

// TestAdversarialIsolationNoneStartsNoWorker: `mcpcode run` that runs its
// program in-process (--isolation none) must have no worker process, even
// when "--" is the value of a string flag (--record here), after which
// --isolation none is still a flag. A worker started for it would serve
// nothing, but live, a second process of the binary, for the whole run.
func TestAdversarialIsolationNoneStartsNoWorker(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("counts processes through /proc")
	}
	t.Parallel()
	ws := waitingWorkspace(t)
	most := 0
	runWatching(t, ws, func(pid int) { most = max(most, len(workerPIDs(t, pid))) }, "run", "--record", "--", "--isolation", "none", "wait.ts")
	if most != 0 {
		t.Errorf("a run with --isolation none had %d worker process(es) beside it, want none", most)
	}
}

// workerPIDs returns the processes whose parent is pid and whose command
// is this binary's worker command.
func workerPIDs(t *testing.T, pid int) []string {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
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
		if len(args) == 2 && args[1] == worker.Arg && len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// TestAdversarialWorkerHoldsNoInheritedFD: the worker process of a real
// `mcpcode run` holds only its
// three pipes. Here mcpcode is started with a secret file open as fd 3
// (as an agent host or a shell's `3<file` would leave it, without
// close-on-exec); the worker must not have it.
func TestAdversarialWorkerHoldsNoInheritedFD(t *testing.T) {
	if goruntime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	t.Parallel()
	ws := waitingWorkspace(t)
	secret := filepath.Join(t.TempDir(), "host-secret")
	writeFile(t, secret, "HOST-SECRET")
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var leaked []string
	runWatchingWith(t, ws, []*os.File{f}, func(pid int) { // the secret is mcpcode's fd 3
		for _, worker := range workerPIDs(t, pid) {
			ents, _ := os.ReadDir(filepath.Join("/proc", worker, "fd"))
			for _, e := range ents {
				if n, _ := strconv.Atoi(e.Name()); n > 2 {
					if target, err := os.Readlink(filepath.Join("/proc", worker, "fd", e.Name())); err == nil && target == secret {
						leaked = append(leaked, "worker "+worker+" fd "+e.Name()+" -> "+target)
					}
				}
			}
		}
	}, "run", "wait.ts")
	if len(leaked) > 0 {
		t.Errorf("the worker process holds a descriptor mcpcode inherited: %q", leaked[0])
	}
}
