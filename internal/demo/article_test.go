package demo_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The snippets of Anthropic's "Code execution with MCP" (Nov 2025), each in
// testdata/article as the article prints it (plus its imports), run against
// the demo servers through the generated tree, the bundler and the runtime
// (in-process), the way `mcpcode run` runs a file. Snippets that cannot run as
// written are run too: the test pins why they fail, and runs the adapted
// version next to them (*.adapted.ts) with the smallest change that works.

// demoConfig is the mcp.json of examples/demo: the three demo servers.
const demoConfig = `{"mcpServers": {
  "google-drive": {"command": "mcpcode", "args": ["demo-server", "google-drive"]},
  "salesforce": {"command": "mcpcode", "args": ["demo-server", "salesforce"]},
  "slack": {"command": "mcpcode", "args": ["demo-server", "slack"]}
}}`

// newDemoPool returns a pool that connects fresh in-process demo servers
// (fresh state: salesforce updates and slack reads start over).
func newDemoPool(t *testing.T) *servers.Pool {
	t.Helper()
	cfg, err := servers.ParseConfig([]byte(demoConfig), "mcp.json", func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	pool := servers.NewPool(cfg, servers.PoolOptions{Dial: func(ctx context.Context, s servers.ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		srv, err := demo.New(s.Name)
		if err != nil {
			return nil, err
		}
		go func() { _ = srv.Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}})
	t.Cleanup(func() { pool.Close() })
	return pool
}

// articleWorkspace returns a fresh workspace holding the demo's generated
// servers/ tree and an empty workspace/ folder.
func articleWorkspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	var listed []generator.Server
	for _, st := range newDemoPool(t).ConnectAll(context.Background(), nil, nil) {
		if st.Err != nil {
			t.Fatalf("listing %s: %v", st.Name, st.Err)
		}
		l := st.Listing
		listed = append(listed, generator.Server{Name: l.Server, Info: generator.ServerInfo{Name: l.ServerName, Title: l.ServerTitle, Version: l.ServerVersion}, Instructions: l.Instructions, Tools: l.RawTools()})
	}
	plan, err := generator.Generate(listed, generator.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := generator.Write(filepath.Join(ws, "servers"), filepath.Join(ws, ".mcpcode", "manifest.json"), plan); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "workspace"), 0o755); err != nil {
		t.Fatal(err)
	}
	return ws
}

// runSnippet bundles testdata/article/<name> at the root of a fresh
// workspace and runs it in-process against fresh demo servers.
func runSnippet(t *testing.T, name string, limits runtime.Limits) (*runtime.Result, *servers.Pool, string) {
	t.Helper()
	ws := articleWorkspace(t)
	src, err := os.ReadFile(filepath.Join("testdata", "article", name))
	if err != nil {
		t.Fatal(err)
	}
	entry := filepath.Join(ws, name)
	if err := os.WriteFile(entry, src, 0o644); err != nil {
		t.Fatal(err)
	}
	prog, err := runtime.Bundle(runtime.BundleOptions{Workspace: ws, Entry: entry})
	if err != nil {
		t.Fatalf("bundling %s: %v", name, err)
	}
	pool := newDemoPool(t)
	res := runtime.Run(context.Background(), prog, runtime.RunOptions{Workspace: ws, Caller: driveCache{pool}, Limits: limits})
	return res, pool, ws
}

// driveCache shares google-drive's results between the tests of this
// binary: the drive is read-only and serves identical bytes on every
// server (TestFreshServersServeIdenticalBytes), and encoding the 10,000-row
// sheet takes seconds under -race. Every other call goes to the servers.
type driveCache struct{ mcptool.Caller }

var driveResults sync.Map // "tool args" → *driveResult

type driveResult struct {
	once sync.Once
	res  *mcptool.Result
	err  error
}

func (c driveCache) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	if server != "google-drive" {
		return c.Caller.CallTool(ctx, server, tool, args)
	}
	v, _ := driveResults.LoadOrStore(tool+" "+string(args), &driveResult{})
	r := v.(*driveResult)
	r.once.Do(func() { r.res, r.err = c.Caller.CallTool(ctx, server, tool, args) })
	return r.res, r.err
}

// logText joins a run's console output.
func logText(res *runtime.Result) string {
	var lines []string
	for _, l := range res.Logs {
		lines = append(lines, l.Text)
	}
	return strings.Join(lines, "\n")
}

// mustSucceed fails the test unless the run succeeded.
func mustSucceed(t *testing.T, res *runtime.Result) {
	t.Helper()
	if !res.OK {
		t.Fatalf("run failed: %+v\nlogs:\n%s", res.Error, logText(res))
	}
}

// mustFailWith fails the test unless the run failed with kind and a
// message containing want: a snippet that cannot run as written must keep
// failing for the reason its file gives (or move to the passing ones).
func mustFailWith(t *testing.T, res *runtime.Result, kind, want string) {
	t.Helper()
	if res.OK || res.Error == nil || res.Error.Kind != kind || !strings.Contains(res.Error.Message, want) {
		t.Fatalf("run: OK %v, error %+v; want a %s error containing %q", res.OK, res.Error, kind, want)
	}
}

// callTool calls a demo tool through the pool and decodes its structured content.
func callTool(t *testing.T, pool *servers.Pool, server, tool string, args map[string]any, out any) {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := pool.CallTool(context.Background(), server, tool, raw)
	if err != nil || res.IsError {
		t.Fatalf("%s.%s: %v %s", server, tool, err, res.Text())
	}
	if err := json.Unmarshal(res.StructuredContent, out); err != nil {
		t.Fatalf("%s.%s: %v", server, tool, err)
	}
}

// TestArticleTranscriptToSalesMeeting: snippet 1 runs as written and the
// transcript (about 200 KB) lands in the SalesMeeting's Notes.
func TestArticleTranscriptToSalesMeeting(t *testing.T) {
	t.Parallel()
	res, pool, _ := runSnippet(t, "transcript-to-salesmeeting.ts", runtime.Limits{})
	mustSucceed(t, res)
	var doc, meeting map[string]any
	callTool(t, pool, "google-drive", "getDocument", map[string]any{"documentId": "abc123"}, &doc)
	callTool(t, pool, "salesforce", "getRecord", map[string]any{"objectType": "SalesMeeting", "recordId": demo.FixedLeadID}, &meeting)
	notes, _ := meeting["Notes"].(string)
	if len(notes) < 150_000 || notes != doc["content"] {
		t.Errorf("SalesMeeting Notes has %d characters, want the whole transcript (%d)", len(notes), len(doc["content"].(string)))
	}
	if res.Stats.ToolCalls != 2 || len(logText(res)) != 0 {
		t.Errorf("%d tool calls, logs %q; want 2 calls and nothing logged", res.Stats.ToolCalls, logText(res))
	}
}

// TestArticlePendingOrders: snippet 2 fails as written (getSheet's result is
// an object with rows, not the rows), and works with allRows.rows.
func TestArticlePendingOrders(t *testing.T) {
	t.Parallel()
	res, _, _ := runSnippet(t, "pending-orders.ts", runtime.Limits{Timeout: 3 * time.Minute})
	mustFailWith(t, res, runtime.KindRuntime, "Object has no member 'filter'")

	res, _, _ = runSnippet(t, "pending-orders.adapted.ts", runtime.Limits{Timeout: 3 * time.Minute})
	mustSucceed(t, res)
	logs := logText(res)
	if !strings.HasPrefix(logs, "Found ") || !strings.Contains(logs, " pending orders\n") || strings.Count(logs, `"Status":"pending"`) != 5 {
		t.Errorf("logs:\n%.2000s", logs)
	}
}

// TestArticleWaitForDeployment: snippet 3 runs as written: getChannelHistory
// returns the messages array, and the deployment is announced on the third
// poll, after two 5-second sleeps.
func TestArticleWaitForDeployment(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("two real 5 s sleeps of the article's snippet: skipped under -short")
	}
	start := time.Now()
	res, _, _ := runSnippet(t, "wait-for-deployment.ts", runtime.Limits{Timeout: 60 * time.Second})
	mustSucceed(t, res)
	if logs := logText(res); logs != "Deployment notification received" {
		t.Errorf("logs %q", logs)
	}
	if res.Stats.ToolCalls != 3 || time.Since(start) < 10*time.Second {
		t.Errorf("%d polls in %v; want 3 polls and two 5 s sleeps", res.Stats.ToolCalls, time.Since(start))
	}
}

// TestArticleUpdateLeads: snippet 4 runs as written: 10,000 rows, one
// update per row (setting a Lead's Name sets its FirstName and LastName),
// and only one line reaches the output.
func TestArticleUpdateLeads(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10,000 tool calls: skipped under -short")
	}
	res, pool, _ := runSnippet(t, "update-leads.ts", runtime.Limits{MaxToolCalls: 20_000, Timeout: 5 * time.Minute})
	mustSucceed(t, res)
	if logs := logText(res); logs != "Updated 10000 leads" {
		t.Errorf("logs %q", logs)
	}
	updates := 0
	for _, c := range res.ToolCalls {
		if !c.OK {
			t.Fatalf("a call failed: %+v", c)
		}
		if c.Tool == "updateRecord" {
			updates++
		}
	}
	if updates != 10_000 || res.Stats.ToolCalls != 10_001 {
		t.Errorf("%d updates of %d tool calls, want 10,000 of 10,001", updates, res.Stats.ToolCalls)
	}
	// The sheet's contact details are the CRM's, so the updates keep the
	// Leads as they were; Name went through FirstName and LastName.
	var lead map[string]any
	callTool(t, pool, "salesforce", "getRecord", map[string]any{"objectType": "Lead", "recordId": demo.FixedLeadID}, &lead)
	if lead["Name"] != "Maya Okafor" || lead["FirstName"] != "Maya" || lead["LastName"] != "Okafor" || lead["Email"] != "maya.okafor@harborview.example" {
		t.Errorf("lead %s after the updates: %v", demo.FixedLeadID, lead)
	}
}

// TestArticleSaveSheetAsCsv: snippet 5 fails as written (getSheet's rows,
// Node's fs); the adapted skill writes workspace/sheet-abc123.csv.
func TestArticleSaveSheetAsCsv(t *testing.T) {
	t.Parallel()
	res, _, _ := runSnippet(t, "save-sheet-as-csv.ts", runtime.Limits{Timeout: 3 * time.Minute})
	mustFailWith(t, res, runtime.KindRuntime, "Object has no member 'map'")

	res, _, ws := runSnippet(t, "save-sheet-as-csv.adapted.ts", runtime.Limits{Timeout: 3 * time.Minute})
	mustSucceed(t, res)
	if logs := logText(res); logs != "./workspace/sheet-abc123.csv" {
		t.Errorf("logs %q", logs)
	}
	data, err := os.ReadFile(filepath.Join(ws, "workspace", "sheet-abc123.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) != 10_001 || lines[0] != "orderId,orderDate,salesforceId,name,email,phone,product,quantity,amount,Status" || !strings.HasPrefix(lines[1], "ORD-100001,2025-01-02,") {
		t.Errorf("%d lines, starting %q / %q", len(lines), lines[0], lines[1])
	}
}
