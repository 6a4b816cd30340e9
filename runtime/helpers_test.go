package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

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

// fakeCall is one call the fake caller received.
type fakeCall struct {
	Server, Tool string
	Args         string
	// Scope is the scope the call's context carried (mcptool.ScopeOf), nil
	// when none.
	Scope *mcptool.Scope
}

// fakeCaller plays the fixture's servers: google-drive, salesforce and
// slack, with synthetic data.
type fakeCaller struct {
	mu          sync.Mutex
	toolsAsked  []string
	calls       []fakeCall
	inFlight    int
	maxInFlight int
	// barrier, when > 0, holds every call until that many are in flight
	// at once (or the call's context ends).
	barrier int
	cond    *sync.Cond
	// rows is the size of getSheet's result.
	rows int
	// deployPolls counts slack.getDeployment calls.
	deployPolls int
}

func newFakeCaller() *fakeCaller {
	f := &fakeCaller{rows: 6}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func obj(s string) json.RawMessage { return json.RawMessage(s) }

// toolDef is a fake tool in short form; tool turns it into the raw
// definition a server would list.
type toolDef struct {
	Name            string
	InputSchema     json.RawMessage
	HasOutputSchema bool
	ReadOnly        bool
}

func (d toolDef) tool() mcptool.Tool {
	def := map[string]any{"name": d.Name, "annotations": map[string]any{"readOnlyHint": d.ReadOnly}}
	if d.InputSchema != nil {
		def["inputSchema"] = d.InputSchema
	}
	if d.HasOutputSchema {
		def["outputSchema"] = map[string]any{"type": "object"}
	}
	raw, _ := json.Marshal(def)
	t, _, err := mcptool.Parse(raw)
	if err != nil {
		panic(err)
	}
	return t
}

var fakeTools = map[string][]toolDef{
	"google-drive": {
		{Name: "getDocument", HasOutputSchema: true, ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"documentId":{"type":"string","description":"The ID"},"fields":{"type":"string"}},"required":["documentId"],"additionalProperties":false}`)},
		{Name: "getSheet", HasOutputSchema: true, ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"sheetId":{"type":"string"},"limit":{"type":"integer","minimum":1}},"required":["sheetId"]}`)},
		{Name: "search", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"}},"required":["query"]}`)},
		{Name: "updateDocument", InputSchema: obj(`{"type":"object","properties":{"documentId":{"type":"string"},"content":{"type":"string"}},"required":["documentId","content"]}`)},
	},
	"salesforce": {
		{Name: "query", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"soql":{"type":"string"}},"required":["soql"]}`)},
		{Name: "updateRecord", InputSchema: obj(`{"type":"object","properties":{"objectType":{"type":"string"},"recordId":{"type":"string"},"data":{"type":"object"}},"required":["objectType","recordId","data"]}`)},
		{Name: "sloppy", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"x":{"$ref":"https://example.com/remote.json"}},"required":"x"}`)},
		{Name: "broken", ReadOnly: true, InputSchema: obj(`{}`)},
	},
	"slack": {
		{Name: "getDeployment", ReadOnly: true, InputSchema: obj(`{"type":"object","properties":{"id":{"type":"string"}}}`)},
		{Name: "down", ReadOnly: true},
		{Name: "hang", ReadOnly: true},
	},
}

func (f *fakeCaller) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	f.mu.Lock()
	f.toolsAsked = append(f.toolsAsked, server)
	f.mu.Unlock()
	defs, ok := fakeTools[server]
	if !ok {
		return nil, fmt.Errorf("%w %q: the configured servers are google-drive, salesforce, slack", mcptool.ErrUnknownServer, server)
	}
	tools := make([]mcptool.Tool, len(defs))
	for i, d := range defs {
		tools[i] = d.tool()
	}
	return tools, nil
}

func textResult(text string) *mcptool.Result {
	b, _ := json.Marshal([]map[string]string{{"type": "text", "text": text}})
	return &mcptool.Result{Content: b}
}

func (f *fakeCaller) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	f.mu.Lock()
	c := fakeCall{Server: server, Tool: tool, Args: string(args)}
	if sc, ok := mcptool.ScopeOf(ctx); ok {
		c.Scope = &sc
	}
	f.calls = append(f.calls, c)
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	f.cond.Broadcast()
	if f.barrier > 0 {
		stop := context.AfterFunc(ctx, func() { f.mu.Lock(); f.cond.Broadcast(); f.mu.Unlock() })
		for f.maxInFlight < f.barrier && ctx.Err() == nil {
			f.cond.Wait()
		}
		stop()
	}
	f.inFlight--
	rows := f.rows
	f.mu.Unlock()

	var a map[string]any
	_ = json.Unmarshal(args, &a)
	switch server + "." + tool {
	case "google-drive.getDocument":
		id, _ := a["documentId"].(string)
		if id == "missing" {
			r := textResult("document missing not found")
			r.IsError = true
			return r, nil
		}
		sc := fmt.Sprintf(`{"title":"Doc %s","content":"Content of %s"}`, id, id)
		return &mcptool.Result{Content: textResult(sc).Content, StructuredContent: obj(sc)}, nil
	case "google-drive.getSheet":
		var b strings.Builder
		b.WriteString(`{"rows":[`)
		for i := 0; i < rows; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			status := "done"
			if i%3 == 0 {
				status = "pending"
			}
			fmt.Fprintf(&b, `{"id":%d,"Status":"%s","Customer":"customer %d","Amount":%d}`, i, status, i, i*10)
		}
		b.WriteString(`]}`)
		// A sloppy server: structured output declared, but only JSON text sent.
		return textResult(b.String()), nil
	case "google-drive.search":
		return textResult(`[{"name":"a.txt"},{"name":"b.txt"}]`), nil
	case "google-drive.updateDocument", "salesforce.updateRecord":
		return textResult("updated"), nil
	case "salesforce.query", "salesforce.sloppy", "salesforce.broken":
		return textResult("plain text answer"), nil
	case "slack.getDeployment":
		f.mu.Lock()
		f.deployPolls++
		n := f.deployPolls
		f.mu.Unlock()
		status := "running"
		if n >= 3 {
			status = "complete"
		}
		return &mcptool.Result{Content: textResult(`{"status":"` + status + `"}`).Content}, nil
	case "slack.down":
		return nil, fmt.Errorf("connection closed: EOF")
	case "slack.hang":
		<-ctx.Done() // a server that never answers
		return nil, ctx.Err()
	}
	return nil, fmt.Errorf("fake caller: no tool %s.%s", server, tool)
}

// scopes lists the calls the fake caller received, each with the scope
// its context carried: "server.tool by skill (write)", "server.tool by
// skill (no write)", or "server.tool, no scope".
func (f *fakeCaller) scopes() []string {
	var out []string
	for _, c := range f.callList() {
		switch {
		case c.Scope == nil:
			out = append(out, c.Server+"."+c.Tool+", no scope")
		case c.Scope.Write:
			out = append(out, c.Server+"."+c.Tool+" by "+c.Scope.Skill+" (write)")
		default:
			out = append(out, c.Server+"."+c.Tool+" by "+c.Scope.Skill+" (no write)")
		}
	}
	return out
}

func (f *fakeCaller) callList() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

func (f *fakeCaller) toolsList() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.toolsAsked...)
}

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
