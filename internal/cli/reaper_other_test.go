//go:build !linux

package cli

import "fmt"

// reaperMain needs a child subreaper (Linux): elsewhere the tests that
// count what a command leaves behind cannot run, and say so.
func reaperMain([]string) int {
	fmt.Println("the reaper needs Linux (PR_SET_CHILD_SUBREAPER)")
	return 1
}
