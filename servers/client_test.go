package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askingServer is a go-sdk server whose tools ask the client: "ask"
// elicits a name, "sample" asks for a completion, "roots" lists the
// client's roots, and "hold" waits until release is closed.
func askingServer(release <-chan struct{}) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"}, nil)
	text := func(format string, args ...any) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
	}
	obj := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "What is your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return text("error: %v", err), nil
		}
		return text("%s %v", res.Action, res.Content["name"]), nil
	})
	s.AddTool(&mcp.Tool{Name: "sample", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return text("error: %v", err), nil
		}
		return text("model %s", res.Model), nil
	})
	s.AddTool(&mcp.Tool{Name: "roots", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return text("error: %v", err), nil
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return text("%s", strings.Join(uris, " ")), nil
	})
	s.AddTool(&mcp.Tool{Name: "hold", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return text("released"), nil
	})
	return s
}

func askingPool(t *testing.T, opts PoolOptions, servers ...ServerConfig) (*Pool, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts.ConnectTimeout = 10 * time.Second
	opts.Dial = func(context.Context, ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = askingServer(release).Run(ctx, st) }()
		return ct, nil
	}
	if len(servers) == 0 {
		servers = []ServerConfig{{Name: "asking", Transport: TransportStdio, Command: "unused"}}
	}
	p := NewPool(&Config{Path: "mcp.json", Servers: servers}, opts)
	t.Cleanup(func() { p.Close() })
	return p, release
}

func callText(t *testing.T, p *Pool, ctx context.Context, server, tool string) string {
	t.Helper()
	res, err := p.CallTool(ctx, server, tool, nil)
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res.Text()
}

func TestElicitationAndSamplingWithoutHandlersAreDeclinedWithAReason(t *testing.T) {
	t.Parallel()
	p, _ := askingPool(t, PoolOptions{})
	ctx := context.Background()
	if got := callText(t, p, ctx, "asking", "ask"); !strings.Contains(got, `declined: the server asked the user "What is your name?", but mcpcode has no way to ask the person here`) {
		t.Errorf("ask: %s", got)
	}
	if got := callText(t, p, ctx, "asking", "sample"); !strings.Contains(got, "declined: the server asked for a model's completion (sampling), but mcpcode has no model of its own") {
		t.Errorf("sample: %s", got)
	}
	p2, _ := askingPool(t, PoolOptions{Handlers: &ClientHandlers{NoElicit: "there is no terminal to ask the person in"}})
	if got := callText(t, p2, ctx, "asking", "ask"); !strings.Contains(got, "but there is no terminal to ask the person in") {
		t.Errorf("ask with a reason: %s", got)
	}
}

func TestElicitationIsAnsweredByTheDefaultHandlers(t *testing.T) {
	t.Parallel()
	var asked *ElicitRequest
	p, _ := askingPool(t, PoolOptions{Handlers: &ClientHandlers{
		Elicit: func(_ context.Context, r *ElicitRequest) (*mcp.ElicitResult, error) {
			asked = r
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		Sample: func(context.Context, *SampleRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "host-model", Role: "assistant", Content: &mcp.TextContent{Text: "hello"}}, nil
		},
	}})
	if got := callText(t, p, context.Background(), "asking", "ask"); got != "accept Ada" {
		t.Errorf("ask: %q", got)
	}
	if asked == nil || asked.Server != "asking" || asked.Params.Message != "What is your name?" {
		t.Errorf("the handler got %+v", asked)
	}
	if got := callText(t, p, context.Background(), "asking", "sample"); got != "model host-model" {
		t.Errorf("sample: %q", got)
	}
}

// TestServerRequestsAreRoutedToTheCallersHandlers: a request goes to the
// handlers of the call in flight (not the pool's default), and is declined
// when calls of two different requesters are in flight on that server.
func TestServerRequestsAreRoutedToTheCallersHandlers(t *testing.T) {
	t.Parallel()
	answer := func(name string) *ClientHandlers {
		return &ClientHandlers{Elicit: func(context.Context, *ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
		}}
	}
	p, release := askingPool(t, PoolOptions{Handlers: answer("default")})
	alice, bob := answer("alice"), answer("bob")
	aliceCtx := WithClientHandlers(context.Background(), alice)
	bobCtx := WithClientHandlers(context.Background(), bob)
	if got := callText(t, p, bobCtx, "asking", "ask"); got != "accept bob" {
		t.Errorf("bob's call alone: %q", got)
	}
	held := make(chan string)
	go func() {
		res, err := p.CallTool(aliceCtx, "asking", "hold", nil)
		if err != nil {
			held <- err.Error()
			return
		}
		held <- res.Text()
	}()
	// Wait until alice's call is registered as in flight.
	u, _ := p.upstream("asking")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		u.inflight.mu.Lock()
		n := len(u.inflight.calls)
		u.inflight.mu.Unlock()
		if n == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("alice's call never started")
		}
	}
	if got := callText(t, p, bobCtx, "asking", "ask"); !strings.Contains(got, errAmbiguous.Error()) {
		t.Errorf("bob's call while alice's is in flight: %q, want it declined as ambiguous", got)
	}
	if got := callText(t, p, aliceCtx, "asking", "ask"); got != "accept alice" {
		t.Errorf("alice's second call while her first is in flight: %q", got)
	}
	close(release)
	if got := <-held; got != "released" {
		t.Errorf("hold: %q", got)
	}
	if got := callText(t, p, context.Background(), "asking", "ask"); got != "accept default" {
		t.Errorf("a call without handlers of its own: %q", got)
	}
}

func TestRoots(t *testing.T) {
	t.Parallel()
	p, _ := askingPool(t, PoolOptions{DefaultRoots: []string{"/ws/workspace"}},
		ServerConfig{Name: "default", Transport: TransportStdio, Command: "unused"},
		ServerConfig{Name: "own", Transport: TransportStdio, Command: "unused", Roots: []string{"/data/a b", "/srv"}},
		ServerConfig{Name: "none", Transport: TransportStdio, Command: "unused", Roots: []string{}})
	ctx := context.Background()
	for server, want := range map[string]string{"default": "file:///ws/workspace", "own": "file:///data/a%20b file:///srv", "none": ""} {
		if got := callText(t, p, ctx, server, "roots"); got != want {
			t.Errorf("%s: roots %q, want %q", server, got, want)
		}
	}
}
