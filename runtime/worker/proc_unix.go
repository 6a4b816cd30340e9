//go:build unix

package worker

import (
	"os"
	"syscall"
)

// killProcessGroup kills the worker's process group.
func killProcessGroup(p *os.Process) {
	_ = syscall.Kill(-p.Pid, syscall.SIGKILL)
	_ = p.Kill()
}

// killedBySignal reports the signal that ended the process, if any.
func killedBySignal(state interface{ Sys() any }) (string, bool) {
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	return ws.Signal().String(), true
}
