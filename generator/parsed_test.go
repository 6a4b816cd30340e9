package generator

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// TestGenerateWithParsedTools: tools handed over as a listing parsed them
// (Server.Parsed) generate exactly what the raw tools generate, the
// warnings of mcptool.Parse included; a Parsed whose Raw is a copy, not
// the tool itself, is not trusted: the tool is parsed again.
func TestGenerateWithParsedTools(t *testing.T) {
	t.Parallel()
	servers := corpusServers(t)
	servers = append(servers, Server{Name: "odd", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"typed_wrong","description":42,"title":["x"],"annotations":"no","inputSchema":{"type":"object"}}`),
		json.RawMessage(`{"name":"no_schema"}`),
	}})
	want, err := Generate(servers, Options{})
	if err != nil {
		t.Fatal(err)
	}
	withParsed := make([]Server, len(servers))
	lying := make([]Server, len(servers))
	for i, s := range servers {
		withParsed[i], lying[i] = s, s
		withParsed[i].Parsed = make([]ParsedTool, len(s.Tools))
		lying[i].Parsed = make([]ParsedTool, len(s.Tools))
		for j, raw := range s.Tools {
			tool, warnings, err := mcptool.Parse(raw)
			if err != nil {
				t.Fatal(err)
			}
			withParsed[i].Parsed[j] = ParsedTool{Tool: tool, Warnings: warnings}
			// A copy of the bytes, and a tool that says something else.
			other := tool
			other.Raw = bytes.Clone(raw)
			other.Description = "not what the server sent"
			lying[i].Parsed[j] = ParsedTool{Tool: other}
		}
	}
	for name, in := range map[string][]Server{"parsed": withParsed, "copied raw": lying} {
		got, err := Generate(in, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Files, want.Files) || !reflect.DeepEqual(got.Warnings, want.Warnings) ||
			!reflect.DeepEqual(got.Findings, want.Findings) || !bytes.Equal(got.Manifest.Marshal(), want.Manifest.Marshal()) {
			t.Errorf("%s: the plan differs from the raw tools'", name)
		}
	}
	if len(want.Warnings) == 0 {
		t.Fatal("no warnings: the odd tools no longer exercise mcptool.Parse's")
	}
}
