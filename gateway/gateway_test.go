package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/skills"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstreamCalls counts the tool calls that reached the demo servers, by
// server.tool.
type upstreamCalls struct {
	mu sync.Mutex
	n  map[string]int
}

func (u *upstreamCalls) count(name string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.n[name]
}

// demoWorkspace is a workspace over the in-process demo servers with its
// tree generated.
func demoWorkspace(t testing.TB) (*app.Workspace, *upstreamCalls) {
	t.Helper()
	return demoWorkspaceWith(t, &app.App{})
}

// demoWorkspaceWith is demoWorkspace with the given app (its Dial is set).
func demoWorkspaceWith(t testing.TB, a *app.App) (*app.Workspace, *upstreamCalls) {
	t.Helper()
	calls := &upstreamCalls{n: map[string]int{}}
	dial := func(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
		srv, err := demo.New(cfg.Name)
		if err != nil {
			return nil, err
		}
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
					calls.mu.Lock()
					calls.n[cfg.Name+"."+p.Name]++
					calls.mu.Unlock()
				}
				return next(ctx, method, req)
			}
		})
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = srv.Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), app.DemoConfig("unused"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.Dial = dial
	ws, err := a.Open(app.OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	pool := ws.Pool(app.PoolOptions{})
	defer pool.Close()
	rep, err := ws.Generate(context.Background(), pool, app.GenOptions{})
	if err != nil || rep.Failed() {
		t.Fatalf("gen: %v %+v", err, rep)
	}
	return ws, calls
}

// connect starts a gateway and connects a client to it in-process.
func connect(t *testing.T, ws *app.Workspace, opts Options, copts *mcp.ClientOptions) (*Gateway, *mcp.ClientSession) {
	t.Helper()
	if opts.Isolation == "" {
		opts.Isolation = app.IsolationNone
	}
	if opts.Limits.Timeout == 0 {
		// A hang guard, not a speed requirement: under -race on a loaded
		// machine one 10,000-row getSheet can take longer than the
		// default 30 s.
		opts.Limits.Timeout = 5 * time.Minute
	}
	g, err := New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	go func() { _ = g.Run(ctx, st) }()
	// Protocol 2025-11-25, the version of today's hosts: on 2026-07-28 a
	// server cannot send elicitation requests during a call.
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "test-host", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return g, sess
}

func call(t *testing.T, s *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	return res, text.String()
}

func TestCodeTools(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	_, s := connect(t, ws, Options{}, nil)
	ctx := context.Background()

	var names []string
	for tool, err := range s.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "execute,propose_skill,read,search_tools" {
		t.Errorf("tools = %v", names)
	}
	if !strings.Contains(s.InitializeResult().Instructions, "search_tools") {
		t.Errorf("instructions: %q", s.InitializeResult().Instructions)
	}

	_, text := call(t, s, "search_tools", map[string]any{"query": "all rows of a spreadsheet"})
	if !strings.HasPrefix(text, "google-drive.getSheet — Retrieves") || !strings.Contains(text, `import { getSheet } from "servers/google-drive/getSheet";`) {
		t.Errorf("search summary:\n%s", text)
	}
	_, text = call(t, s, "search_tools", map[string]any{"query": "spreadsheet", "detail": "name", "limit": 1})
	if text != "google-drive.getSheet\n" {
		t.Errorf("search name: %q", text)
	}

	_, text = call(t, s, "read", map[string]any{"path": "servers/google-drive/getSheet.ts"})
	if !strings.Contains(text, "export async function getSheet") {
		t.Errorf("read file: %q", text)
	}
	_, text = call(t, s, "read", map[string]any{"path": "servers"})
	if !strings.Contains(text, "google-drive/\n") || !strings.Contains(text, "README.md\n") {
		t.Errorf("read dir: %q", text)
	}
	for _, bad := range []string{"mcp.json", "../mcp.json", "servers/../mcp.json", ".mcpcode/manifest.json", "skills/.proposals/x/index.ts", "/etc/passwd", "workspace/orders.csv"} {
		res, text := call(t, s, "read", map[string]any{"path": bad})
		if !res.IsError {
			t.Errorf("read %q was allowed: %q", bad, text)
		}
	}

	res, text := call(t, s, "execute", map[string]any{"code": `import { getSheet } from "servers/google-drive/getSheet";
const sheet = await getSheet({ sheetId: "abc123" });
const pending = sheet.rows.filter((r) => r.Status === "pending");
console.log("pending", pending.length > 0);
export default { rows: sheet.rows.length };`})
	if res.IsError || text != "pending true\n{\n  \"rows\": 10000\n}\n" {
		t.Errorf("execute: %v %q", res.IsError, text)
	}
	var rec struct {
		OK    bool `json:"ok"`
		Stats struct {
			ToolCalls      int   `json:"toolCalls"`
			BytesFromTools int64 `json:"bytesFromTools"`
		} `json:"stats"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &rec); err != nil || !rec.OK || rec.Stats.ToolCalls != 1 || rec.Stats.BytesFromTools < 1_000_000 {
		t.Errorf("structured content: %s", raw)
	}

	res, text = call(t, s, "execute", map[string]any{"code": "function f(): never { throw new Error(\"boom\"); }\nf();\n"})
	if !res.IsError || !strings.Contains(text, "runtime error: Error: boom") || !strings.Contains(text, "stdin.ts:1:") {
		t.Errorf("failing program: %v %q", res.IsError, text)
	}
	res, text = call(t, s, "execute", map[string]any{"code": "while (true) {}", "timeoutMs": 300})
	if !res.IsError || !strings.Contains(text, "wall-time limit of 300ms exceeded") {
		t.Errorf("timeoutMs: %q", text)
	}
}

// updateProgram tries a write and reports what happened to the program.
const updateProgram = `import { updateRecord } from "servers/salesforce/updateRecord";
import { getRecord } from "servers/salesforce/getRecord";
try {
  await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Qualified" } });
} catch (e: any) {
  console.log("refused:", e.kind, e.message);
}
const r: any = await getRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ" });
export default r.Status ?? r.record?.Status;`

func TestWritesAreConfirmed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mode   string
		answer string // "" for a host without elicitation
		sent   int
		output string
		asked  int
	}{
		{name: "accepted once", mode: ConfirmAsk, answer: answerOnce, sent: 1, output: `"Qualified"`, asked: 1},
		{name: "declined", mode: ConfirmAsk, answer: answerDeny, sent: 0, output: "refused: permission call denied: the user did not allow salesforce.updateRecord; nothing was sent", asked: 1},
		{name: "host without elicitation", mode: ConfirmAsk, sent: 0, output: "--confirm-writes allow"},
		{name: "allow", mode: ConfirmAllow, answer: answerDeny, sent: 1, output: `"Qualified"`},
		{name: "deny", mode: ConfirmDeny, answer: answerOnce, sent: 0, output: "refuses writes (mcpcode serve --confirm-writes deny)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, calls := demoWorkspace(t)
			var asked atomic.Int32
			var copts *mcp.ClientOptions
			if tt.answer != "" {
				copts = &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked.Add(1)
					if !strings.Contains(req.Params.Message, "salesforce.updateRecord") || !strings.Contains(req.Params.Message, `"Qualified"`) {
						t.Errorf("the question does not show the tool and arguments: %q", req.Params.Message)
					}
					if tt.answer == answerDeny {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": tt.answer}}, nil
				}}
			}
			_, s := connect(t, ws, Options{ConfirmWrites: tt.mode}, copts)
			_, text := call(t, s, "execute", map[string]any{"code": updateProgram})
			if !strings.Contains(text, tt.output) {
				t.Errorf("output %q, want %q", text, tt.output)
			}
			if n := calls.count("salesforce.updateRecord"); n != tt.sent {
				t.Errorf("updateRecord reached the server %d times, want %d", n, tt.sent)
			}
			if n := int(asked.Load()); n != tt.asked {
				t.Errorf("asked %d times, want %d", n, tt.asked)
			}
		})
	}
}

func TestAllowForTheRunAsksOnce(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	var asked atomic.Int32
	_, s := connect(t, ws, Options{}, &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerRun}}, nil
	}})
	code := `import { updateRecord } from "servers/salesforce/updateRecord";
await Promise.all([1, 2, 3].map((i) => updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Description: "d" + i } })));`
	if res, text := call(t, s, "execute", map[string]any{"code": code}); res.IsError {
		t.Fatal(text)
	}
	if asked.Load() != 1 || calls.count("salesforce.updateRecord") != 3 {
		t.Errorf("asked %d times, %d calls sent; want 1 and 3", asked.Load(), calls.count("salesforce.updateRecord"))
	}
	// The next run asks again.
	call(t, s, "execute", map[string]any{"code": code})
	if asked.Load() != 2 {
		t.Errorf("a new run was not asked: %d", asked.Load())
	}
}

func TestSkillsBecomeTools(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	changed := make(chan struct{}, 8)
	g, s := connect(t, ws, Options{}, &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		changed <- struct{}{}
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan struct{})
	go func() { _ = g.Watch(ctx, func() { close(ready) }) }()
	<-ready

	program := `import { getSheet } from "servers/google-drive/getSheet";
export default async function (input: { status?: string }) {
  const sheet = await getSheet({ sheetId: "abc123" });
  return sheet.rows.filter((r) => r.Status === (input.status ?? "pending")).length;
}`
	res, text := call(t, s, "propose_skill", map[string]any{"name": "count-orders", "description": "Counts the orders in one status.",
		"rationale": "asked weekly", "code": program, "inputSchema": map[string]any{"type": "object", "properties": map[string]any{"status": map[string]any{"type": "string"}}}})
	if res.IsError || !strings.Contains(text, "Nothing runs and nothing is granted until a person approves it") {
		t.Fatalf("propose: %q", text)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "skills", ".proposals", "count-orders", "index.ts")); err != nil {
		t.Fatalf("no proposal on disk: %v", err)
	}
	card, err := ws.ShowSkill("count-orders")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ApproveSkill("count-orders", skills.ApproveOptions{ApprovedBy: "test", SHA256: card.SHA256}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no tools/list_changed after the approval")
	}
	var found *mcp.Tool
	for tool, err := range s.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "count-orders" {
			found = tool
		}
	}
	if found == nil || found.Description != "Counts the orders in one status." || found.Annotations == nil || !found.Annotations.ReadOnlyHint {
		t.Fatalf("skill tool = %+v", found)
	}
	res, text = call(t, s, "count-orders", map[string]any{"status": "cancelled"})
	if res.IsError || strings.TrimSpace(text) == "" || strings.TrimSpace(text) == "0" {
		t.Errorf("skill call: %v %q", res.IsError, text)
	}
	// Dismissing is not possible for an approved skill; revoking it (or
	// deleting its folder) is: hosts are told, and its tool is gone.
	if _, err := ws.RevokeSkill("count-orders", skills.RevokeOptions{By: "test", Reason: "no longer needed"}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(20 * time.Second):
		t.Fatal("no tools/list_changed after the skill was revoked")
	}
	for tool, err := range s.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "count-orders" {
			t.Error("the revoked skill is still a tool")
		}
	}
}

func TestResources(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	_, s := connect(t, ws, Options{}, nil)
	ctx := context.Background()
	var uris []string
	for r, err := range s.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	if !containsString(uris, "mcpcode://servers/README.md") || !containsString(uris, "mcpcode://servers/slack/postMessage.ts") {
		t.Errorf("resources = %v", uris)
	}
	res, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcpcode://servers/google-drive/getSheet.ts"})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "getSheet") {
		t.Fatalf("read resource: %v %+v", err, res)
	}
	if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "mcpcode://mcp.json"}); err == nil {
		t.Error("mcp.json was readable as a resource")
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestSkillsOnlyMode(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	_, s := connect(t, ws, Options{Tools: ToolsSkills}, nil)
	for tool, err := range s.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		t.Errorf("a workspace without skills serves %s in skills mode", tool.Name)
	}
}
