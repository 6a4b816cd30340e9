//go:build !unix

package privacy

import "os"

// lockDir only creates dir where file locks are not available: the
// in-process lock still orders the runs of one mcpcode.
func lockDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return func() {}, nil
}
