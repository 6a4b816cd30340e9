//go:build !unix

package main

import "io"

// lockFile does not lock where flock does not exist.
func lockFile(string, io.Writer) (func(), error) { return func() {}, nil }
