//go:build !unix

package app

// lockFile does not lock where flock does not exist.
func lockFile(string, func(string)) (func(), error) { return func() {}, nil }
