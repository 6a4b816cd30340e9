package servers

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
)

// TestCheckParamHeaders: the x-mcp-header annotations a client must
// refuse (SEP-2243), at any depth, and the ones it must accept.
func TestCheckParamHeaders(t *testing.T) {
	t.Parallel()
	tool := func(props string) []byte {
		return []byte(`{"name":"t","inputSchema":{"type":"object","properties":` + props + `}}`)
	}
	for _, tc := range []struct {
		name, props, err string
	}{
		{"none", `{"a":{"type":"string"}}`, ""},
		{"string", `{"a":{"type":"string","x-mcp-header":"Region"}}`, ""},
		{"integer and boolean", `{"a":{"type":"integer","x-mcp-header":"N"},"b":{"type":"boolean","x-mcp-header":"B"}}`, ""},
		{"nested", `{"o":{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Inner"}}}}`, ""},
		{"empty", `{"a":{"type":"string","x-mcp-header":""}}`, "not a non-empty string"},
		{"object", `{"a":{"type":"object","x-mcp-header":"O"}}`, "not a string, integer or boolean"},
		{"number", `{"a":{"type":"number","x-mcp-header":"N"}}`, "not a string, integer or boolean"},
		{"null", `{"a":{"type":"null","x-mcp-header":"N"}}`, "not a string, integer or boolean"},
		{"space", `{"a":{"type":"string","x-mcp-header":"My Header"}}`, "not an HTTP header name"},
		{"colon", `{"a":{"type":"string","x-mcp-header":"A:B"}}`, "not an HTTP header name"},
		{"non-ASCII", `{"a":{"type":"string","x-mcp-header":"Régión"}}`, "not an HTTP header name"},
		{"twice", `{"a":{"type":"string","x-mcp-header":"Same"},"b":{"type":"string","x-mcp-header":"same"}}`, "used twice"},
		{"twice nested", `{"a":{"type":"string","x-mcp-header":"Same"},"o":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"SAME"}}}}`, "used twice"},
	} {
		err := checkParamHeaders(tool(tc.props))
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}

// TestToolWithInvalidParamHeaderIsLeftOut: the listing leaves out a tool
// whose x-mcp-header annotations are invalid, and says why.
func TestToolWithInvalidParamHeaderIsLeftOut(t *testing.T) {
	t.Parallel()
	srv := &mcptest.RawServer{Name: "h", Version: "1", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"good","inputSchema":{"type":"object","properties":{"r":{"type":"string","x-mcp-header":"Region"}}}}`),
		json.RawMessage(`{"name":"bad","inputSchema":{"type":"object","properties":{"r":{"type":"object","x-mcp-header":"Region"}}}}`),
	}}
	p := NewPool(configOf(t, "h"), inMemory(t, map[string]*mcptest.RawServer{"h": srv}))
	defer p.Close()
	l, err := p.Connect(context.Background(), "h")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Tools) != 1 || l.Tools[0].Name != "good" {
		t.Errorf("tools %+v, want good alone", l.Tools)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], `tool "bad" is left out: its argument "r" carries x-mcp-header but is not a string, integer or boolean`) {
		t.Errorf("warnings %q", l.Warnings)
	}
}
