//go:build !unix

package workerstart

import "syscall"

func isolation() *syscall.SysProcAttr { return nil }
