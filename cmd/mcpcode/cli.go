package main

import (
	"fmt"
	"io"
)

// Main runs the CLI with the given arguments (without the program name) and
// returns the process exit code.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "mcpcode: under construction")
	return 1
}
