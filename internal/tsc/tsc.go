// Package tsc locates and runs the pinned TypeScript compiler for tests.
//
// The compiler is installed by `make test` (npm ci in testdata/npm) under
// <module root>/testdata/npm/node_modules/.bin/tsc. A test that needs it
// fails, never skips, when it is missing (only `go test -short`, the fast
// tier, skips such tests).
package tsc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// timeout bounds one compiler run, so a hang fails the test instead of CI.
const timeout = 5 * time.Minute

// missingHint is how to get the compiler.
const missingHint = "run `make test` (it installs the pinned TypeScript with npm ci in testdata/npm)"

// ModuleRoot returns the directory holding go.mod, walking up from the
// working directory (a test's package directory).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find module root: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Path returns the path of the pinned tsc, or fails the test saying how to
// install it. Under `go test -short` (the fast tier, which installs no npm
// packages) the test is skipped with a message instead: `make test` runs it.
func Path(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("type-checks with the pinned tsc: runs in `make test`, not with -short")
	}
	root, err := ModuleRoot()
	if err != nil {
		t.Fatalf("tsc: %v; %s", err, missingHint)
	}
	path := filepath.Join(root, "testdata", "npm", "node_modules", ".bin", "tsc")
	info, err := os.Stat(path)
	if err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		t.Fatalf("tsc: the pinned TypeScript compiler is missing at %s: %s", path, missingHint)
	}
	return path
}

// Run runs the pinned tsc in dir with args and returns its combined output
// and the error of the run (non-nil when tsc reported errors).
func Run(t testing.TB, dir string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, Path(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return string(out), fmt.Errorf("tsc did not finish within %v: %w", timeout, ctx.Err())
	}
	return string(out), err
}

// Check runs the pinned tsc in dir with args and fails the test, showing
// the compiler's output, unless it succeeds.
func Check(t testing.TB, dir string, args ...string) {
	t.Helper()
	out, err := Run(t, dir, args...)
	if err != nil {
		t.Errorf("tsc %s in %s failed: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}
