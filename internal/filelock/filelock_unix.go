//go:build unix

package filelock

import (
	"os"
	"syscall"
)

// Supported says whether Lock takes a lock on this system.
const Supported = true

func tryLock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) }
func lock(f *os.File) error    { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }
func unlock(f *os.File) error  { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
