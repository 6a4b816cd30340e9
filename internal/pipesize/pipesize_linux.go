//go:build linux

package pipesize

import "golang.org/x/sys/unix"

func grow(fd uintptr) {
	_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, Large)
}

// size is the buffer size of the pipe fd is an end of (for tests).
func size(fd uintptr) int {
	n, _ := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
	return n
}
