//go:build !unix

package typecheck

import "os/exec"

// ownProcessGroup does nothing here: the compiler is killed on its own.
func ownProcessGroup(*exec.Cmd) {}

// limitMemory does nothing here: the platform cannot limit another
// process's memory; the compiler's time is still limited.
func limitMemory(int, int64) error { return nil }
