// Command mcpcode turns MCP servers into a typed TypeScript API on disk and
// runs the programs that agents write against it.
package main

import (
	"os"

	"github.com/mcpcode/mcpcode/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
