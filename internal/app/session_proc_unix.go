//go:build unix

package app

import (
	"fmt"
	"os"
	goruntime "runtime"
	"syscall"
)

// detached is how a session process starts: in a session of its own, so
// that the terminal's signals (Ctrl-C in the shell that started it) do not
// reach it; `mcpcode session stop` ends it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// processGone says whether process pid has ended (a zombie has, where
// /proc tells; elsewhere a signal 0 that fails says so).
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return goruntime.GOOS == "linux" // no /proc entry: gone; no /proc at all: alive, as the signal said
	}
	// pid (comm) state ...
	for i := len(stat) - 1; i > 0; i-- {
		if stat[i] == ')' && i+2 < len(stat) {
			return stat[i+2] == 'Z' || stat[i+2] == 'X'
		}
	}
	return false
}
