//go:build linux

package generator

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncStaged makes the files in the staging directories durable before
// they are renamed into place: one syncfs(2) of their file system instead
// of an fsync per file.
func syncStaged(root *os.Root, dirs []string) error {
	if len(dirs) == 0 {
		return nil
	}
	f, err := root.Open(dirs[0])
	if err != nil {
		return fmt.Errorf("sync the staged files: %w", err)
	}
	defer f.Close()
	if err := unix.Syncfs(int(f.Fd())); err != nil {
		return fmt.Errorf("sync the staged files: %w", err)
	}
	return nil
}
