package skills

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// demoWithSkill copies examples/demo (tree, manifest and its approved,
// recorded skill) into a fresh workspace.
func demoWithSkill(t *testing.T) Workspace {
	t.Helper()
	w := demoWorkspace(t)
	src := filepath.Join(moduleRoot(t), "examples", "demo", "skills")
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		writeFile(t, filepath.Join(w.Root, "skills", rel), string(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func problemText(problems []Problem) string {
	var lines []string
	for _, p := range problems {
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// TestVerifyReplaysTheDemoSkill: skills verify replays the demo skill's
// recorded example offline (no server: the caller is the recording) and
// compares the result; a run that gives another result, calls otherwise,
// or uses a tool whose definition changed upstream since the recording
// fails it.
func TestVerifyReplaysTheDemoSkill(t *testing.T) {
	t.Parallel()
	w := demoWithSkill(t)
	var runs int
	w.Run = func(ctx context.Context, b runtime.BundleOptions, r runtime.RunOptions) *runtime.Result {
		runs++
		if _, ok := r.Caller.(*Replayer); !ok {
			t.Errorf("the example ran with %T, not the recording", r.Caller)
		}
		prog, err := runtime.Bundle(b)
		if err != nil {
			return runtime.BundleErrorResult(err)
		}
		return runtime.Run(ctx, prog, r)
	}
	if problems, err := w.Verify(); err != nil || len(problems) > 0 || runs != 1 {
		t.Fatalf("verify of the demo: %d replays, problems:\n%s %v", runs, problemText(problems), err)
	}

	skill := filepath.Join(w.Root, "skills", "pending-orders")
	example := filepath.Join(skill, "examples", "1.json")
	recorded := mustRead(t, example)
	md := mustRead(t, filepath.Join(skill, "SKILL.md"))
	reapprove := func(t *testing.T) {
		t.Helper()
		if _, err := approve(w, "pending-orders", ApproveOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	restore := func() {
		writeFile(t, example, string(recorded))
		writeFile(t, filepath.Join(skill, "SKILL.md"), string(md))
	}

	t.Run("a recorded result the skill no longer gives", func(t *testing.T) {
		defer restore()
		writeFile(t, example, strings.Replace(string(recorded), `"total":412`, `"total":413`, 1))
		reapprove(t)
		want := `skills/pending-orders: example examples/1.json: replayed, it returns {"orders":`
		if problems, _ := w.Verify(); len(problems) != 1 || !strings.HasPrefix(problems[0].String(), want) || !strings.Contains(problems[0].String(), `, not the recorded {"orders":`) {
			t.Errorf("verify:\n%s\nwant %s...", problemText(problems), want)
		}
	})
	t.Run("a program that calls otherwise", func(t *testing.T) {
		defer restore()
		program := filepath.Join(skill, "index.ts")
		orig := mustRead(t, program)
		defer writeFile(t, program, string(orig))
		writeFile(t, program, strings.Replace(string(orig), `sheetId: "abc123"`, `sheetId: "def456"`, 1))
		reapprove(t)
		want := `skills/pending-orders: example examples/1.json: replaying it failed: transport: calling google-drive.getSheet: replaying: the recording has no (further) call of google-drive.getSheet with the arguments {"sheetId":"def456"}`
		if problems, _ := w.Verify(); len(problems) != 1 || !strings.HasPrefix(problems[0].String(), want) {
			t.Errorf("verify:\n%s\nwant %s", problemText(problems), want)
		}
	})
	t.Run("an upstream tool that changed shape", func(t *testing.T) {
		// gen saw another definition of getSheet (its input now takes
		// spreadsheetId): the manifest's hash of it changed.
		m, err := generator.ReadManifest(w.ManifestPath)
		if err != nil {
			t.Fatal(err)
		}
		orig := m.Marshal()
		defer writeFile(t, w.ManifestPath, string(orig))
		var rec Recording
		if err := json.Unmarshal(recorded, &rec); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(string(rec.Tools["google-drive"][0].Raw), `"sheetId"`, `"spreadsheetId"`, -1)
		entry, _ := m.Tool("google-drive", "getSheet")
		entry.SHA256 = toolHash(mcptool.Tool{Raw: json.RawMessage(changed)})
		writeFile(t, w.ManifestPath, string(m.Marshal()))
		want := "skills/pending-orders: example examples/1.json: google-drive.getSheet changed upstream since the example was recorded"
		if problems, _ := w.Verify(); len(problems) != 1 || !strings.HasPrefix(problems[0].String(), want) {
			t.Errorf("verify:\n%s\nwant %s", problemText(problems), want)
		}
	})
	if problems, err := w.Verify(); err != nil || len(problems) > 0 {
		t.Errorf("verify after restoring: %s %v", problemText(problems), err)
	}
}

// echoCaller answers every call with its arguments as structured content,
// counting the calls.
type echoCaller struct{ calls int }

func (c *echoCaller) Tools(_ context.Context, server string) ([]mcptool.Tool, error) {
	if server != "echo" {
		return nil, mcptool.ErrUnknownServer
	}
	t, _, err := mcptool.Parse(json.RawMessage(`{"name":"say","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}`))
	return []mcptool.Tool{t}, err
}

func (c *echoCaller) CallTool(_ context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	c.calls++
	if strings.Contains(string(args), "fail") {
		return nil, errors.New("the server went away")
	}
	text, _ := json.Marshal(string(args))
	return &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":` + string(text) + `}]`), StructuredContent: args}, nil
}

// TestRecorderAndReplayer: a recording answers the calls it holds, in
// order, the same bytes (a result's text rebuilt from its structured
// content), failures included; anything else is an error; it survives
// Marshal and ParseRecording.
func TestRecorderAndReplayer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	up := &echoCaller{}
	rec := NewRecorder(up)
	if _, err := rec.Tools(ctx, "echo"); err != nil {
		t.Fatal(err)
	}
	var live []*mcptool.Result
	for _, args := range []string{`{"b":2, "a":1}`, `{"n":1}`, `{"n":1}`} {
		res, err := rec.CallTool(ctx, "echo", "say", json.RawMessage(args))
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, res)
	}
	if _, err := rec.CallTool(ctx, "echo", "say", json.RawMessage(`{"fail":true}`)); err == nil {
		t.Fatal("the failing call did not fail")
	}
	recording := rec.Recording(json.RawMessage(`{"x":1}`), &runtime.Result{OK: true, Result: json.RawMessage(`"done"`)})
	data := recording.Marshal()
	if !strings.Contains(string(data), `"textIsStructured":true`) {
		t.Errorf("the structured results' text is repeated:\n%s", data)
	}
	back, err := ParseRecording(data)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Marshal()) != string(data) {
		t.Errorf("Marshal is not stable:\n%s\n---\n%s", back.Marshal(), data)
	}
	p := NewReplayer(back)
	if tools, err := p.Tools(ctx, "echo"); err != nil || len(tools) != 1 || tools[0].Name != "say" {
		t.Errorf("replayed tools: %v %v", tools, err)
	}
	if _, err := p.Tools(ctx, "other"); !errors.Is(err, mcptool.ErrUnknownServer) {
		t.Errorf("a server not recorded: %v", err)
	}
	for i, args := range []string{`{"a":1,"b":2}`, `{"n":1}`, `{"n":1}`} {
		res, err := p.CallTool(ctx, "echo", "say", json.RawMessage(args))
		if err != nil {
			t.Fatalf("replaying %s: %v", args, err)
		}
		var want, got any
		_ = json.Unmarshal(live[i].Content, &want)
		_ = json.Unmarshal(res.Content, &got)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		if string(wj) != string(gj) || string(canonicalJSON(res.StructuredContent)) != string(canonicalJSON(live[i].StructuredContent)) {
			t.Errorf("replayed %s: %s %s, live %s %s", args, res.Content, res.StructuredContent, live[i].Content, live[i].StructuredContent)
		}
	}
	if _, err := p.CallTool(ctx, "echo", "say", json.RawMessage(`{"n":1}`)); err == nil || !strings.Contains(err.Error(), "no (further) call of echo.say") {
		t.Errorf("a third {n:1}: %v", err)
	}
	if _, err := p.CallTool(ctx, "echo", "say", json.RawMessage(`{"fail":true}`)); err == nil || err.Error() != "the server went away" {
		t.Errorf("the recorded failure: %v", err)
	}
	if p.Unmatched() != 1 || up.calls != 4 {
		t.Errorf("unmatched %d (want 1), upstream calls %d (want 4: none while replaying)", p.Unmatched(), up.calls)
	}
	if string(back.Input) != `{"x":1}` || string(back.Result) != `"done"` || !back.OK {
		t.Errorf("input %s result %s ok %v", back.Input, back.Result, back.OK)
	}
}
