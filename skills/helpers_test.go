package skills

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptest"
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
	root := t.TempDir()
	mcptest.CopyDemoTree(t, root)
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

// fakeCaller answers the demo tools (internal/mcptest, shared with the
// app's tests).
type fakeCaller = mcptest.DemoCaller

func newFakeCaller(t *testing.T, w Workspace) *fakeCaller {
	return mcptest.NewDemoCaller(t, w.ManifestPath)
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
	a := &analysis{}
	for _, tool := range tools {
		server, name, _ := strings.Cut(tool, ".")
		a.tools = append(a.tools, ToolUse{Server: server, Tool: name, Known: true, ReadOnly: !write})
	}
	md, err := approvedSkillMD(skillInfo{name: name, description: "Does " + name + "."}, a, files, write, Approval{})
	if err != nil {
		t.Fatal(err)
	}
	if err := installSkill(filepath.Join(w.Root, SkillsDir, name), files, md); err != nil {
		t.Fatal(err)
	}
}
