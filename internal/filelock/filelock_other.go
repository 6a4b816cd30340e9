//go:build !unix

package filelock

import "os"

// Supported says whether Lock takes a lock on this system.
const Supported = false

func tryLock(*os.File) error { return nil }
func lock(*os.File) error    { return nil }
func unlock(*os.File) error  { return nil }
