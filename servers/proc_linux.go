//go:build linux

package servers

import "syscall"

// setParentDeathSignal makes the kernel send the server SIGTERM when the
// thread that started it ends. Go's threads live as long as the process
// (the runtime ends only threads locked by a goroutine that exits, and the
// pool starts servers from unlocked goroutines), so in effect: when this
// process dies, as a workspace session killed with SIGKILL. SIGTERM, not
// SIGKILL: the server may still save what it holds.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGTERM }
