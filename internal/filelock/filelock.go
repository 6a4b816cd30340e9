// Package filelock takes exclusive advisory locks on files (flock(2)), so
// that mcpcode processes sharing a workspace or a user's config directory
// do not interleave their writes. Where flock does not exist, no lock is
// taken (Supported is false).
package filelock

import (
	"fmt"
	"os"
)

// Lock takes an exclusive lock on the open file f, waiting for another
// process that holds one; onWait, when not nil, is called first when it
// must wait. The returned function releases the lock (closing f releases
// it too).
func Lock(f *os.File, onWait func()) (release func(), err error) {
	if !Supported {
		return func() {}, nil
	}
	if tryLock(f) != nil {
		if onWait != nil {
			onWait()
		}
		if err := lock(f); err != nil {
			return nil, fmt.Errorf("locking %s: %w", f.Name(), err)
		}
	}
	return func() { _ = unlock(f) }, nil
}

// LockPath opens path (created with perm if needed; its directory must
// exist) and locks it as Lock does. The returned function releases the
// lock and closes the file.
func LockPath(path string, perm os.FileMode, onWait func()) (release func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, perm)
	if err != nil {
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	if _, err := Lock(f, onWait); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}

// TryLockPath is LockPath without waiting: ok is false, and nothing is
// held, when another process holds the lock.
func TryLockPath(path string, perm os.FileMode) (release func(), ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, perm)
	if err != nil {
		return nil, false, fmt.Errorf("locking %s: %w", path, err)
	}
	if Supported && tryLock(f) != nil {
		f.Close()
		return nil, false, nil
	}
	return func() { f.Close() }, true, nil
}
