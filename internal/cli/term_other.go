//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package cli

import "os"

// isTerminal is false where mcpcode cannot tell: servers' questions are
// then declined.
func isTerminal(*os.File) bool { return false }

// terminalWidth is 0: unknown.
func terminalWidth(*os.File) int { return 0 }
