package runtime

import "github.com/dop251/goja"

// Program is a bundled program, ready to run. It is JSON-serializable: it is
// sent to worker processes.
type Program struct {
	// Code is the wrapped script with an inline source map.
	Code string `json:"code"`
	// Entry is the program's display name (workspace-relative).
	Entry string `json:"entry"`
	// Calls are the tools the bundled code calls with literal server and tool
	// names, sorted and deduplicated.
	Calls []ToolRef `json:"calls"`
	// Dynamic lists, as "file:line", the call sites whose server or tool is
	// not a literal, and the places where the call function escapes (is
	// aliased or passed around): reviewers cannot verify those statically.
	Dynamic []string `json:"dynamic"`
	// Skills are the approved skills the program imports, sorted.
	Skills []string `json:"skills"`

	// compiled caches the compiled script for in-process runs; worker
	// processes compile Code themselves.
	compiled *goja.Program
}

// ToolRef names one tool a program calls, and in which scope: "" for the
// program's own code, or the name of the skill whose code makes the call.
type ToolRef struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Scope  string `json:"scope"`
}
