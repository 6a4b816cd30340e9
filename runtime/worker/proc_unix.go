//go:build unix

package worker

import "syscall"

// killedBySignal reports the signal that ended the process, if any.
func killedBySignal(state interface{ Sys() any }) (string, bool) {
	ws, ok := state.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		return "", false
	}
	return ws.Signal().String(), true
}
