package servers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// checkParamHeaders checks the x-mcp-header annotations of a tool's input
// schema (MCP 2026-07-28, SEP-2243: the client mirrors an annotated
// argument into an Mcp-Param-<name> HTTP header). The revision tells a
// client to leave out a tool whose annotations are invalid: one on a
// property that is not a string, integer or boolean; an empty name or one
// that is not an HTTP token; a name used twice, in any case. go-sdk
// leaves such tools out of its own listing; mcpcode lists from the raw
// definitions, so it checks them here, as go-sdk does.
func checkParamHeaders(rawTool json.RawMessage) error {
	if !bytes.Contains(rawTool, []byte("x-mcp-header")) {
		return nil // nearly every tool: no decoding
	}
	var t struct {
		InputSchema json.RawMessage `json:"inputSchema"`
	}
	if json.Unmarshal(rawTool, &t) != nil || len(t.InputSchema) == 0 {
		return nil
	}
	return checkParamHeadersIn(t.InputSchema, "", map[string]bool{})
}

type headerProp struct {
	Type       json.RawMessage            `json:"type"`
	Header     json.RawMessage            `json:"x-mcp-header"`
	Properties map[string]json.RawMessage `json:"properties"`
}

func checkParamHeadersIn(schema json.RawMessage, prefix string, seen map[string]bool) error {
	var s headerProp
	if json.Unmarshal(schema, &s) != nil {
		return nil
	}
	for _, name := range sortedKeys(s.Properties) {
		path := prefix + name
		var p headerProp
		if json.Unmarshal(s.Properties[name], &p) != nil {
			continue
		}
		if p.Header != nil {
			var typ, header string
			_ = json.Unmarshal(p.Type, &typ)
			if typ != "string" && typ != "integer" && typ != "boolean" {
				return fmt.Errorf("its argument %q carries x-mcp-header but is not a string, integer or boolean", path)
			}
			if json.Unmarshal(p.Header, &header) != nil || header == "" {
				return fmt.Errorf("the x-mcp-header of its argument %q is not a non-empty string", path)
			}
			if i := strings.IndexFunc(header, func(r rune) bool { return !isTokenChar(r) }); i >= 0 {
				return fmt.Errorf("the x-mcp-header %q of its argument %q is not an HTTP header name", header, path)
			}
			if seen[strings.ToLower(header)] {
				return fmt.Errorf("the x-mcp-header %q of its argument %q is used twice", header, path)
			}
			seen[strings.ToLower(header)] = true
		}
		if len(p.Properties) > 0 {
			if err := checkParamHeadersIn(s.Properties[name], path+".", seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// isTokenChar reports whether r may appear in an HTTP field name (RFC 9110
// tchar).
func isTokenChar(r rune) bool {
	switch {
	case r >= '0' && r <= '9', r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		return true
	}
	return strings.ContainsRune("!#$%&'*+-.^_`|~", r)
}
