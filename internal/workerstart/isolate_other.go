//go:build !unix

package workerstart

import "syscall"

func isolation() *syscall.SysProcAttr { return nil }

// killGroup does nothing here: child.killGroup kills the process itself.
func killGroup(int) {}
