package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// openOutRoot creates the out dir when missing and opens it as an os.Root.
// Every later read, write, rename and remove goes through the root, so the
// kernel refuses a path that leads outside the out dir, even through a
// symlink swapped in after a check. The out dir itself may be a symlink the
// user chose.
func openOutRoot(outDir string) (*os.Root, error) {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("create out dir: %w", err)
	}
	root, err := os.OpenRoot(outDir)
	if err != nil {
		return nil, fmt.Errorf("open out dir: %w", err)
	}
	return root, nil
}

// shown is how messages name rel: the out dir joined with it.
func shown(root *os.Root, rel string) string {
	return filepath.Join(root.Name(), filepath.FromSlash(rel))
}

// checkParents verifies that every existing directory between the out dir
// and rel is a real directory, not a symlink: gen refuses to write through
// one, with a message saying what to do. It is a courtesy check; safety
// comes from the root, which refuses any escape whatever happens after it.
// Missing directories are fine.
func checkParents(root *os.Root, rel string) error {
	var dirs []string
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		info, err := root.Lstat(filepath.FromSlash(dirs[i]))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("check %s: %w", shown(root, dirs[i]), err)
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("refusing to write %s: %s is a symlink; replace it with a directory or remove it", rel, shown(root, dirs[i]))
		}
		if !info.IsDir() {
			return fmt.Errorf("refusing to write %s: %s is not a directory; move it away", rel, shown(root, dirs[i]))
		}
	}
	return nil
}

// depth is the number of slash-separated segments of rel.
func depth(rel string) int { return strings.Count(rel, "/") + 1 }
