//go:build linux

package workerstart

import (
	"os"
	"strconv"
	"syscall"
)

// keepDescriptorsFromChildren marks every descriptor from 3 up
// close-on-exec: close_range(2) with CLOSE_RANGE_CLOEXEC (Linux 5.11),
// else each descriptor listed in /proc/self/fd. Go opens its own
// descriptors close-on-exec; this catches those inherited at exec.
func keepDescriptorsFromChildren() {
	const sysCloseRange, closeRangeCloexec = 436, 4 // the same number on every Linux architecture
	if _, _, errno := syscall.Syscall(sysCloseRange, 3, ^uintptr(0), closeRangeCloexec); errno == 0 {
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
