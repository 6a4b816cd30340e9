// Package mcptool is the tool contract that the MCP client, the generator,
// the runtime and the skills share: a Tool as an upstream server lists it,
// its annotations with MCP's defaults, one lenient Parse of a raw tool
// definition, and the Caller that performs tool calls.
//
// It imports nothing of mcpcode, so that the MCP client never depends on
// the runtime (and so on esbuild or goja) to describe a tool or a call.
package mcptool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// Tool is one tool of an upstream server: its raw definition as the server
// sent it (property order intact) and the fields mcpcode acts on. Its JSON
// encoding is the raw definition, so a Tool survives a trip across a
// process boundary unchanged.
type Tool struct {
	Name        string
	Title       string // tool.title, else annotations.title
	Description string
	// Raw is the definition as received.
	Raw json.RawMessage
	// InputSchema is the raw input schema ("{}" when the server sent none).
	InputSchema json.RawMessage
	// OutputSchema is the raw output schema, nil when absent or null.
	OutputSchema json.RawMessage
	Hints        Hints
	// TaskSupport is execution.taskSupport: "required" (the tool can only
	// be called as a task), "optional", "forbidden" or "" (not said).
	TaskSupport string
}

// RequiresTask reports whether the tool can only be called with task
// augmentation (execution.taskSupport "required").
func (t Tool) RequiresTask() bool { return t.TaskSupport == "required" }

// TaskUnsupported is why mcpcode cannot call a tool that requires task
// augmentation: the reason generated code and a call report.
const TaskUnsupported = `it can only be called as a task (execution.taskSupport "required"), which mcpcode does not support yet`

// HasOutputSchema reports whether the tool declares structured output, which
// makes a call resolve to its structured content.
func (t Tool) HasOutputSchema() bool { return len(t.OutputSchema) > 0 }

// FirstLine returns the first line of the description, trimmed.
func (t Tool) FirstLine() string {
	line, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
	return strings.TrimSpace(line)
}

// MarshalJSON encodes the tool as its raw definition.
func (t Tool) MarshalJSON() ([]byte, error) {
	if len(t.Raw) == 0 {
		return json.Marshal(map[string]any{"name": t.Name})
	}
	return t.Raw, nil
}

// UnmarshalJSON parses a raw definition with Parse.
func (t *Tool) UnmarshalJSON(data []byte) error {
	p, _, err := Parse(data)
	if err != nil {
		return err
	}
	*t = p
	return nil
}

// Hints are a tool's annotations. Nil means the server did not say; the
// methods apply MCP's defaults. The JSON names are MCP's.
type Hints struct {
	ReadOnly    *bool `json:"readOnlyHint,omitempty"`
	Destructive *bool `json:"destructiveHint,omitempty"`
	Idempotent  *bool `json:"idempotentHint,omitempty"`
	OpenWorld   *bool `json:"openWorldHint,omitempty"`
}

// IsReadOnly reports whether the server declared the tool read-only (MCP's
// default is false).
func (h Hints) IsReadOnly() bool { return h.ReadOnly != nil && *h.ReadOnly }

// IsDestructive reports whether the tool may destroy data: true unless it is
// read-only or declared non-destructive.
func (h Hints) IsDestructive() bool {
	return !h.IsReadOnly() && (h.Destructive == nil || *h.Destructive)
}

// IsIdempotent reports whether repeating a call has no further effect
// (read-only tools are; otherwise MCP's default is false).
func (h Hints) IsIdempotent() bool {
	return h.IsReadOnly() || (h.Idempotent != nil && *h.Idempotent)
}

// IsOpenWorld reports whether the tool reaches outside entities (MCP's
// default is true).
func (h Hints) IsOpenWorld() bool { return h.OpenWorld == nil || *h.OpenWorld }

// SafeToRetry reports whether calling the tool twice does no harm, which is
// when a call lost with its connection may be sent again.
func (h Hints) SafeToRetry() bool { return h.IsIdempotent() }

// Result is a tool's answer as received from the server.
type Result struct {
	// Content is the JSON array of content blocks, unchanged.
	Content json.RawMessage `json:"content,omitempty"`
	// StructuredContent is nil when the server sent none.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError marks a result in which the tool reports its own failure.
	IsError bool `json:"isError,omitempty"`
	// InputRequired marks an interim result of MCP 2026-07-28
	// (resultType "input_required"): the server needs answers (its
	// inputRequests) before it completes the call, which the client sends
	// on a retry. It is not the call's answer.
	InputRequired bool `json:"-"`
}

// Text joins the text content blocks of the result.
func (r *Result) Text() string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(r.Content, &blocks) != nil {
		return ""
	}
	var parts []string
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Caller performs tool calls on configured upstream servers. The consumer
// that runs programs uses it; the MCP client's pool implements it, and so
// does the relay inside worker processes. Implementations are safe for
// concurrent use.
type Caller interface {
	// Tools lists one configured server's tools, connecting to it on first
	// use. An unknown server is an error that wraps ErrUnknownServer and
	// says which servers exist.
	Tools(ctx context.Context, server string) ([]Tool, error)
	// CallTool calls one tool with JSON arguments. The error reports a
	// transport failure; a tool that fails reports it in the result
	// (Result.IsError).
	CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*Result, error)
}

// ErrUnknownServer is wrapped by errors about a server name that no
// configuration has.
var ErrUnknownServer = errors.New("unknown server")

// ErrDenied is wrapped by a Caller's error when a call was refused before
// anything was sent (a person declined it, or a policy forbids it). The
// runtime reports such a call as a "permission" error, not a transport
// failure.
var ErrDenied = errors.New("call denied")

// ErrPolicy is wrapped by a Caller's error when a data policy refused a
// call before anything was sent (a value may not flow to that server, or
// a privacy token is unknown). The runtime reports such a call as a
// "policy" error.
var ErrPolicy = errors.New("call refused by policy")

// Scope says whose code makes a call: the program's own ("" skill) or an
// approved skill's, with the grant a person gave it.
type Scope struct {
	// Skill is the approved skill whose code makes the call; "" for the
	// program itself.
	Skill string `json:"skill,omitempty"`
	// Write is the skill's grant to call tools that are not read-only.
	Write bool `json:"write,omitempty"`
}

type scopeKey struct{}

// WithScope returns ctx carrying the scope of the call made with it.
func WithScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeOf returns the scope a call's context carries; ok is false when it
// carries none (treat it as the program's own code).
func ScopeOf(ctx context.Context) (s Scope, ok bool) {
	s, ok = ctx.Value(scopeKey{}).(Scope)
	return s, ok
}

type structuredOnlyKey struct{}

// WithStructuredOnly returns ctx saying that whoever makes the call uses
// the result's structured content alone when the result has some and is
// not a tool error: its Content, a text copy of the same data that is as
// large, is not needed then. A Caller may pass that on (the worker relay
// does, so that a large result crosses the pipe once, not twice); it may
// also ignore it. The Caller that honours it still counts, records and
// checks the whole result.
func WithStructuredOnly(ctx context.Context) context.Context {
	return context.WithValue(ctx, structuredOnlyKey{}, true)
}

// StructuredOnly reports whether ctx says so (WithStructuredOnly).
func StructuredOnly(ctx context.Context) bool {
	b, _ := ctx.Value(structuredOnlyKey{}).(bool)
	return b
}

// StructuredSuffices reports whether r's structured content is all that a
// caller asking for structured content alone (WithStructuredOnly) uses of
// r: r is not a tool error and has structured content that is not null.
func (r *Result) StructuredSuffices() bool {
	s := bytes.TrimSpace(r.StructuredContent)
	return !r.IsError && len(s) > 0 && string(s) != "null"
}

type substitutedKey struct{}

// WithSubstituted returns ctx saying that the call's arguments hold the
// values mcpcode put in place of these privacy tokens ("[EMAIL_1]"): the
// program wrote the tokens, the server gets the values. Whoever shows the
// arguments to a person (the write question) can say so.
func WithSubstituted(ctx context.Context, tokens []string) context.Context {
	return context.WithValue(ctx, substitutedKey{}, tokens)
}

// SubstitutedOf returns the tokens a call's context says were replaced
// (WithSubstituted); nil when none.
func SubstitutedOf(ctx context.Context) []string {
	t, _ := ctx.Value(substitutedKey{}).([]string)
	return t
}
