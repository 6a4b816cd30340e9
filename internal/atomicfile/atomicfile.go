// Package atomicfile writes files so that readers see the old content or
// the new one, never a part: data goes to a temporary file in the same
// directory, is synced, and is renamed over the target.
package atomicfile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, creating parent directories as needed.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	name := tmp.Name()
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if err := fill(tmp, data, perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	ok = true
	return nil
}

// WriteRoot is [Write] for name inside root: the parent directories, the
// temporary file and the rename all go through root, so no step can leave
// it, not even through a symlink swapped in while the write runs (the
// operation fails instead). Symlinks that stay inside root are followed.
func WriteRoot(root *os.Root, name string, data []byte, perm os.FileMode) error {
	shown := filepath.Join(root.Name(), name)
	dir := filepath.Dir(name)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Join(root.Name(), dir), err)
	}
	tmp, tmpName, err := createTemp(root, dir, "."+filepath.Base(name)+".tmp-")
	if err != nil {
		return fmt.Errorf("writing %s: %w", shown, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			root.Remove(tmpName)
		}
	}()
	if err := fill(tmp, data, perm); err != nil {
		return fmt.Errorf("writing %s: %w", shown, err)
	}
	if err := root.Rename(tmpName, name); err != nil {
		return fmt.Errorf("writing %s: %w", shown, err)
	}
	ok = true
	return nil
}

// createTemp creates a new file dir/prefix<random> inside root, like
// os.CreateTemp (which has no Root variant).
func createTemp(root *os.Root, dir, prefix string) (*os.File, string, error) {
	for range 10 {
		name := filepath.Join(dir, prefix+rand.Text())
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("could not pick an unused temporary file name")
}

// fill writes data to f, sets perm, syncs and closes it.
func fill(f *os.File, data []byte, perm os.FileMode) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	return f.Close()
}
