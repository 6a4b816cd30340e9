package runtime

import (
	"context"
	"encoding/json"
	"errors"
)

// ToolCaller performs tool calls for a running program. It is implemented by
// the upstream connection pool, and by the relay inside worker processes.
// Implementations must be safe for concurrent use: calls started together by
// a program run concurrently.
type ToolCaller interface {
	// Tools lists one configured server's tools, connecting to it on first
	// use, so that a run starts only the servers it calls. An unknown server
	// is an error that wraps ErrUnknownServer and says which servers exist.
	Tools(ctx context.Context, server string) ([]ToolInfo, error)
	// CallTool calls one tool with JSON arguments. The error reports a
	// transport failure; a tool that fails reports it in the result
	// (ToolResult.IsError).
	CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*ToolResult, error)
}

// ErrUnknownServer is wrapped by ToolCaller.Tools when no server of that name
// is configured. The bridge reports such calls as validation errors (nothing
// was sent) rather than transport failures.
var ErrUnknownServer = errors.New("unknown server")

// ToolInfo describes one tool of an upstream server as far as the runtime
// needs it.
type ToolInfo struct {
	Name string `json:"name"`
	// InputSchema is the tool's JSON Schema for its arguments, as received.
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// HasOutputSchema makes a call resolve to the structured content.
	HasOutputSchema bool `json:"hasOutputSchema,omitempty"`
	// ReadOnly is true when the tool's annotations.readOnlyHint is true.
	// Skills without a write grant may call only read-only tools.
	ReadOnly bool `json:"readOnly,omitempty"`
}

// ToolResult is a tool's answer as received from the server.
type ToolResult struct {
	// Content is the JSON array of content blocks, unchanged.
	Content json.RawMessage `json:"content,omitempty"`
	// StructuredContent is nil when the server sent none.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError marks a result in which the tool reports its own failure.
	IsError bool `json:"isError,omitempty"`
}

// SkillPolicy says which approved skills a program may import and what they
// may do. It is implemented by the skills package.
type SkillPolicy interface {
	// Skill returns the grant of an approved skill, or an error that says
	// clearly why the skill cannot be imported (not approved, pending,
	// dismissed, missing).
	Skill(name string) (SkillGrant, error)
}

// SkillGrant is what an approved skill may do beyond reading.
type SkillGrant struct {
	// Write allows calls of tools that are not read-only.
	Write bool `json:"write"`
}
