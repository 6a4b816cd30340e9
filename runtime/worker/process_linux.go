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
