package runtime

import (
	"encoding/json"
	"errors"

	"github.com/mcpcode/mcpcode/runtime/internal/textfmt"
)

// Result is the outcome of one run. Its JSON form is what `mcpcode run
// --json` prints.
type Result struct {
	OK bool `json:"ok"`
	// Result is the JSON of the program's result (null when there is none):
	// at most 4 MiB, else the run fails with the limit "output".
	Result json.RawMessage `json:"result"`
	// Logs is the captured console output, in order.
	Logs []LogEntry `json:"logs"`
	// LogsOmitted counts the characters dropped beyond Limits.MaxOutput.
	LogsOmitted int              `json:"logsOmitted,omitempty"`
	Error       *RunError        `json:"error,omitempty"`
	ToolCalls   []ToolCallRecord `json:"toolCalls"`
	Stats       Stats            `json:"stats"`
}

// LogEntry is one console call.
type LogEntry struct {
	// Level is "log", "info", "warn", "error" or "debug".
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
}

func (e *RunError) Error() string { return e.Kind + ": " + e.Message }

// maxErrorText bounds RunError.Message and RunError.Stack: a program
// controls them (a thrown message can be megabytes long).
const maxErrorText = 8 * kib

// truncated returns e with its message and stack cut to maxErrorText bytes
// each (at a character boundary, with a marker); nil stays nil.
func (e *RunError) truncated() *RunError {
	if e == nil || (len(e.Message) <= maxErrorText && len(e.Stack) <= maxErrorText) {
		return e
	}
	out := *e
	out.Message = truncateText(e.Message, maxErrorText)
	out.Stack = truncateText(e.Stack, maxErrorText)
	return &out
}

// truncateText cuts s to at most max bytes (at a character boundary) plus
// a marker saying how much was left out.
func truncateText(s string, max int) string { return textfmt.Truncate(s, max) }

// Kinds of run errors.
const (
	KindBundle     = "bundle"     // the program could not be bundled
	KindRuntime    = "runtime"    // an uncaught exception
	KindTool       = "tool"       // an uncaught ToolError: the tool reported an error
	KindTransport  = "transport"  // an uncaught ToolError: the server could not be reached
	KindValidation = "validation" // an uncaught ToolError: arguments rejected before sending
	KindPermission = "permission" // an uncaught ToolError: a skill called a tool it is not granted
	KindLimit      = "limit"      // a run limit was hit (see RunError.Limit)
	KindCrashed    = "crashed"    // the worker process died for another reason
	KindCanceled   = "canceled"   // the caller's context was canceled
)

// ToolCallRecord is one tool call sent to its server. Calls refused before
// anything was sent (unknown tool, permission, invalid arguments, a limit)
// are not recorded: the ToolError says why. With a WorkerPool the records
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

// BundleErrorResult turns an error from Bundle into a failed Result of kind
// "bundle", so that callers can report bundling and run failures alike.
func BundleErrorResult(err error) *Result {
	res := &Result{Result: json.RawMessage("null"), Logs: []LogEntry{}, ToolCalls: []ToolCallRecord{}}
	res.Error = &RunError{Kind: KindBundle, Message: err.Error()}
	var be *BundleError
	if errors.As(err, &be) && len(be.Diagnostics) > 0 {
		res.Error.Message = be.Diagnostics[0].Text
		res.Error.Stack = be.Error()
	}
	res.Error = res.Error.truncated()
	return res
}
