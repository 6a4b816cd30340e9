package servers

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// chattyServer's "work" tool reports progress and logs while it works;
// it has a resource.
func chattyServer(calls *int) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "chatty", Version: "1"}, &mcp.ServerOptions{HasResources: true})
	s.AddTool(&mcp.Tool{Name: "work", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		*calls++
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "debug", Data: "too chatty to show"})
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Logger: "db", Data: "slow query"})
		if tok := req.Params.GetProgressToken(); tok != nil {
			for i := 1; i <= 2; i++ {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: "step"})
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "test://notes/1", Name: "note", MIMEType: "text/plain"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://notes/1", MIMEType: "text/plain", Text: "remember the milk"}}}, nil
	})
	return s
}

// TestTaskOnlyToolFailsAtOnce: a tool that requires task augmentation
// fails at once with the reason; nothing is sent.
func TestTaskOnlyToolFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv := &mcptest.RawServer{Name: "tasks", Version: "1", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"research","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`)}}
	p := NewPool(configOf(t, "tasks"), inMemory(t, map[string]*mcptest.RawServer{"tasks": srv}))
	defer p.Close()
	res, err := p.CallTool(context.Background(), "tasks", "research", nil)
	if err != nil || !res.IsError || res.Text() != `tasks.research cannot be called: it can only be called as a task (execution.taskSupport "required"), which mcpcode does not support yet` {
		t.Errorf("research: %+v %v", res, err)
	}
	if n := srv.Calls.Load(); n != 0 {
		t.Errorf("%d calls reached the server", n)
	}
}

func TestNoticesAndResources(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	calls := 0
	ctx := context.Background()
	p := NewPool(&Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "chatty", Transport: TransportStdio, Command: "unused"}}}, PoolOptions{
		ConnectTimeout: 10 * time.Second, LogDir: dir,
		Dial: func(context.Context, ServerConfig) (mcp.Transport, error) {
			ct, st := mcp.NewInMemoryTransports()
			go func() { _ = chattyServer(&calls).Run(ctx, st) }()
			return ct, nil
		}})
	var mu sync.Mutex
	var got []string
	sink := &mcptool.NoticeSink{Send: func(n mcptool.Notice) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, n.Text())
	}}
	res, err := p.CallTool(mcptool.WithNotices(ctx, sink), "chatty", "work", nil)
	if err != nil || res.Text() != "done" {
		t.Fatalf("work: %v %v", res, err)
	}
	mu.Lock()
	want := []string{"[chatty warning db] slow query", "[chatty progress] 1/2 step", "[chatty progress] 2/2 step"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	mu.Unlock()

	list, err := p.ListResources(ctx, "chatty")
	if err != nil || !strings.Contains(string(list), `"uri":"test://notes/1"`) {
		t.Errorf("resources: %s %v", list, err)
	}
	contents, err := p.ReadResource(ctx, "chatty", "test://notes/1")
	if err != nil || !strings.Contains(string(contents), `"text":"remember the milk"`) {
		t.Errorf("read: %s %v", contents, err)
	}
	if _, err := p.ReadResource(ctx, "chatty", "test://nope"); err == nil || !strings.Contains(err.Error(), `reading test://nope from server "chatty"`) {
		t.Errorf("reading a missing resource: %v", err)
	}
	p.Close()
	log, _ := os.ReadFile(filepath.Join(dir, "chatty.log"))
	for _, want := range []string{"[log warning db] slow query\n", "[progress] 1/2 step\n", "[progress] 2/2 step\n"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the server's log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(string(log), "too chatty") {
		t.Errorf("debug messages must not be asked for:\n%s", log)
	}
}
