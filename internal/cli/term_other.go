//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package cli

import "os"

// isTerminal is false where mcpcode cannot tell: servers' questions are
// then declined.
func isTerminal(*os.File) bool { return false }
