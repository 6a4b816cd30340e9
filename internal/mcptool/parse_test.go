package mcptool

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name     string
		raw      string
		want     Tool
		warnings []string
		err      string
	}{
		{name: "full", raw: `{"name":"getDoc","title":"Get","description":"Gets.\nMore.","inputSchema":{"type":"object","properties":{"b":{},"a":{}}},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true,"openWorldHint":false}}`,
			want: Tool{Name: "getDoc", Title: "Get", Description: "Gets.\nMore.", InputSchema: json.RawMessage(`{"type":"object","properties":{"b":{},"a":{}}}`), OutputSchema: json.RawMessage(`{"type":"object"}`), Hints: Hints{ReadOnly: &yes, OpenWorld: &no}}},
		{name: "title from annotations", raw: `{"name":"x","inputSchema":{},"annotations":{"title":"From annotations"}}`,
			want: Tool{Name: "x", Title: "From annotations", InputSchema: json.RawMessage(`{}`)}},
		{name: "no input schema", raw: `{"name":"x"}`, want: Tool{Name: "x", InputSchema: json.RawMessage(`{}`)},
			warnings: []string{"tool has no inputSchema; its input is typed as an open object"}},
		{name: "null schemas", raw: `{"name":"x","inputSchema":null,"outputSchema":null}`, want: Tool{Name: "x", InputSchema: json.RawMessage(`{}`)}},
		{name: "wrong field types", raw: `{"name":"x","inputSchema":{},"description":5,"title":[],"annotations":"ro"}`, want: Tool{Name: "x", InputSchema: json.RawMessage(`{}`)},
			warnings: []string{`"description" is a JSON number, not a string; ignored`, `"title" is a JSON array, not a string; ignored`, `"annotations" is not an object; ignored`}},
		{name: "hint of the wrong type", raw: `{"name":"x","inputSchema":{},"annotations":{"readOnlyHint":"yes"}}`, want: Tool{Name: "x", InputSchema: json.RawMessage(`{}`)}},
		{name: "empty name is a name", raw: `{"name":"","inputSchema":{}}`, want: Tool{Name: "", InputSchema: json.RawMessage(`{}`)}},
		{name: "no name", raw: `{"inputSchema":{}}`, err: `tool has no string "name"`},
		{name: "numeric name", raw: `{"name":5}`, err: `tool has no string "name"`},
		{name: "array", raw: `[1]`, err: "tool is a JSON array, not an object"},
		{name: "null", raw: `null`, err: "tool is a JSON null, not an object"},
		{name: "boolean", raw: `true`, err: "tool is a JSON boolean, not an object"},
		{name: "not JSON", raw: `{"name":`, err: "tool is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, warnings, err := Parse(json.RawMessage(tt.raw))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Raw = json.RawMessage(tt.raw)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(warnings, tt.warnings) {
				t.Errorf("warnings = %q, want %q", warnings, tt.warnings)
			}
		})
	}
}

func TestHintsDefaults(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name                                                string
		h                                                   Hints
		readOnly, destructive, idempotent, openWorld, retry bool
	}{
		{"undeclared: MCP defaults", Hints{}, false, true, false, true, false},
		{"read-only", Hints{ReadOnly: &yes}, true, false, true, true, true},
		{"additive write", Hints{ReadOnly: &no, Destructive: &no}, false, false, false, true, false},
		{"idempotent closed world", Hints{Idempotent: &yes, OpenWorld: &no}, false, true, true, false, true},
	}
	for _, tt := range tests {
		h := tt.h
		got := []bool{h.IsReadOnly(), h.IsDestructive(), h.IsIdempotent(), h.IsOpenWorld(), h.SafeToRetry()}
		want := []bool{tt.readOnly, tt.destructive, tt.idempotent, tt.openWorld, tt.retry}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: readOnly, destructive, idempotent, openWorld, retry = %v, want %v", tt.name, got, want)
		}
	}
}

func TestToolJSONIsTheRawDefinition(t *testing.T) {
	raw := `{"name":"x","inputSchema":{"properties":{"z":{},"a":{}}},"annotations":{"readOnlyHint":true}}`
	tool, _, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	enc, err := json.Marshal([]Tool{tool})
	if err != nil {
		t.Fatal(err)
	}
	if string(enc) != "["+raw+"]" {
		t.Errorf("encoded %s, want the raw definition", enc)
	}
	var back []Tool
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back[0], tool) {
		t.Errorf("round trip changed the tool: %+v", back[0])
	}
}

func TestParseTaskSupport(t *testing.T) {
	for raw, want := range map[string]string{
		`{"name":"a","inputSchema":{},"execution":{"taskSupport":"required"}}`: "required",
		`{"name":"a","inputSchema":{},"execution":{"taskSupport":"optional"}}`: "optional",
		`{"name":"a","inputSchema":{},"execution":null}`:                       "",
		`{"name":"a","inputSchema":{}}`:                                        "",
	} {
		tool, _, err := Parse(json.RawMessage(raw))
		if err != nil || tool.TaskSupport != want || tool.RequiresTask() != (want == "required") {
			t.Errorf("%s: %q %v, want %q", raw, tool.TaskSupport, err, want)
		}
	}
}
