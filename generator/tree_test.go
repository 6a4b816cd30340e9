package generator

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestTreeGolden pins the server-level and root files (index.ts, README.md,
// tsconfig.json, the manifest) for a small workspace with a kept server.
func TestTreeGolden(t *testing.T) {
	t.Parallel()
	drive := driveServer(t,
		tool(t, "get_document", "Retrieves a document from Google Drive. Long details follow.", map[string]any{"id": map[string]any{"type": "string"}}),
		json.RawMessage(`{"name":"search","title":"Search","description":"Searches files.","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"ids":{"type":"array","items":{"type":"string"}}}},"annotations":{"readOnlyHint":true}}`),
	)
	drive.Instructions = "Use for Drive files.\nSecond line */ @ts-nocheck."
	kept := ServerEntry{
		Name: "crm", Directory: "crm", Info: ServerInfo{Name: "crm-server", Version: "2.0"}, ToolCount: 1,
		Tools: []ToolEntry{{Name: "find", Function: "find", File: "crm/find.ts", SHA256: "00"}},
		Files: []string{"crm/find.ts", "crm/index.ts"},
	}
	plan, err := Generate([]Server{drive, {Name: "empty one"}}, Options{Kept: []ServerEntry{kept}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"README.md": true, "tsconfig.json": true, "google-drive/index.ts": true, "empty-one/index.ts": true}
	for _, f := range plan.Files {
		if want[f.Path] {
			checkGolden(t, filepath.Join("testdata", "tree", filepath.FromSlash(f.Path)), f.Content)
			delete(want, f.Path)
		}
	}
	if len(want) != 0 {
		t.Errorf("plan lacks files %v", want)
	}
	checkGolden(t, filepath.Join("testdata", "tree", "manifest.json"), plan.Manifest.Marshal())
}
