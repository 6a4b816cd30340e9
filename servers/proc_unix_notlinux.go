//go:build unix && !linux

package servers

import "syscall"

// setParentDeathSignal does nothing here: only Linux has a parent-death
// signal (proc_linux.go).
func setParentDeathSignal(*syscall.SysProcAttr) {}
