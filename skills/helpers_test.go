package skills

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/internal/tsc"
	"github.com/mcpcode/mcpcode/runtime"
)

// moduleRoot is the directory holding go.mod.
func moduleRoot(t testing.TB) string {
	t.Helper()
	root, err := tsc.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// demoWorkspace copies the committed demo tree (servers/ and the gen
// manifest) into a fresh workspace.
func demoWorkspace(t *testing.T) Workspace {
	t.Helper()
	src := filepath.Join(moduleRoot(t), "examples", "demo")
	root := t.TempDir()
	for _, d := range []string{"servers", ".mcpcode"} {
		err := filepath.WalkDir(filepath.Join(src, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if e.IsDir() {
				return os.MkdirAll(filepath.Join(root, rel), 0o755)
			}
			if strings.HasPrefix(rel, filepath.Join(".mcpcode", "logs")) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(root, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return NewWorkspace(root)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fakeCaller answers the demo tools from the generator manifest (which says
// which are read-only) and records every call that reached it.
type fakeCaller struct {
	m     *generator.Manifest
	mu    sync.Mutex
	calls []string
}

func newFakeCaller(t *testing.T, w Workspace) *fakeCaller {
	t.Helper()
	m, err := generator.ReadManifest(w.ManifestPath)
	if err != nil {
		t.Fatal(err)
	}
	return &fakeCaller{m: m}
}

func (f *fakeCaller) Tools(_ context.Context, server string) ([]mcptool.Tool, error) {
	s, ok := f.m.Server(server)
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

func (f *fakeCaller) CallTool(_ context.Context, server, tool string, _ json.RawMessage) (*mcptool.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, server+"."+tool)
	f.mu.Unlock()
	switch tool {
	case "getSheet":
		return &mcptool.Result{Content: json.RawMessage(`[]`), StructuredContent: json.RawMessage(`{"sheetId":"abc123","title":"t","columns":["orderId","Status"],"rows":[{"orderId":"A","Status":"pending"},{"orderId":"B","Status":"shipped"}]}`)}, nil
	case "getRecord":
		return &mcptool.Result{Content: json.RawMessage(`[]`), StructuredContent: json.RawMessage(`{"Id":"00Q5f000001abcXYZ","Status":"Open"}`)}, nil
	case "updateRecord":
		return &mcptool.Result{Content: json.RawMessage(`[]`), StructuredContent: json.RawMessage(`{"id":"00Q5f000001abcXYZ","success":true}`)}, nil
	}
	return nil, errors.New("unexpected tool " + tool)
}

func (f *fakeCaller) called() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// run bundles a program (source at the workspace root) with the skills
// policy and runs it in-process.
func run(t *testing.T, w Workspace, caller mcptool.Caller, source string, input string) *runtime.Result {
	t.Helper()
	prog, err := runtime.Bundle(runtime.BundleOptions{Workspace: w.Root, Entry: filepath.Join(w.Root, "main.ts"), Source: []byte(source), Skills: w.Policy()})
	if err != nil {
		return &runtime.Result{Error: &runtime.RunError{Kind: runtime.KindBundle, Message: err.Error()}}
	}
	var in json.RawMessage
	if input != "" {
		in = json.RawMessage(input)
	}
	lim := runtime.DefaultLimits()
	lim.Timeout = time.Minute
	return runtime.Run(context.Background(), prog, runtime.RunOptions{Workspace: w.Root, Caller: caller, Limits: lim, Input: in})
}

var fixedNow = func() time.Time { return time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC) }

// approve shows the card of name, as a reviewer reads it, and approves
// what it showed (with the hash the card printed).
func approve(w Workspace, name string, opts ApproveOptions) (*Approved, error) {
	card, err := w.Show(name)
	if err != nil {
		return nil, err
	}
	opts.SHA256 = card.SHA256
	return w.Approve(name, opts)
}

// installApproved writes skills/<name>/ as an approval would, for a program
// that was never proposed: index.ts and a SKILL.md whose hashes match.
func installApproved(t *testing.T, w Workspace, name, program string, write bool, tools ...string) {
	t.Helper()
	files := map[string][]byte{programFile: []byte(program)}
	desc := "Does " + name + "."
	fm := Frontmatter{Name: name, Description: desc, Metadata: map[string]string{
		metaTools: strings.Join(tools, " "), metaWrite: fmt.Sprint(write),
		metaSHA256: approvalHash(reviewHash(name, desc, files), write, tools, Approval{}), metaFiles: fileHashes(files),
	}}
	md, err := renderSkillMD(fm, "", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := installSkill(filepath.Join(w.Root, SkillsDir, name), files, md); err != nil {
		t.Fatal(err)
	}
}
