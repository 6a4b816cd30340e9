package runtime

import (
	"encoding/json"
	"errors"

	"github.com/mcpcode/mcpcode/runtime/internal/textfmt"
)

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
