package runtime

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/evanw/esbuild/pkg/api"
)

// loaderFor picks esbuild's loader by file extension (TypeScript when the
// name has no code extension, e.g. "stdin").
func loaderFor(rel string) api.Loader {
	switch path.Ext(rel) {
	case ".js", ".mjs":
		return api.LoaderJS
	case ".jsx":
		return api.LoaderJSX
	case ".tsx":
		return api.LoaderTSX
	}
	return api.LoaderTS
}

// workspaceRoot returns the workspace's real absolute path.
func workspaceRoot(ws string) (string, error) {
	if ws == "" {
		return "", errors.New("no workspace given: set BundleOptions.Workspace to the workspace root")
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", ws, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", ws, unwrapPathError(err))
	}
	fi, err := os.Stat(real)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory", ws)
	}
	return real, nil
}

// entryPath returns the program's workspace-relative path.
func entryPath(ws string, opts BundleOptions) (string, error) {
	if opts.Source != nil {
		name := opts.Entry
		if name == "" {
			return "stdin.ts", nil
		}
		if filepath.IsAbs(name) {
			if rel, err := filepath.Rel(ws, name); err == nil && filepath.IsLocal(rel) {
				return filepath.ToSlash(rel), nil
			}
			return filepath.Base(name), nil
		}
		if filepath.IsLocal(name) {
			return filepath.ToSlash(filepath.Clean(name)), nil
		}
		return filepath.Base(name), nil
	}
	if opts.Entry == "" {
		return "", errors.New("no program given: set BundleOptions.Entry (or Source)")
	}
	abs, err := filepath.Abs(opts.Entry)
	if err != nil {
		return "", fmt.Errorf("program %s: %w", opts.Entry, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("program %s: %v", opts.Entry, unwrapPathError(err))
	}
	rel, err := filepath.Rel(ws, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("program %s is outside the workspace %s: programs run from inside their workspace", opts.Entry, ws)
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("program %s is not a regular file", opts.Entry)
	}
	return filepath.ToSlash(rel), nil
}

// unwrapPathError drops the path from an *fs.PathError (the caller names
// the file in its own terms, without host paths).
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
