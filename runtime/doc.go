// Package runtime runs the programs that agents write against the generated
// TypeScript tree.
//
// Bundle turns a program (TypeScript or JavaScript) into one script with
// esbuild, behind a resolver that confines imports to the workspace's
// servers/ and approved skills/ trees and the virtual modules
// "mcpcode:runtime" and "mcpcode:fs" (both bound to the importing code's
// scope: a skill without a write grant can neither call tools that are not
// read-only nor change workspace files), and a pre-check of every file
// that bounds the size, nesting and cost of what esbuild is given. Run
// executes a bundled Program in a
// fresh, sandboxed goja VM with a small event loop of its own, bridges
// callMCPTool to a mcptool.Caller, and enforces the run's Limits. WorkerPool runs
// each program in a separate process so that the memory limit holds even
// against a single huge allocation.
//
// The package reaches MCP only through the ToolCaller interface; it never
// writes to the host's stdout or reads the environment.
package runtime
