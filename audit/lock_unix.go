//go:build unix

package audit

import (
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f for one append.
func lockFile(f *os.File) func() {
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
		return func() {}
	}
	return func() { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
}
