package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/internal/tsc"
)

// CopyDemoTree copies the committed demo workspace's generated tree
// (examples/demo: servers/ and .mcpcode/manifest.json) into root.
func CopyDemoTree(t testing.TB, root string) {
	t.Helper()
	module, err := tsc.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(module, "examples", "demo")
	for _, d := range []string{"servers", filepath.Join(".mcpcode", "manifest.json")} {
		err := filepath.WalkDir(filepath.Join(src, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(root, rel)), 0o755); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(root, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// DemoCaller answers the demo servers' tools, as a generator manifest
// lists them (read-only hints included), with small fixed results, and
// records each call.
type DemoCaller struct {
	m     *generator.Manifest
	mu    sync.Mutex
	calls []string // "server.tool args"
	names []string // "server.tool"
}

// NewDemoCaller returns a DemoCaller for the manifest at manifestPath.
func NewDemoCaller(t testing.TB, manifestPath string) *DemoCaller {
	t.Helper()
	m, err := generator.ReadManifest(manifestPath)
	if err != nil {
		t.Fatal(err)
	}
	return &DemoCaller{m: m}
}

// Tools lists a server's tools from the manifest.
func (c *DemoCaller) Tools(_ context.Context, server string) ([]mcptool.Tool, error) {
	s, ok := c.m.Server(server)
	if !ok {
		return nil, mcptool.ErrUnknownServer
	}
	var out []mcptool.Tool
	for _, t := range s.Tools {
		def := map[string]any{"name": t.Name, "inputSchema": map[string]any{"type": "object"}, "annotations": t.Hints}
		if t.HasOutputSchema {
			def["outputSchema"] = map[string]any{"type": "object"}
		}
		raw, _ := json.Marshal(def)
		tool, _, err := mcptool.Parse(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, tool)
	}
	return out, nil
}

// CallTool answers getSheet (two rows, one pending), getRecord and
// updateRecord with structured content; any other tool fails.
func (c *DemoCaller) CallTool(_ context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	c.mu.Lock()
	c.calls = append(c.calls, server+"."+tool+" "+string(args))
	c.names = append(c.names, server+"."+tool)
	c.mu.Unlock()
	var sc string
	switch tool {
	case "getSheet":
		sc = `{"sheetId":"abc123","title":"t","columns":["orderId","Status"],"rows":[{"orderId":"A","Status":"pending"},{"orderId":"B","Status":"shipped"}]}`
	case "getRecord":
		sc = `{"Id":"00Q1","Status":"Open"}`
	case "updateRecord":
		sc = `{"id":"00Q1","success":true}`
	default:
		return nil, errors.New("unexpected tool " + tool)
	}
	return &mcptool.Result{Content: json.RawMessage(`[]`), StructuredContent: json.RawMessage(sc)}, nil
}

// Calls lists the calls received so far as "server.tool".
func (c *DemoCaller) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.names...)
}

// CallsWithArgs lists the calls received so far as "server.tool args".
func (c *DemoCaller) CallsWithArgs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}
