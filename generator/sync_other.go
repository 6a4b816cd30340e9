//go:build !linux

package generator

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// syncStaged makes the files in the staging directories durable before
// they are renamed into place: an fsync of each (syncfs(2) is Linux's).
func syncStaged(root *os.Root, dirs []string) error {
	for _, dir := range dirs {
		err := fs.WalkDir(root.FS(), filepath.ToSlash(dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			f, err := root.OpenFile(filepath.FromSlash(p), os.O_RDWR, 0)
			if err != nil {
				return err
			}
			err = f.Sync()
			f.Close()
			return err
		})
		if err != nil {
			return fmt.Errorf("sync the staged files: %w", err)
		}
	}
	return nil
}
