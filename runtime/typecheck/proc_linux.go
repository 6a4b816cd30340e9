//go:build linux

package typecheck

import "syscall"

// setParentDeath makes the kernel kill the compiler when the thread that
// started it ends (in effect, when mcpcode dies): no compiler outlives it.
func setParentDeath(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
