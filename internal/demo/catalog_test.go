package demo

import (
	"context"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestToolCatalog pins every tool's name, annotations and whether it has an
// output schema, and checks that titles and descriptions are there for the
// generated TypeScript tree.
func TestToolCatalog(t *testing.T) {
	type want struct {
		readOnly, destructive, idempotent bool
		outputSchema                      bool
		required                          []string // input properties
	}
	read := func(required ...string) want { return want{readOnly: true, outputSchema: true, required: required} }
	catalog := map[string]map[string]want{
		"google-drive": {
			"listFiles":   read(),
			"getDocument": read("documentId"),
			"getSheet":    read("sheetId"),
		},
		"salesforce": {
			"query":        read("query"),
			"getRecord":    read("objectType", "recordId"),
			"updateRecord": {destructive: true, idempotent: true, outputSchema: true, required: []string{"data", "objectType", "recordId"}},
		},
		"slack": {
			"getChannelHistory": {readOnly: true, outputSchema: true, required: []string{"channel"}},
			"postMessage":       {required: []string{"channel", "text"}},
		},
	}
	for _, server := range Names() {
		cs := connect(t, server)
		var seen []string
		for tool, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatalf("%s: listing tools: %v", server, err)
			}
			seen = append(seen, tool.Name)
			t.Run(server+"/"+tool.Name, func(t *testing.T) {
				w, ok := catalog[server][tool.Name]
				if !ok {
					t.Fatalf("unexpected tool")
				}
				checkToolDocs(t, tool)
				checkAnnotations(t, tool.Annotations, w.readOnly, w.destructive, w.idempotent)
				if got := tool.OutputSchema != nil; got != w.outputSchema {
					t.Errorf("has output schema = %v, want %v", got, w.outputSchema)
				}
				if got := requiredOf(tool.InputSchema); !slices.Equal(got, w.required) {
					t.Errorf("required inputs = %v, want %v", got, w.required)
				}
			})
		}
		if len(seen) != len(catalog[server]) {
			t.Errorf("%s lists %d tools %v, want %d", server, len(seen), seen, len(catalog[server]))
		}
	}
}

func checkToolDocs(t *testing.T, tool *mcp.Tool) {
	t.Helper()
	if tool.Title == "" || len(tool.Description) < 40 {
		t.Errorf("title %q / description %q: want both, the description a sentence or two", tool.Title, tool.Description)
	}
	schema, _ := tool.InputSchema.(map[string]any)
	if schema["type"] != "object" {
		t.Errorf("input schema type = %v, want object", schema["type"])
	}
	props, _ := schema["properties"].(map[string]any)
	for name, p := range props {
		if desc, _ := p.(map[string]any)["description"].(string); desc == "" {
			t.Errorf("input property %q has no description", name)
		}
	}
}

func checkAnnotations(t *testing.T, a *mcp.ToolAnnotations, readOnly, destructive, idempotent bool) {
	t.Helper()
	if a == nil {
		t.Fatal("no annotations")
	}
	if a.ReadOnlyHint != readOnly {
		t.Errorf("readOnlyHint = %v, want %v", a.ReadOnlyHint, readOnly)
	}
	if readOnly {
		return
	}
	if a.DestructiveHint == nil || *a.DestructiveHint != destructive {
		t.Errorf("destructiveHint = %v, want %v", a.DestructiveHint, destructive)
	}
	if a.IdempotentHint != idempotent {
		t.Errorf("idempotentHint = %v, want %v", a.IdempotentHint, idempotent)
	}
}

// requiredOf returns a schema's required property names, sorted.
func requiredOf(schema any) []string {
	m, _ := schema.(map[string]any)
	raw, _ := m["required"].([]any)
	var names []string
	for _, r := range raw {
		names = append(names, r.(string))
	}
	slices.Sort(names)
	return names
}
