//go:build !unix

package worker

import "syscall"

func isolation() *syscall.SysProcAttr { return nil }

// killGroup does nothing here: process.killGroup kills the process itself.
func killGroup(int) {}
