package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// newWorkspace copies the fixture workspace into a temporary directory and
// adds files (path → content).
func newWorkspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/ws")); err != nil {
		t.Fatalf("copying fixture workspace: %v", err)
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fakePolicy approves the skills it lists, with their grants.
type fakePolicy map[string]SkillGrant

func (p fakePolicy) Skill(name string) (SkillGrant, error) {
	g, ok := p[name]
	if !ok {
		return SkillGrant{}, fmt.Errorf("skill %q is not approved", name)
	}
	return g, nil
}

// The fixture's skills, approved for the tools they call (order-writer's
// through pending-orders included).
var (
	pendingTools    = []string{"google-drive.getSheet", "salesforce.updateRecord"}
	defaultPolicy   = fakePolicy{"pending-orders": {Tools: pendingTools}, "order-writer": {Write: true, Tools: pendingTools}}
	readOnlyPending = SkillGrant{Tools: pendingTools}
)

// bundleSource bundles program text named prog.ts at the workspace root.
func bundleSource(t testing.TB, ws, src string) *Program {
	t.Helper()
	p, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(src), Skills: defaultPolicy})
	if err != nil {
		t.Fatalf("bundling: %v", err)
	}
	return p
}

// guard bounds a run so that a hang fails the test instead of blocking it.
const guard = 20 * time.Second

// runSource bundles and runs program text in-process with the fake caller.
func runSource(t testing.TB, src string, opts RunOptions) *Result {
	t.Helper()
	ws := opts.Workspace
	if ws == "" {
		ws = newWorkspace(t, nil)
		opts.Workspace = ws
	}
	if opts.Caller == nil {
		opts.Caller = newFakeCaller()
	}
	p := bundleSource(t, ws, src)
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	return Run(ctx, p, opts)
}

// The fake caller plays the fixture's servers (internal/mcptest, shared
// with the other package's tests).
type fakeCaller = mcptest.FakeCaller

func newFakeCaller() *fakeCaller { return mcptest.NewFakeCaller() }

func textResult(text string) *mcptool.Result { return mcptest.TextResult(text) }

func obj(s string) json.RawMessage { return json.RawMessage(s) }

// mustOK fails the test when the run failed.
func mustOK(t testing.TB, res *Result) {
	t.Helper()
	if !res.OK {
		t.Fatalf("run failed: %+v\nlogs: %+v", res.Error, res.Logs)
	}
}

// logText joins the logs' texts with newlines.
func logText(res *Result) string {
	var parts []string
	for _, l := range res.Logs {
		parts = append(parts, l.Text)
	}
	return strings.Join(parts, "\n")
}
