package runtime

import (
	"encoding/json"
	"time"

	"github.com/dop251/goja"
	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// This file holds the package's exported types and constants; the
// functions that use them are Bundle (bundle.go), Run (run.go),
// BundleErrorResult (result.go) and the methods of Limits (limits.go).

// BundleOptions says what to bundle.
type BundleOptions struct {
	// Workspace is the workspace root (absolute).
	Workspace string
	// Entry is the program's path, absolute or relative to the current
	// directory; it must lie inside Workspace unless Source is set. With
	// Source it only names the program (e.g. "stdin.ts" at the workspace
	// root), and relative imports resolve from the named location.
	Entry string
	// Source is the program text when it comes from stdin or an API; nil
	// reads Entry.
	Source []byte
	// Skills says which approved skills may be imported; nil means none.
	Skills SkillPolicy
	// Skill, when set, bundles Entry as the code of the skill of that name
	// (an approved skill, or a proposal being analysed), with a skill's
	// confinement: it may import the tree, approved skills and the files of
	// its own folder (the directory of Entry), nothing else. The calls of
	// its code are listed with Skill "" in Program.Calls. Bundling a skill
	// this way checks nothing about its approval: Run refuses nothing
	// either, so use it to analyse, and run skills through a program that
	// imports them.
	Skill string
}

// SkillPolicy says which approved skills a program may import and what they
// may do. It is implemented by the skills package.
type SkillPolicy interface {
	// Skill returns the grant of an approved skill, or an error that says
	// clearly why the skill cannot be imported (not approved, pending,
	// dismissed, missing).
	Skill(name string) (SkillGrant, error)
}

// SkillGrant is what an approved skill may do, and the code it was
// approved with.
type SkillGrant struct {
	// Write allows calls of tools that are not read-only.
	Write bool `json:"write"`
	// Tools are the tools the skill may call, as "server.tool" (the
	// upstream tool's name): those recorded when it was approved. A call
	// of any other tool is a permission error. Nil allows none.
	Tools []string `json:"tools"`
	// InputSchema is the JSON Schema of the skill's input; every call of
	// the skill is validated against it (nil: any object).
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// Files are the skill's files as the policy checked them, by path
	// relative to the skill's folder ("index.ts", "lib/util.ts"): the
	// bundler reads the skill's code only from here, never from disk again,
	// so that what runs is what was checked. Nil reads the files from
	// skills/<name>/ when bundling (symbolic links refused), for policies
	// that check no files.
	Files map[string][]byte `json:"-"`
}

// Program is a bundled program, ready to run. It is JSON-serializable: it
// travels between the parent and worker processes.
type Program struct {
	// Code is the wrapped script with an inline source map.
	Code string `json:"code"`
	// Entry is the program's display name (workspace-relative).
	Entry string `json:"entry"`
	// Calls are the tools the bundled code calls with literal server and tool
	// names, sorted and deduplicated.
	Calls []ToolRef `json:"calls"`
	// Unverifiable lists, as "file:line", the call sites a reviewer cannot
	// verify statically: calls whose server or tool is not a literal, and
	// the places where the call function escapes (is aliased, passed around
	// or put in an object). Where the syntax tree was too deep to analyze,
	// an entry "analysis incomplete: nesting too deep at file:line" says
	// that calls there could be neither listed nor flagged. The runtime
	// checks every call when it is made, these included.
	Unverifiable []string `json:"unverifiable"`
	// Skills are the approved skills the program imports, directly or
	// through other skills, sorted.
	Skills []string `json:"skills"`
	// SkillCode is the bundled code of each skill in Skills, in the same
	// order. A skill runs in a goja runtime (realm) of its own, created for
	// each call: a function from a JSON input to a JSON result, checked
	// against its own grant, with nothing of its caller's realm reachable
	// from it and nothing of its realm from the caller.
	SkillCode []*SkillCode `json:"skillCode,omitempty"`

	// compiled caches the compiled script for in-process runs; a Program
	// that arrives as JSON is compiled from Code when it runs.
	compiled *goja.Program
}

// SkillCode is one approved skill as bundled for a Program.
type SkillCode struct {
	Name string `json:"name"`
	// Code is the skill's own bundle, wrapped like Program.Code.
	Code string `json:"code"`
	// Grant is the skill's grant as the policy gave it when the program
	// was bundled (Files are not kept).
	Grant SkillGrant `json:"grant"`

	compiled *goja.Program
}

// ToolRef names one tool a program calls, and whose code makes the call.
type ToolRef struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Skill is the approved skill whose code makes the call (and whose
	// grant applies to it); "" for the program's own code.
	Skill string `json:"skill"`
}

// BundleError is returned by Bundle when a program cannot be bundled: a
// syntax error, a forbidden or missing import, a skill that is not approved,
// a file the pre-check refuses.
type BundleError struct {
	Diagnostics []Diagnostic
}

// Diagnostic is one bundling problem at a position in the program's sources.
type Diagnostic struct {
	// File is workspace-relative ("prog.ts", "servers/x/y.ts"); empty when
	// the problem has no position.
	File string `json:"file,omitempty"`
	// Line is 1-based; 0 when unknown.
	Line int `json:"line,omitempty"`
	// Column is 1-based, in characters; 0 when unknown.
	Column int `json:"column,omitempty"`
	// LineText is the source line the problem is on; empty when the line is
	// longer than maxLineText bytes.
	LineText string `json:"lineText,omitempty"`
	Text     string `json:"text"`
}

// RunOptions says how to run a Program.
type RunOptions struct {
	// Workspace is the workspace root; "mcpcode:fs" works under its
	// workspace/ directory.
	Workspace string `json:"workspace"`
	// Caller performs the program's tool calls. It is not sent to workers:
	// their calls are relayed to the parent's Caller.
	Caller mcptool.Caller `json:"-"`
	Limits Limits         `json:"limits"`
	// Input is the argument for a default-exported function; nil calls it
	// with no argument.
	Input json.RawMessage `json:"input,omitempty"`
	// Started is when the run's wall time began, if that was before Run was
	// called (before bundling, say): Limits.Timeout and Stats.DurationMs
	// count from it. Zero: when Run is called. It is not sent to worker
	// processes, which set it to when their job arrived.
	Started time.Time `json:"-"`
	// MemoryBase, when not zero, is the heap the run's memory is counted
	// from (Limits.Memory), taken by a process that runs nothing else
	// before its job came, so that nothing the program controls is in it
	// (a worker takes it as it waits). Zero: taken as the run starts,
	// after a garbage collection. It is not sent to worker processes.
	MemoryBase uint64 `json:"-"`

	// hooks lets this package's tests observe a run's asynchronous work;
	// nil otherwise (it is never sent to workers).
	hooks *runHooks
}

// Limits bound one run. A zero field takes its default (see DefaultLimits).
type Limits struct {
	// Timeout is the wall time of the whole run (with worker isolation,
	// bundling included).
	Timeout time.Duration `json:"timeout,omitempty"`
	// MaxToolCalls is the number of tool calls a run may start.
	MaxToolCalls int `json:"maxToolCalls,omitempty"`
	// MaxOutput is the number of characters of console output kept; the
	// rest is dropped and counted in Result.LogsOmitted. (The size of the
	// program's result is bounded apart: MaxResultBytes.)
	MaxOutput int `json:"maxOutput,omitempty"`
	// MaxStackDepth is the maximum JavaScript call depth.
	MaxStackDepth int `json:"maxStackDepth,omitempty"`
	// MaxTimers is the number of timers that may be pending at once.
	MaxTimers int `json:"maxTimers,omitempty"`
	// Memory is enforced by the OS in worker isolation; in-process it is a
	// best-effort watchdog on the Go heap.
	Memory int64 `json:"memory,omitempty"`
	// FSQuota is the number of bytes a run may write under workspace/.
	FSQuota int64 `json:"fsQuota,omitempty"`
}

// Names of the limits, as reported in RunError.Limit.
const (
	LimitTimeout   = "timeout"
	LimitMemory    = "memory"
	LimitToolCalls = "tool-calls"
	LimitStack     = "stack"
	LimitTimers    = "timers"
	LimitFSQuota   = "fs-quota"
	// LimitResultSize is the size of the program's result (MaxResultBytes
	// of JSON). It is not Limits.MaxOutput, the console output kept, which
	// is cut rather than failing the run. Its wire name is "output".
	LimitResultSize = "output"
)

// MaxResultBytes bounds the JSON of a program's result: it is held in
// memory, sent across the worker pipe and usually shown to a model. A
// larger result fails the run with the limit LimitResultSize.
const MaxResultBytes = 4 << 20

// Result is the outcome of one run. Its JSON form is what `mcpcode run
// --json` prints.
type Result struct {
	OK bool `json:"ok"`
	// Result is the JSON of the program's result (null when there is none):
	// at most MaxResultBytes, else the run fails with LimitResultSize.
	Result json.RawMessage `json:"result"`
	// Logs is the captured console output, in order.
	Logs []LogEntry `json:"logs"`
	// LogsOmitted counts the characters dropped beyond Limits.MaxOutput.
	LogsOmitted int              `json:"logsOmitted,omitempty"`
	Error       *RunError        `json:"error,omitempty"`
	ToolCalls   []ToolCallRecord `json:"toolCalls"`
	Stats       Stats            `json:"stats"`
}

// LogEntry is one console call, or a notice a server sent about a call.
type LogEntry struct {
	// Level is "log", "info", "warn", "error" or "debug"; "server" for a
	// server's log message or progress report, whose text starts with the
	// server's name in brackets ("[everything info] ...").
	Level string `json:"level"`
	Text  string `json:"text"`
}

// RunError says why a run failed.
type RunError struct {
	// Kind is one of the Kind* constants.
	Kind string `json:"kind"`
	// Message and Stack are cut to 8 KiB each, with a marker.
	Message string `json:"message"`
	// Stack is mapped to the program's TypeScript lines (prog.ts:12:5).
	Stack string `json:"stack,omitempty"`
	// Limit names the limit for Kind "limit" (one of the Limit* constants).
	Limit string `json:"limit,omitempty"`

	// server and tool are those of a ToolError from a skill's realm, for
	// the error its caller gets.
	server, tool string
}

// Kinds of run errors.
const (
	KindBundle     = "bundle"     // the program could not be bundled
	KindRuntime    = "runtime"    // an uncaught exception
	KindTool       = "tool"       // an uncaught ToolError: the tool reported an error
	KindTransport  = "transport"  // an uncaught ToolError: the server could not be reached
	KindValidation = "validation" // an uncaught ToolError: arguments rejected before sending
	KindPermission = "permission" // an uncaught ToolError: a skill called a tool it is not granted
	KindPolicy     = "policy"     // an uncaught ToolError: a data policy refused the call before sending (privacy flows)
	KindLimit      = "limit"      // a run limit was hit (see RunError.Limit)
	KindCrashed    = "crashed"    // the worker process died for another reason, or the run could not start
	KindCanceled   = "canceled"   // the caller's context was canceled
	// KindTypeCheck: the program does not type-check against the tree, so
	// nothing of it ran (a run asked to type-check first: mcpcode run
	// --check, serve's execute). Set before the run by internal/app, never
	// by Run.
	KindTypeCheck = "typecheck"
)

// ToolCallRecord is one tool call sent to its server. Calls refused before
// anything was sent (unknown tool, permission, invalid arguments, a limit)
// are not recorded: the ToolError says why. In worker isolation the records
// are the parent process's own, not what the worker reports.
type ToolCallRecord struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	Ms     int64  `json:"ms"`
	OK     bool   `json:"ok"`
}

// Stats summarizes a run.
type Stats struct {
	DurationMs     int64 `json:"durationMs"`
	ToolCalls      int   `json:"toolCalls"`
	BytesFromTools int64 `json:"bytesFromTools"`
}
