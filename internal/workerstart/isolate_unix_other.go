//go:build unix && !linux

package workerstart

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}
