package app

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/layout"
)

// smallTree is a workspace with one generated server (crm, tool getLead)
// and a mcp.json holding a secret.
func smallTree(t *testing.T) *Workspace {
	t.Helper()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "mcp.json"), `{"mcpServers":{"crm":{"type":"http","url":"https://x.test","headers":{"Authorization":"Bearer SECRET-CONFIG"}}}}`)
	tool := json.RawMessage(`{"name":"getLead","description":"Finds a sales lead by its email address.","inputSchema":{"type":"object","properties":{"email":{"type":"string"}}}}`)
	plan, err := generator.Generate([]generator.Server{{Name: "crm", Info: generator.ServerInfo{Name: "crm", Version: "1"}, Tools: []json.RawMessage{tool}}}, generator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	servers := filepath.Join(root, layout.ServersDir)
	if _, err := generator.Write(servers, layout.ManifestFor(servers), plan); err != nil {
		t.Fatal(err)
	}
	return openDir(t, &App{}, root)
}

// TestSearchFullReadsOnlyWhatReadReads: search_tools with the files'
// source (full) is a way to read the tree, so it refuses what read
// refuses: a tool file that is a symlink to mcp.json (the servers'
// tokens), a manifest entry that points out of servers/, and servers/
// swapped for a symlink after the index was built (the index is cached
// while the manifest does not change).
func TestSearchFullReadsOnlyWhatReadReads(t *testing.T) {
	t.Parallel()
	check := func(t *testing.T, w *Workspace, what string) {
		t.Helper()
		hits, err := w.SearchTools("sales lead email", 5, true)
		for _, h := range hits {
			if strings.Contains(h.Source, "SECRET") {
				t.Errorf("%s: search returned the secret in %s: %q", what, h.File, h.Source)
			}
		}
		if err == nil {
			t.Errorf("%s: search read the tool's file without a word (%d hits)", what, len(hits))
		} else if strings.Contains(err.Error(), "SECRET") || strings.Contains(err.Error(), w.Root) {
			t.Errorf("%s: the error shows the secret or the host's path: %v", what, err)
		} else if !strings.Contains(err.Error(), "servers/") {
			t.Errorf("%s: the error does not name the file: %v", what, err)
		}
	}

	t.Run("tool file is a symlink", func(t *testing.T) {
		t.Parallel()
		w := smallTree(t)
		file := filepath.Join(w.Root, "servers", "crm", "getLead.ts")
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		symlink(t, "../../mcp.json", file)
		check(t, w, "servers/crm/getLead.ts -> ../../mcp.json")
	})

	t.Run("manifest points out of servers", func(t *testing.T) {
		t.Parallel()
		w := smallTree(t)
		data, err := os.ReadFile(w.Manifest())
		if err != nil {
			t.Fatal(err)
		}
		forged := strings.Replace(string(data), `"file": "crm/getLead.ts"`, `"file": "../mcp.json"`, 1)
		if forged == string(data) {
			forged = strings.Replace(string(data), `"file":"crm/getLead.ts"`, `"file":"../mcp.json"`, 1)
		}
		if forged == string(data) {
			t.Fatalf("the manifest does not name crm/getLead.ts:\n%s", data)
		}
		writeFile(t, w.Manifest(), forged)
		check(t, w, "a manifest entry ../mcp.json")
	})

	t.Run("servers swapped for a symlink after indexing", func(t *testing.T) {
		t.Parallel()
		w := smallTree(t)
		if hits, err := w.SearchTools("sales lead email", 5, true); err != nil || len(hits) != 1 || !strings.Contains(hits[0].Source, "export async function getLead") {
			t.Fatalf("the plain tree does not search: %v %+v", err, hits)
		}
		outside := t.TempDir()
		writeFile(t, filepath.Join(outside, "crm", "getLead.ts"), "SECRET-OUTSIDE")
		servers := filepath.Join(w.Root, "servers")
		if err := os.Rename(servers, filepath.Join(t.TempDir(), "old")); err != nil {
			t.Fatal(err)
		}
		symlink(t, outside, servers)
		check(t, w, "servers/ swapped for a symlink")
	})
}
