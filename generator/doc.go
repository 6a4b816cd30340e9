// Package generator turns the tool catalogs of MCP servers into the typed
// TypeScript tree that agents browse: servers/<server>/<tool>.ts, one index.ts
// per server, and root README.md, mcpcode.d.ts and tsconfig.json.
//
// The package is a pure core plus one writer. [Generate] takes raw tools/list
// JSON (untrusted: names, descriptions and schemas may be hostile) and returns
// the files, warnings and a [Manifest] as data; it never panics on bad input
// and bounds its work. [Write] is the only I/O: it applies a [Plan] to an out
// directory atomically and idempotently, never touching files it does not own
// and never writing outside the out directory.
package generator
