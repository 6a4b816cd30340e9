//go:build unix

package servers

import (
	"os"
	"syscall"
)

// effectiveUID is the user token files must belong to (a variable so that
// a test can pose as another user).
var effectiveUID = os.Geteuid

// ownerOf returns the user id that owns a file, and whether it is known.
func ownerOf(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
