//go:build !unix

package generator

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// read reads the file rel through root and compares it with want.
func (d *targetDir) read(root *os.Root, rel string, want []byte) (exists, regular, same bool, err error) {
	name := filepath.FromSlash(rel)
	info, err := root.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, false, nil
	}
	if err != nil {
		return false, false, false, err
	}
	if !info.Mode().IsRegular() {
		return true, false, false, nil
	}
	old, err := root.ReadFile(name)
	if err != nil {
		return false, false, false, err
	}
	return true, true, bytes.Equal(old, want), nil
}

// createStaged creates the new file name in the staging root and writes
// data: no temp file, no fsync (the staging directory is synced whole).
func createStaged(dir *stagingDir, name string, data []byte) error {
	return dir.root.WriteFile(name, data, 0o644)
}

func openStagingDir(sr *os.Root) (*stagingDir, error) {
	return &stagingDir{root: sr, fd: -1}, nil
}
