// Package pipesize enlarges the kernel buffer of a pipe that carries large
// messages (a tool result of megabytes from a server to mcpcode, and from
// mcpcode to a worker).
//
// A Linux pipe holds 64 KiB by default: a 5 MB result crosses it in some 80
// rounds of the writer filling it and the reader draining it, each a pair
// of context switches, which on two busy cores is most of the transfer's
// time. With 1 MiB it is a handful.
package pipesize

import "os"

// Large is the buffer size asked for: the system's default ceiling for an
// unprivileged process (/proc/sys/fs/pipe-max-size).
const Large = 1 << 20

// Grow asks for a Large buffer on the pipe f is an end of. It does nothing
// where that is not possible (not a pipe, not Linux, the user's pipe
// memory used up: the pipe keeps working with the buffer it has).
func Grow(f *os.File) {
	if f == nil {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { grow(fd) })
}
