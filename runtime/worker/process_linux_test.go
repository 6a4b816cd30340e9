//go:build linux

package worker

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// TestAdversarialWorkerInheritsOnlyStdio: a worker process must hold no
// descriptor of the parent but its three pipes. Go opens its own files
// close-on-exec, but a descriptor mcpcode itself inherited without
// close-on-exec (an agent host's socket, a shell's `3<secret`) is passed
// on by os.StartProcess to every child, where a program that escapes goja
// could read it. Here fd 57 of the parent is such a descriptor, open on a
// secret file, and the "worker" is cat reading /proc/self/fd/57.
func TestAdversarialWorkerInheritsOnlyStdio(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("HOST-SECRET-TOKEN"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(secret)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const inherited = 57
	// As mcpcode's own parent would have handed it over: no O_CLOEXEC.
	if err := syscall.Dup3(int(f.Fd()), inherited, 0); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(inherited)
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Fatal("cat, the stand-in worker of this test, is not installed")
	}
	out, errOut, _ := runProcess(t, cat, "/proc/self/fd/57")
	if strings.Contains(out, "HOST-SECRET-TOKEN") {
		t.Errorf("the worker process inherited the parent's fd %d and read %q through it; a worker should hold only fds 0, 1 and 2 (stderr: %q)", inherited, out, errOut)
	}
}

// TestWorkerProcessIsolated: a worker process has an empty environment
// (no host secrets), a process group of its own (killing the group ends
// what it started) and the kernel's SIGKILL when its parent dies.
func TestWorkerProcessIsolated(t *testing.T) {
	t.Setenv("MCPCODE_SECRET_TOKEN", "do-not-pass")
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("sh, the stand-in worker of this test, is not installed")
	}
	// /proc/PID/stat: pid (comm) state ppid pgrp ...
	p, err := startProcess(sh, []string{sh, "-c", `env; echo "pgid $(cut -d' ' -f5 /proc/$$/stat) pid $$"; exec cat`}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	p.stdin.Close()
	out, _ := io.ReadAll(p.stdout)
	p.stdout.Close()
	p.stderr.Close()
	state, _ := p.wait()
	if !state.Success() {
		t.Fatalf("worker: %v\n%s", state, out)
	}
	if strings.Contains(string(out), "do-not-pass") {
		t.Errorf("the worker's environment has the host's variables:\n%s", out)
	}
	if !strings.Contains(string(out), fmt.Sprintf("pgid %d pid %d", p.pid, p.pid)) {
		t.Errorf("the worker is not the leader of its own process group:\n%s", out)
	}
	if a := isolation(); a.Pdeathsig != syscall.SIGKILL || !a.Setpgid {
		t.Errorf("isolation() = %+v, want its own group and SIGKILL when the parent dies", a)
	}
}

// runProcess starts path with args as a worker process, closes its stdin
// and returns what it wrote.
func runProcess(t *testing.T, path string, args ...string) (stdout, stderr string, state *os.ProcessState) {
	t.Helper()
	p, err := startProcess(path, append([]string{path}, args...), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	p.stdin.Close()
	out, _ := io.ReadAll(p.stdout)
	errOut, _ := io.ReadAll(p.stderr)
	p.stdout.Close()
	p.stderr.Close()
	state, _ = p.wait()
	return string(out), string(errOut), state
}

// BenchmarkPipeTransfer times a 5.5 MB message (the size of the demo's
// 10,000-row result) written into a worker process's stdin until the
// process has read all of it, with the pipe's buffer at Linux's default
// (64 KiB, as startProcess leaves it) and at 1 MiB (the most an
// unprivileged process may ask for). The larger buffer once was set, to
// save rounds of the writer filling the pipe and the reader draining it;
// measured here it gains nothing (2.2-3.0 ms against 1.9-3.5 ms, load
// 15), so it is not. The process is dd reading into /dev/null in 64 KiB
// reads, started before the timer.
func BenchmarkPipeTransfer(b *testing.B) {
	dd, err := exec.LookPath("dd")
	if err != nil {
		b.Fatal("dd is not installed")
	}
	msg := []byte(strings.Repeat(`{"Status":"pending","amount":1234,"email":"customer@example.com"},`, 5_500_000/66))
	for _, size := range []int{64 << 10, 1 << 20} {
		mode := fmt.Sprintf("%dKiB-pipe", size>>10)
		b.Run(mode, func(b *testing.B) {
			b.SetBytes(int64(len(msg)))
			for b.Loop() {
				b.StopTimer()
				p, err := startProcess(dd, []string{dd, "of=/dev/null", "bs=64k"}, nil, "")
				if err != nil {
					b.Fatal(err)
				}
				rc, _ := p.stdin.SyscallConn()
				_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, size) })
				b.StartTimer()
				if _, err := p.stdin.Write(msg); err != nil {
					b.Fatal(err)
				}
				p.stdin.Close()
				_, _ = p.wait()
				b.StopTimer()
				p.stdout.Close()
				p.stderr.Close()
				b.StartTimer()
			}
		})
	}
}
