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
	// aliased, passed around or put in an object): reviewers cannot verify
	// those statically. Where the syntax tree was too deep to analyze, an
	// entry "analysis incomplete: nesting too deep at file:line" says that
	// calls there could be neither listed nor flagged.
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
