//go:build linux

package workerstart

import "syscall"

// setParentDeathSignal makes the kernel kill the worker when the thread
// that started it ends. Go's threads live as long as the process (the
// runtime ends only threads locked by a goroutine that exits, and the pool
// and init start workers from unlocked goroutines or the main thread), so
// in effect: when the parent dies.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
