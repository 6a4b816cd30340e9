//go:build unix

// Package fileowner reads who owns a file, for the checks that refuse a
// file of another user (serve's signing secret, stored logins, the session
// directory): one reading of the platform's stat, not one per package.
package fileowner

import (
	"os"
	"syscall"
)

// Of returns the user id that owns the file fi describes, and whether it
// is known (it is not where files have no unix owner).
func Of(fi os.FileInfo) (uid uint32, known bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
