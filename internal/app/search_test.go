package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// searchCatalog generates a workspace whose tree holds the demo servers and
// the 16 real servers of the corpus (the corpus slack as slack-mcp).
func searchCatalog(t testing.TB) *Workspace {
	t.Helper()
	var list []generator.Server
	ctx := context.Background()
	for _, name := range demo.Names() {
		srv, err := demo.New(name)
		if err != nil {
			t.Fatal(err)
		}
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = srv.Run(ctx, st) }()
		sess, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		var raws []json.RawMessage
		for tool, err := range sess.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(tool)
			raws = append(raws, raw)
		}
		sess.Close()
		list = append(list, generator.Server{Name: name, Info: generator.ServerInfo{Name: "demo-" + name, Version: "1"}, Tools: raws})
	}
	files, err := filepath.Glob(filepath.Join("..", "..", "generator", "testdata", "corpus", "*.json"))
	if err != nil || len(files) != 16 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var raws []json.RawMessage
		if err := json.Unmarshal(data, &raws); err != nil {
			t.Fatal(err)
		}
		name := strings.TrimSuffix(filepath.Base(f), ".json")
		if name == "slack" {
			name = "slack-mcp"
		}
		list = append(list, generator.Server{Name: name, Info: generator.ServerInfo{Name: name, Version: "1"}, Tools: raws})
	}
	plan, err := generator.Generate(list, generator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if _, err := generator.Write(filepath.Join(root, layout.ServersDir), layout.ManifestFor(filepath.Join(root, layout.ServersDir)), plan); err != nil {
		t.Fatal(err)
	}
	w, err := (&App{}).Open(OpenOptions{Dir: root})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// TestSearchHitRate measures how often the tool a query asks for is among
// the top 3 results over the catalog (testdata/search/queries.json), and
// holds the ranking to a floor so that a regression fails.
func TestSearchHitRate(t *testing.T) {
	t.Parallel()
	w := searchCatalog(t)
	data, err := os.ReadFile(filepath.Join("testdata", "search", "queries.json"))
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Queries []struct{ Query, Want string }
	}
	if err := json.Unmarshal(data, &set); err != nil {
		t.Fatal(err)
	}
	top1, top3 := 0, 0
	for _, q := range set.Queries {
		hits, err := w.SearchTools(q.Query, 3, false)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, h := range hits {
			id := h.Server + "." + h.Tool
			got = append(got, id)
			if id == q.Want {
				top3++
				if i == 0 {
					top1++
				}
			}
		}
		if !contains(got, q.Want) {
			t.Logf("miss: %q wants %s, got %v", q.Query, q.Want, got)
		}
	}
	n := len(set.Queries)
	t.Logf("search hit rate over %d queries: top-1 %d (%.0f%%), top-3 %d (%.0f%%)", n, top1, 100*float64(top1)/float64(n), top3, 100*float64(top3)/float64(n))
	if float64(top3) < 0.9*float64(n) {
		t.Errorf("top-3 hit rate %d/%d is under 90%%", top3, n)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSearchResults(t *testing.T) {
	t.Parallel()
	w := searchCatalog(t)
	hits, err := w.SearchTools("spreadsheet rows", 2, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) == 0 || hits[0].Server != "google-drive" || hits[0].Tool != "getSheet" {
		t.Fatalf("hits = %+v", hits)
	}
	h := hits[0]
	if h.File != "servers/google-drive/getSheet.ts" || h.Import != `import { getSheet } from "servers/google-drive/getSheet";` ||
		!strings.HasPrefix(h.Summary, "Retrieves a Google Sheets spreadsheet by id") || !strings.Contains(h.Source, "export async function getSheet") {
		t.Errorf("hit = %+v", h)
	}
	again, _ := w.SearchTools("spreadsheet rows", 2, true)
	if !reflect.DeepEqual(hits, again) {
		t.Error("the same search gave different results")
	}
	if _, err := w.SearchTools("the of and", 5, false); err == nil || !IsUsage(err) {
		t.Errorf("a query of stop words: %v", err)
	}
	empty, _ := (&App{}).Open(OpenOptions{Dir: t.TempDir()})
	if _, err := empty.SearchTools("x", 5, false); err == nil || !strings.Contains(err.Error(), "run `mcpcode gen` first") || strings.Contains(err.Error(), empty.Root) {
		t.Errorf("no tree (the message must not show the host's path): %v", err)
	}
	once, _ := w.SearchTools("spreadsheet", 3, false)
	many, _ := w.SearchTools(strings.Repeat("spreadsheet ", 50)+"channel message", 3, false)
	if len(many) == 0 || len(once) == 0 || many[0].Tool == once[0].Tool {
		t.Errorf("a repeated word outweighed the others: %v", many)
	}
	if _, err := w.SearchTools(strings.Repeat("x ", 2000), 3, false); err == nil || !IsUsage(err) {
		t.Errorf("a huge query: %v", err)
	}
}

func TestSearchTerms(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		"getSheet":              {"get", "sheet"},
		"API-get-user":          {"api", "get", "user"},
		"list_pull_requests":    {"list", "pull", "request"},
		"HTTPServer listing":    {"http", "server", "list"},
		"the issues of a repo.": {"issue", "repo"},
	}
	for in, want := range tests {
		got := searchTerms(in)
		sort.Strings(got)
		w := append([]string(nil), want...)
		sort.Strings(w)
		if !reflect.DeepEqual(got, w) {
			t.Errorf("searchTerms(%q) = %v, want %v", in, got, want)
		}
	}
}
