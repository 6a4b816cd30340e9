//go:build unix

package app

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockFile takes an exclusive lock on path (created if needed), waiting for
// another mcpcode that holds it (after telling onWait), and returns the
// function that releases it. gen holds it while it writes, so that two gens
// (say a --watch and a manual one) never interleave their writes.
func lockFile(path string, onWait func(string)) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		if onWait != nil {
			onWait(path)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
	}
	return func() { f.Close() }, nil
}
