//go:build unix && !linux

package typecheck

import "syscall"

// setParentDeath does nothing here: the platform has no parent-death
// signal.
func setParentDeath(*syscall.SysProcAttr) {}

// limitMemory does nothing here: the platform cannot limit another
// process's memory; the compiler's time is still limited.
func limitMemory(int, int64) error { return nil }
