package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// outRoot is the out dir, resolved once: the directory itself may be a
// symlink the user chose, but nothing below it is followed.
type outRoot struct{ dir string }

// openOutRoot creates the out dir when missing and resolves it.
func openOutRoot(outDir string) (outRoot, error) {
	abs, err := filepath.Abs(outDir)
	if err != nil {
		return outRoot{}, fmt.Errorf("out dir %s: %w", outDir, err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return outRoot{}, fmt.Errorf("create out dir: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return outRoot{}, fmt.Errorf("resolve out dir: %w", err)
	}
	return outRoot{real}, nil
}

// path returns the OS path of a slash-separated relative path after checking
// it is safe and that, cleaned, it stays inside the out dir.
func (r outRoot) path(rel string) (string, error) {
	if !safeRelPath(rel) {
		return "", fmt.Errorf("refusing unsafe path %q: it is not a plain relative path", rel)
	}
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if !strings.HasPrefix(filepath.Clean(p), r.dir+string(filepath.Separator)) {
		return "", fmt.Errorf("refusing path %q: it leads outside the out dir %s", rel, r.dir)
	}
	return p, nil
}

// checkParents verifies that every existing directory between the out dir
// and rel is a real directory, not a symlink (which could lead a write
// outside the out dir). Missing directories are fine.
func (r outRoot) checkParents(rel string) error {
	segs := strings.Split(rel, "/")
	p := r.dir
	for _, seg := range segs[:len(segs)-1] {
		p = filepath.Join(p, seg)
		info, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", p, err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("refusing to write %s: %s is a symlink; replace it with a directory or remove it", rel, p)
		}
		if !info.IsDir() {
			return fmt.Errorf("refusing to write %s: %s is not a directory; move it away", rel, p)
		}
	}
	return nil
}

// mkdirParents creates the missing directories of rel, one level at a time,
// refusing symlinks on the way.
func (r outRoot) mkdirParents(rel string) error {
	if err := r.checkParents(rel); err != nil {
		return err
	}
	segs := strings.Split(rel, "/")
	p := r.dir
	for _, seg := range segs[:len(segs)-1] {
		p = filepath.Join(p, seg)
		if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("create directory: %w", err)
		}
	}
	return r.checkParents(rel)
}
