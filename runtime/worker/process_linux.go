//go:build linux

package worker

import (
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// setParentDeathSignal makes the kernel kill the worker when the thread
// that started it ends. Go's threads live as long as the process (the
// runtime ends only threads locked by a goroutine that exits, and the pool
// starts workers from unlocked goroutines), so in effect: when the parent
// dies.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// keepDescriptorsFromChildren marks every descriptor from 3 up
// close-on-exec: close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11),
// else each descriptor listed in /proc/self/fd. Go opens its own
// descriptors close-on-exec; this catches those inherited at exec.
func keepDescriptorsFromChildren() {
	if err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

// largePipe is the pipe buffer growPipe asks for: the system's default
// ceiling for an unprivileged process (/proc/sys/fs/pipe-max-size).
const largePipe = 1 << 20

// growPipe asks for a largePipe buffer on the pipe f is an end of: a Linux
// pipe holds 64 KiB by default, so a 5 MB tool result crosses it in some
// 80 rounds of the writer filling it and the reader draining it
// (BenchmarkPipeTransfer). It does nothing where that is not possible
// (the user's pipe memory used up: the pipe keeps the buffer it has).
func growPipe(f *os.File) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, largePipe) })
}

// pipeSize is the buffer size of the pipe f is an end of (for tests).
func pipeSize(f *os.File) int {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = rc.Control(func(fd uintptr) { n, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	return n
}
