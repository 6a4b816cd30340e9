//go:build linux

package typecheck

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// setParentDeath makes the kernel kill the compiler when the thread that
// started it ends (in effect, when mcpcode dies): no compiler outlives it.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// limitMemory limits the data (heap) of the started process pid to bytes:
// an allocation past it fails in the compiler, which then ends. Its
// children (a launcher's) inherit the limit.
func limitMemory(pid int, bytes int64) error {
	rl := unix.Rlimit{Cur: uint64(bytes), Max: uint64(bytes)}
	if err := unix.Prlimit(pid, unix.RLIMIT_DATA, &rl, nil); err != nil && !errors.Is(err, unix.ESRCH) {
		return err // ESRCH: it already ended
	}
	return nil
}
