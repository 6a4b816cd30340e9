// Package runtime runs the programs that agents write against the generated
// TypeScript tree.
//
// Bundle turns a program (TypeScript or JavaScript) into one script with
// esbuild, behind a resolver that confines imports to the workspace's
// servers/ tree, approved skills and the virtual modules "mcpcode:runtime"
// and "mcpcode:fs", after a pre-check of every file's size and nesting;
// every approved skill the program reaches is bundled into a script of its
// own. Run executes a bundled Program in a fresh, sandboxed goja VM with a
// small event loop of its own, bridges callMCPTool to an mcptool.Caller,
// and enforces the run's Limits. Each call of a skill runs in a goja
// runtime (realm) of its own, on the same loop: a function from a JSON
// input (serialised by the host from a snapshot, and validated against the
// skill's schema) to a JSON result, whose tool calls and file writes are
// checked against its own grant (the tools it was approved for; write or
// not), so that nothing of one realm is reachable from another.
//
// Both work in the caller's process, which suits trusted programs
// (isolation "none"). Untrusted source goes to runtime/worker, which bundles
// and runs it in a separate process: what esbuild or goja cannot bound (a
// parse that takes many seconds, a Go stack overflow, a single huge
// allocation) then costs only that process, and the memory limit is the
// OS's.
//
// The package reaches MCP only through the mcptool.Caller interface; it
// never writes to the host's stdout or reads the environment.
//
// Its name is the design's ("runtime" runs programs) and shadows the
// standard library's package of that name: a file that needs both imports
// the standard one as goruntime (import goruntime "runtime"), so that a
// bare "runtime." in this module always means this package.
package runtime
