//go:build unix

package worker

import "syscall"

// isolation puts the worker in its own process group, so that killing the
// group ends anything it started.
func isolation() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(a)
	return a
}

// killGroup sends the process group pgid SIGKILL.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
