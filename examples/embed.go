// Package examples holds the ready demo workspace (examples/demo): its
// mcp.json, the generated tree, the agent programs and the approved skill.
// The programs are embedded so that `mcpcode demo` can write them into a
// fresh workspace from any directory.
package examples

import "embed"

// DemoPrograms holds examples/demo/programs: the article's scenarios as
// agent programs, and the program proposed as the demo skill.
//
//go:embed demo/programs/*.ts demo/programs/*.json
var DemoPrograms embed.FS
