//go:build !unix

package audit

import "os"

// lockFile does nothing where file locks are not available: appends are
// single writes.
func lockFile(*os.File) func() { return func() {} }
