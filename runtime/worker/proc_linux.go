//go:build linux

package worker

import "syscall"

// setParentDeathSignal makes the kernel kill the worker if the parent dies.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
