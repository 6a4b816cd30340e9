//go:build linux

package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// reaperMain runs args as a child of a child subreaper: every process the
// child leaves behind (a background process, a worker or server not yet
// gone) becomes this process's child instead of init's. It prints "exit N"
// when the child ends, then waits for its stdin to close (the test's other
// commands meanwhile) and prints "left: none", or "left: " and the
// command lines of the processes still alive 30 s later (zombies are
// reaped meanwhile: a process that ends is gone).
func reaperMain(args []string) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fmt.Println("prctl:", err)
		return 1
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, reaperEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	code := 0
	if err := cmd.Run(); err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	fmt.Printf("exit %d\n", code)
	_, _ = io.Copy(io.Discard, os.Stdin)
	var left []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
		left = childrenOf(os.Getpid())
		if len(left) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(left) == 0 {
		fmt.Println("left: none")
	} else {
		fmt.Println("left: " + strings.Join(left, "; "))
	}
	return 0
}

// childrenOf lists the live (not zombie) children of pid by command line.
func childrenOf(pid int) []string {
	entries, _ := os.ReadDir("/proc")
	var out []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 || fields[1] != strconv.Itoa(pid) || fields[0] == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, e.Name()+" "+strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
	}
	return out
}

// reaper is a running reaperMain.
type reaper struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	cancel context.CancelFunc
}

// startReaper runs mcpcode with args in dir under a reaper and waits until
// that command ended, failing the test unless it exited 0.
func startReaper(t *testing.T, dir string, args ...string) *reaper {
	t.Helper()
	return startReaperExe(t, dir, binary, args...)
}

// startReaperExe is startReaper with the mcpcode binary exe.
func startReaperExe(t *testing.T, dir, exe string, args ...string) *reaper {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	cmd := exec.CommandContext(ctx, binary, append([]string{exe}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), reaperEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &reaper{t: t, cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout), cancel: cancel}
	t.Cleanup(func() {
		stdin.Close()
		cancel()
		_ = cmd.Wait()
	})
	line, err := r.out.ReadString('\n')
	if line != "exit 0\n" {
		t.Fatalf("mcpcode %s under the reaper: %q %v\n%s", strings.Join(args, " "), line, err, stderr.String())
	}
	return r
}

// left ends the reaper's wait and returns what it says is left ("none").
func (r *reaper) left() string {
	r.t.Helper()
	r.stdin.Close()
	line, err := r.out.ReadString('\n')
	if err != nil && line == "" {
		r.t.Fatalf("the reaper said nothing: %v", err)
	}
	return strings.TrimPrefix(strings.TrimSpace(line), "left: ")
}
