//go:build unix && !linux

package typecheck

import "syscall"

// setParentDeath does nothing here: the platform has no parent-death
// signal.
func setParentDeath(*syscall.SysProcAttr) {}
