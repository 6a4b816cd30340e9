//go:build unix && !linux

package runtime

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}
