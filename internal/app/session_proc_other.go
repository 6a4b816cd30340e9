//go:build !unix

package app

import (
	"os"
	"syscall"
)

// detached: the session process starts as any child; `mcpcode session
// stop` ends it.
func detached() *syscall.SysProcAttr { return nil }

// processGone says whether process pid has ended: it can no longer be
// found.
func processGone(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return true
	}
	_ = p.Release()
	return false
}
