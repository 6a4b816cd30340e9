package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"os"
	"sort"
)

// ManifestVersion is the version of the manifest format this package writes.
const ManifestVersion = 1

// Manifest records what gen generated: every server, every tool with its
// hints and schema hash, and every file gen owns in the out dir. The writer
// uses it to know what it may rewrite or remove; skills use it to know which
// tools exist and which are read-only. Paths are slash-separated and
// relative to the out dir.
type Manifest struct {
	Version int           `json:"version"`
	Files   []string      `json:"files"`   // root files gen owns, sorted
	Servers []ServerEntry `json:"servers"` // sorted by Name
}

// ServerEntry is one server of the manifest.
type ServerEntry struct {
	Name         string      `json:"name"`      // key in mcp.json
	Directory    string      `json:"directory"` // directory under the out dir
	Info         ServerInfo  `json:"info"`
	Instructions string      `json:"instructions,omitempty"`
	ToolCount    int         `json:"toolCount"`
	Tools        []ToolEntry `json:"tools"` // sorted by Function
	Files        []string    `json:"files"` // every file of this server gen owns, sorted
	// Findings are the metadata lint's findings on this server's tools
	// when it was generated (see [Lint]), sorted by tool.
	Findings []Finding `json:"findings,omitempty"`
}

// ToolEntry is one tool of a server. Hints are nil when the server did not
// declare them; use the methods for MCP's defaults.
type ToolEntry struct {
	Name     string `json:"name"`     // original tool name, as called
	Function string `json:"function"` // exported TypeScript function
	File     string `json:"file"`
	SHA256   string `json:"sha256"` // of the tool's raw JSON, compacted
	Title    string `json:"title,omitempty"`
	mcptool.Hints
	HasOutputSchema bool `json:"hasOutputSchema"`
}

// ReadManifest reads a manifest written by [Write]. A missing file gives an
// error that wraps fs.ErrNotExist.
func ReadManifest(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return parseManifest(data, path)
}

func parseManifest(data []byte, path string) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("manifest %s is not valid JSON (%v): delete it to regenerate from scratch", path, err)
	}
	if m.Version < 1 || m.Version > ManifestVersion {
		return nil, fmt.Errorf("manifest %s has version %d, this mcpcode reads version %d: regenerate with this mcpcode or upgrade it", path, m.Version, ManifestVersion)
	}
	return &m, nil
}

// Marshal returns the manifest as deterministic, indented JSON.
func (m *Manifest) Marshal() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	_ = enc.Encode(m) // cannot fail: plain structs of strings, bools and ints
	return buf.Bytes()
}

// Server returns the entry of the server named name.
func (m *Manifest) Server(name string) (*ServerEntry, bool) {
	for i := range m.Servers {
		if m.Servers[i].Name == name {
			return &m.Servers[i], true
		}
	}
	return nil, false
}

// Tool returns the entry of a tool by server name and original tool name.
func (m *Manifest) Tool(server, tool string) (*ToolEntry, bool) {
	s, ok := m.Server(server)
	if !ok {
		return nil, false
	}
	return s.Tool(tool)
}

// Tool returns the entry of a tool by its original name.
func (s *ServerEntry) Tool(name string) (*ToolEntry, bool) {
	for i := range s.Tools {
		if s.Tools[i].Name == name {
			return &s.Tools[i], true
		}
	}
	return nil, false
}

// ToolByFunction returns the entry of a tool by its TypeScript function name.
func (s *ServerEntry) ToolByFunction(fn string) (*ToolEntry, bool) {
	for i := range s.Tools {
		if s.Tools[i].Function == fn {
			return &s.Tools[i], true
		}
	}
	return nil, false
}

// Keep returns copies of the entries of the named servers that the manifest
// has, for [Options.Kept]: servers that failed to list this time, or that
// were not selected for regeneration. Unknown names are skipped.
func (m *Manifest) Keep(names ...string) []ServerEntry {
	var out []ServerEntry
	for _, name := range names {
		if s, ok := m.Server(name); ok {
			out = append(out, *s)
		}
	}
	return out
}

// OwnedFiles returns every file gen owns under the out dir, sorted.
func (m *Manifest) OwnedFiles() []string {
	files := append([]string(nil), m.Files...)
	for _, s := range m.Servers {
		files = append(files, s.Files...)
	}
	sort.Strings(files)
	return files
}
