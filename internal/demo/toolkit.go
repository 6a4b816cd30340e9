package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// addTypedTool registers a tool whose input and output are Go types: the SDK
// derives the input schema from In, validates input and output, and returns
// the output as structuredContent (plus the same JSON as text). t should
// carry a hand-written OutputSchema; see schemas.go for why.
//
// A panic in h becomes a tool error: a panic that escaped a handler would
// kill the whole server process.
func addTypedTool[In, Out any](s *mcp.Server, t *mcp.Tool, h func(context.Context, In) (Out, error)) {
	mcp.AddTool(s, t, func(ctx context.Context, _ *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, out Out, err error) {
		defer recoverAsError(t.Name, &err)
		out, err = h(ctx, in)
		return nil, out, err
	})
}

// addTextTool registers a tool the way many real servers are written: a
// hand-written input schema and a result that is JSON in a single text
// content block; when t declares an OutputSchema, the same JSON is also the
// structured content. Arguments are decoded into In strictly (unknown
// properties are rejected); h checks required values itself. A panic in h
// becomes a tool error.
func addTextTool[In any](s *mcp.Server, t *mcp.Tool, h func(context.Context, In) (any, error)) {
	s.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		text, err := runTextHandler(ctx, t.Name, req.Params.Arguments, h)
		if err != nil {
			return errorResult(err), nil
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		if t.OutputSchema != nil {
			res.StructuredContent = json.RawMessage(text)
		}
		return res, nil
	})
}

// runTextHandler decodes the arguments, calls h and encodes its result.
func runTextHandler[In any](ctx context.Context, tool string, raw json.RawMessage, h func(context.Context, In) (any, error)) (text string, err error) {
	defer recoverAsError(tool, &err)
	var in In
	if err := decodeArguments(raw, &in); err != nil {
		return "", fmt.Errorf("invalid arguments for %s: %w", tool, err)
	}
	out, err := h(ctx, in)
	if err != nil {
		return "", err
	}
	text, err = marshalText(out)
	if err != nil {
		return "", fmt.Errorf("encoding the %s result: %w", tool, err)
	}
	return text, nil
}

// recoverAsError turns a panic into *err. It only works as the deferred
// call itself (defer recoverAsError(...)), since recover must be called
// directly by the deferred function.
func recoverAsError(tool string, err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("internal error in demo tool %s: %v; this is a bug in the mcpcode demo servers", tool, r)
	}
}

// errorResult is a tool error: the model sees the message and can retry.
func errorResult(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// decodeArguments decodes raw tool arguments into v, rejecting unknown
// properties. Missing or null arguments decode as {}.
func decodeArguments(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("unexpected data after the arguments object")
	}
	return nil
}

// marshalText encodes v as compact JSON without HTML escaping, so text such
// as "R&D" stays readable to the model.
func marshalText(v any) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return string(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// Annotation helpers keep each tool's declaration to one readable line.
func boolPtr(b bool) *bool { return &b }

// readOnly annotates a tool that only reads the demo's in-memory data.
func readOnly() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: boolPtr(false)}
}

// writes annotates a tool that changes the demo's in-memory state.
func writes(destructive, idempotent bool) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		ReadOnlyHint:    false,
		DestructiveHint: boolPtr(destructive),
		IdempotentHint:  idempotent,
		OpenWorldHint:   boolPtr(false),
	}
}
