package worker

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
	"github.com/mcpcode/mcpcode/runtime"
)

// These helpers copy, for this package, the parts of the runtime package's
// test helpers that the worker tests use: the fixture workspace in
// ../testdata/ws and the fake caller that plays its servers.

// newWorkspace copies the runtime's fixture workspace into a temporary
// directory and adds files (path → content).
func newWorkspace(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../testdata/ws")); err != nil {
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
type fakePolicy map[string]runtime.SkillGrant

func (p fakePolicy) Skill(name string) (runtime.SkillGrant, error) {
	g, ok := p[name]
	if !ok {
		return runtime.SkillGrant{}, fmt.Errorf("skill %q is not approved", name)
	}
	return g, nil
}

// The fixture's skills, approved for the tools they call (order-writer's
// through pending-orders included).
var (
	pendingTools  = []string{"google-drive.getSheet", "salesforce.updateRecord"}
	defaultPolicy = fakePolicy{"pending-orders": {Tools: pendingTools}, "order-writer": {Write: true, Tools: pendingTools},
		"reader": {Write: true, Tools: []string{"google-drive.getSheet"}}}
)

// source is program text named prog.ts at the workspace root, with the
// fixture's skill policy (the test workers use the same).
func source(ws, src string) runtime.BundleOptions {
	return runtime.BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(src), Skills: defaultPolicy}
}

// bundleSource bundles program text in this process, as trusted input.
func bundleSource(t testing.TB, ws, src string) *runtime.Program {
	t.Helper()
	p, err := runtime.Bundle(source(ws, src))
	if err != nil {
		t.Fatalf("bundling: %v", err)
	}
	return p
}

// guard bounds a run so that a hang fails the test instead of blocking it.
const guard = 20 * time.Second

// newPool returns a pool closed when the test and its subtests are done.
func newPool(t *testing.T, opts Options) *Pool {
	p := NewPool(opts)
	t.Cleanup(func() { p.Close() })
	return p
}

// contextWithCancelAfter is t's context, canceled after d.
func contextWithCancelAfter(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(d, cancel)
	return ctx, cancel
}

// hostileCase is a program that must be stopped or refused.
type hostileCase struct {
	name   string
	src    string
	limits runtime.Limits
	kind   string // expected error kind ("" when the program succeeds)
	limit  string // expected limit
	msg    string // substring of the error message (or of the result)
}

// normalProgram must run fine right after a hostile one.
const normalProgram = `import { getDocument } from "servers/google-drive/getDocument";
const d = await getDocument({ documentId: "ok" });
console.log("still fine");
export default d.title;`

func checkHostile(t *testing.T, tt hostileCase, res *runtime.Result) {
	t.Helper()
	if tt.kind == "" {
		mustOK(t, res)
		if !strings.Contains(string(res.Result), tt.msg) {
			t.Errorf("result = %s, want it to contain %q", res.Result, tt.msg)
		}
		return
	}
	if res.OK || res.Error == nil {
		t.Fatalf("run succeeded (result %s), want a %s error", res.Result, tt.kind)
	}
	if res.Error.Kind != tt.kind || res.Error.Limit != tt.limit || !strings.Contains(res.Error.Message, tt.msg) {
		t.Errorf("error = %+v, want kind %q limit %q containing %q", res.Error, tt.kind, tt.limit, tt.msg)
	}
}

func checkNormal(t *testing.T, res *runtime.Result) {
	t.Helper()
	mustOK(t, res)
	if string(res.Result) != `"Doc ok"` || logText(res) != "still fine" {
		t.Errorf("normal program after a hostile one: result %s logs %q", res.Result, logText(res))
	}
}

// The fake caller plays the fixture's servers (internal/mcptest, shared
// with the other package's tests).
type fakeCaller = mcptest.FakeCaller

func newFakeCaller() *fakeCaller { return mcptest.NewFakeCaller() }

func textResult(text string) *mcptool.Result { return mcptest.TextResult(text) }

func obj(s string) json.RawMessage { return json.RawMessage(s) }

// mustOK fails the test when the run failed.
func mustOK(t testing.TB, res *runtime.Result) {
	t.Helper()
	if !res.OK {
		t.Fatalf("run failed: %+v\nlogs: %+v", res.Error, res.Logs)
	}
}

// logText joins the logs' texts with newlines.
func logText(res *runtime.Result) string {
	var parts []string
	for _, l := range res.Logs {
		parts = append(parts, l.Text)
	}
	return strings.Join(parts, "\n")
}
