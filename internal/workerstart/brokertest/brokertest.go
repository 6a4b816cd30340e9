//go:build linux

// Package brokertest helps tests of mcpcode's broker (internal/workerstart):
// a runtime directory of their own, and the brokers in it found and stopped.
// Only tests import it.
package brokertest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Env returns env with the broker turned on (MCPCODE_WARM removed) and
// its directory under xdg (XDG_RUNTIME_DIR).
func Env(env []string, xdg string) []string {
	var out []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "MCPCODE_WARM=") && !strings.HasPrefix(kv, "XDG_RUNTIME_DIR=") {
			out = append(out, kv)
		}
	}
	return append(out, "XDG_RUNTIME_DIR="+xdg)
}

// NewXDG returns a runtime directory for one test, short (a socket's path
// is limited to 107 bytes), whose brokers are stopped, and checked to
// clean up after themselves, when the test ends.
func NewXDG(t testing.TB) string {
	t.Helper()
	xdg, err := os.MkdirTemp("", "xdg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		Stop(t, xdg)
		os.RemoveAll(xdg)
	})
	return xdg
}

// Sockets lists the brokers' sockets under xdg.
func Sockets(xdg string) []string {
	s, _ := filepath.Glob(filepath.Join(xdg, "mcpcode", "broker-*.sock"))
	return s
}

// WaitSockets waits until n brokers listen under xdg, and returns their
// sockets.
func WaitSockets(t testing.TB, xdg string, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s := Sockets(xdg); len(s) >= n {
			return s
		}
	}
	t.Fatalf("sockets under %s: %q, want %d", xdg, Sockets(xdg), n)
	return nil
}

// Pid is the pid of the process listening on the socket at path.
func Pid(t testing.TB, path string) int {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatalf("connecting to the broker: %v", err)
	}
	cred, err := syscall.GetsockoptUcred(fd, syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	if err != nil {
		t.Fatal(err)
	}
	return int(cred.Pid)
}

// Children lists the child processes of pid.
func Children(pid int) []int {
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, task := range tasks {
		data, _ := os.ReadFile(task)
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// Alive says whether process pid exists.
func Alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// Stop ends the brokers under xdg (SIGTERM) and fails the test unless each
// removes its socket and lock.
func Stop(t testing.TB, xdg string) {
	for _, s := range Sockets(xdg) {
		pid := Pid(t, s)
		syscall.Kill(pid, syscall.SIGTERM)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			_, errSock := os.Lstat(s)
			_, errLock := os.Lstat(s + ".lock")
			if errors.Is(errSock, os.ErrNotExist) && errors.Is(errLock, os.ErrNotExist) {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("the broker %d did not remove its socket and lock on SIGTERM", pid)
				syscall.Kill(pid, syscall.SIGKILL)
				break
			}
		}
	}
}

// Command is exec.Command for a run that may use a broker: when this
// process has CAP_SYS_ADMIN (root), which keeps runs from using one, the
// command runs with it dropped from its bounding set (util-linux setpriv),
// as a run of an unprivileged user would.
func Command(name string, args ...string) *exec.Cmd {
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:\t"); ok {
			if caps, err := strconv.ParseUint(v, 16, 64); err == nil && caps&(1<<21) != 0 {
				return exec.Command("setpriv", append([]string{"--bounding-set", "-sys_admin", name}, args...)...)
			}
		}
	}
	return exec.Command(name, args...)
}
