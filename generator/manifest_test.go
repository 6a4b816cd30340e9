package generator

import (
	"encoding/json"
	"errors"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func boolPtr(b bool) *bool { return &b }

func TestToolEntryHints(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name                                       string
		entry                                      ToolEntry
		readOnly, destructive, idempotent, openWld bool
	}{
		{"no hints: MCP defaults", ToolEntry{}, false, true, false, true},
		{"read-only", ToolEntry{Hints: mcptool.Hints{ReadOnly: boolPtr(true)}}, true, false, true, true},
		{"additive write", ToolEntry{Hints: mcptool.Hints{ReadOnly: boolPtr(false), Destructive: boolPtr(false)}}, false, false, false, true},
		{"idempotent closed world", ToolEntry{Hints: mcptool.Hints{Idempotent: boolPtr(true), OpenWorld: boolPtr(false)}}, false, true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := c.entry
			if e.Hints.IsReadOnly() != c.readOnly || e.Hints.IsDestructive() != c.destructive || e.Hints.IsIdempotent() != c.idempotent || e.Hints.IsOpenWorld() != c.openWld {
				t.Errorf("ReadOnly/Destructive/Idempotent/OpenWorld = %v/%v/%v/%v, want %v/%v/%v/%v",
					e.Hints.IsReadOnly(), e.Hints.IsDestructive(), e.Hints.IsIdempotent(), e.Hints.IsOpenWorld(), c.readOnly, c.destructive, c.idempotent, c.openWld)
			}
		})
	}
}

func TestManifestRoundTripAndLookups(t *testing.T) {
	t.Parallel()
	plan, err := Generate(corpusServers(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "manifest.json")
	if err := os.WriteFile(path, plan.Manifest.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := ReadManifest(path)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(m)
	b, _ := json.Marshal(&plan.Manifest)
	if string(a) != string(b) {
		t.Error("manifest changed in a write/read round trip")
	}
	for _, c := range []struct {
		server, tool, function string
		readOnly, hasOutput    bool
	}{
		{"filesystem", "read_text_file", "readTextFile", true, true},
		{"filesystem", "write_file", "writeFile", false, true},
		{"notion", "API-get-user", "apiGetUser", true, false},
		{"redis", "delete", "delete_", false, false},
	} {
		tool, ok := m.Tool(c.server, c.tool)
		if !ok {
			t.Errorf("Tool(%q, %q) not found", c.server, c.tool)
			continue
		}
		if tool.Function != c.function || tool.Hints.IsReadOnly() != c.readOnly || tool.HasOutputSchema != c.hasOutput {
			t.Errorf("%s/%s = %+v, want function %s, read-only %v, output %v", c.server, c.tool, tool, c.function, c.readOnly, c.hasOutput)
		}
		if tool.File != m.mustServer(t, c.server).Directory+"/"+c.function+".ts" || len(tool.SHA256) != 64 {
			t.Errorf("%s/%s: file %q, hash %q", c.server, c.tool, tool.File, tool.SHA256)
		}
		s := m.mustServer(t, c.server)
		if byFn, ok := s.ToolByFunction(c.function); !ok || byFn.Name != c.tool {
			t.Errorf("ToolByFunction(%q) = %v, %v", c.function, byFn, ok)
		}
	}
	if _, ok := m.Tool("filesystem", "no_such_tool"); ok {
		t.Error("Tool found a tool that does not exist")
	}
	if _, ok := m.Server("nope"); ok {
		t.Error("Server found a server that does not exist")
	}
	kept := m.Keep("github", "nope", "slack")
	if len(kept) != 2 || kept[0].Name != "github" || kept[1].Name != "slack" {
		t.Errorf("Keep = %d entries, want github and slack", len(kept))
	}
	owned := m.OwnedFiles()
	if !slices.IsSorted(owned) || !slices.Contains(owned, "README.md") || !slices.Contains(owned, "filesystem/index.ts") {
		t.Errorf("OwnedFiles misses root or index files: %v", owned[:5])
	}
	if got, want := len(owned), len(plan.Files); got != want {
		t.Errorf("OwnedFiles has %d files, the plan %d", got, want)
	}
}

func (m *Manifest) mustServer(t *testing.T, name string) *ServerEntry {
	t.Helper()
	s, ok := m.Server(name)
	if !ok {
		t.Fatalf("server %q not in manifest", name)
	}
	return s
}

func TestReadManifestErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := ReadManifest(filepath.Join(dir, "missing.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing manifest: error %v, want fs.ErrNotExist", err)
	}
	for _, c := range []struct{ name, content, want string }{
		{"garbage", "nope", "not valid JSON"},
		{"newer version", `{"version": 99}`, "version 99"},
		{"no version", `{}`, "version 0"},
	} {
		p := filepath.Join(dir, c.name+".json")
		if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadManifest(p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to mention %q", c.name, err, c.want)
		}
	}
}

func TestGenerateRejectsContradictions(t *testing.T) {
	t.Parallel()
	s := slackServer(t)
	good := ServerEntry{Name: "old", Directory: "old", Files: []string{"old/index.ts"}}
	for _, c := range []struct {
		name    string
		servers []Server
		kept    []ServerEntry
		want    string
	}{
		{"same server twice", []Server{s, s}, nil, "given twice"},
		{"listed and kept", []Server{s}, []ServerEntry{{Name: "slack", Directory: "slack"}}, "given twice"},
		{"kept twice", nil, []ServerEntry{good, good}, "kept twice"},
		{"unsafe kept directory", nil, []ServerEntry{{Name: "x", Directory: ".."}}, "unsafe directory"},
		{"kept file outside its directory", nil, []ServerEntry{{Name: "x", Directory: "x", Files: []string{"y/a.ts"}}}, "unsafe file"},
		{"kept root file name", nil, []ServerEntry{{Name: "x", Directory: "README.md"}}, "unsafe directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if _, err := Generate(c.servers, Options{Kept: c.kept}); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}
