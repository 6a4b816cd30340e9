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

// The two eras of servers the client meets: "legacy" servers (up to
// 2025-11-25) send their questions as requests of their own during a call;
// "modern" ones (2026-07-28) answer the call with an interim
// input_required result and get the answers on its retry (multi round-trip
// requests). The same go-sdk server is both: its tools return
// InputRequests, which go-sdk turns into requests of the server's own for a
// client that opened with initialize (serverMultiRoundTripMiddleware).
var eras = []string{"legacy", "modern"}

// askingServer is a go-sdk server whose tools ask the client: "ask"
// elicits a name, "sample" asks for a completion, "roots" lists the
// client's roots, and "hold" waits until release is closed. A legacy one
// speaks the revisions before 2026-07-28 only.
func askingServer(release <-chan struct{}, era string) *mcp.Server {
	var opts *mcp.ServerOptions
	if era == "legacy" {
		opts = &mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"}, opts)
	text := func(format string, args ...any) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf(format, args...)}}}
	}
	ask := func(key string, r mcp.InputRequest) *mcp.CallToolResult {
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{key: r}, RequestState: "asked-" + key}
	}
	obj := json.RawMessage(`{"type":"object"}`)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ok := req.Params.InputResponses["name"].(*mcp.ElicitResult)
		if !ok {
			return ask("name", &mcp.ElicitParams{Message: "What is your name?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)}), nil
		}
		return text("%s %v", res.Action, res.Content["name"]), nil
	})
	s.AddTool(&mcp.Tool{Name: "sample", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ok := req.Params.InputResponses["model"].(*mcp.CreateMessageWithToolsResult)
		if !ok {
			return ask("model", &mcp.CreateMessageParams{MaxTokens: 10,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}), nil
		}
		return text("model %s", res.Model), nil
	})
	s.AddTool(&mcp.Tool{Name: "roots", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
		if !ok {
			return ask("roots", &mcp.ListRootsParams{}), nil
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

func askingPool(t *testing.T, era string, opts PoolOptions, servers ...ServerConfig) (*Pool, chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	opts.ConnectTimeout = 10 * time.Second
	opts.Dial = func(context.Context, ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = askingServer(release, era).Run(ctx, st) }()
		return ct, nil
	}
	if len(servers) == 0 {
		servers = []ServerConfig{{Name: "asking", Transport: TransportStdio, Command: "unused"}}
	}
	p := NewPool(&Config{Path: "mcp.json", Servers: servers}, opts)
	t.Cleanup(func() { p.Close() })
	if l, err := p.Connect(ctx, servers[0].Name); err != nil {
		t.Fatal(err)
	} else if modern := l.ProtocolVersion == modernProtocolVersion; modern != (era == "modern") {
		t.Fatalf("a %s server connected at %s", era, l.ProtocolVersion)
	}
	return p, release
}

// callOutcome calls a tool: its text, or "error: " and why the call failed
// (a question declined fails the call, in both eras).
func callOutcome(t *testing.T, p *Pool, ctx context.Context, server, tool string) string {
	t.Helper()
	res, err := p.CallTool(ctx, server, tool, nil)
	if err != nil {
		return "error: " + err.Error()
	}
	return res.Text()
}

func TestElicitationAndSamplingWithoutHandlersAreDeclinedWithAReason(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			p, _ := askingPool(t, era, PoolOptions{})
			ctx := context.Background()
			if got := callOutcome(t, p, ctx, "asking", "ask"); !strings.Contains(got, `declined: the server asked the user "What is your name?", but mcpcode has no way to ask the person here`) {
				t.Errorf("ask: %s", got)
			}
			if got := callOutcome(t, p, ctx, "asking", "sample"); !strings.Contains(got, "declined: the server asked for a model's completion (sampling), but mcpcode has no model of its own") {
				t.Errorf("sample: %s", got)
			}
			p2, _ := askingPool(t, era, PoolOptions{Handlers: &ClientHandlers{NoElicit: "there is no terminal to ask the person in"}})
			if got := callOutcome(t, p2, ctx, "asking", "ask"); !strings.Contains(got, "but there is no terminal to ask the person in") {
				t.Errorf("ask with a reason: %s", got)
			}
		})
	}
}

func TestElicitationIsAnsweredByTheDefaultHandlers(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			var asked *ElicitRequest
			p, _ := askingPool(t, era, PoolOptions{Handlers: &ClientHandlers{
				Elicit: func(_ context.Context, r *ElicitRequest) (*mcp.ElicitResult, error) {
					asked = r
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
				},
				Sample: func(context.Context, *SampleRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Model: "host-model", Role: "assistant", Content: &mcp.TextContent{Text: "hello"}}, nil
				},
			}})
			if got := callOutcome(t, p, context.Background(), "asking", "ask"); got != "accept Ada" {
				t.Errorf("ask: %q", got)
			}
			if asked == nil || asked.Server != "asking" || asked.Params.Message != "What is your name?" || strings.Join(asked.Order, ",") != "name" {
				t.Errorf("the handler got %+v", asked)
			}
			if got := callOutcome(t, p, context.Background(), "asking", "sample"); got != "model host-model" {
				t.Errorf("sample: %q", got)
			}
		})
	}
}

type requesterKey struct{}

// TestServerRequestsAreRoutedToTheCallersHandlers: a question goes to the
// handlers of the call it is about (not the pool's default), in the
// context of that call. A legacy server's own request cannot say which
// call it is about: it is declined when calls of two different requesters
// are in flight on that server. A modern server's question is part of the
// answer to one call, so it reaches that call's requester even then.
func TestServerRequestsAreRoutedToTheCallersHandlers(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			answer := func(name string) *ClientHandlers {
				return &ClientHandlers{Elicit: func(ctx context.Context, _ *ElicitRequest) (*mcp.ElicitResult, error) {
					who, _ := ctx.Value(requesterKey{}).(string)
					if era == "modern" && who != name {
						return nil, fmt.Errorf("%s's handler runs in the context of %q's call", name, who)
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
				}}
			}
			p, release := askingPool(t, era, PoolOptions{Handlers: answer("default")})
			alice, bob := answer("alice"), answer("bob")
			aliceCtx := WithClientHandlers(context.WithValue(context.Background(), requesterKey{}, "alice"), alice)
			bobCtx := WithClientHandlers(context.WithValue(context.Background(), requesterKey{}, "bob"), bob)
			if got := callOutcome(t, p, bobCtx, "asking", "ask"); got != "accept bob" {
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
			got := callOutcome(t, p, bobCtx, "asking", "ask")
			if era == "legacy" && !strings.Contains(got, errAmbiguous.Error()) {
				t.Errorf("bob's call while alice's is in flight: %q, want it declined as ambiguous", got)
			}
			if era == "modern" && got != "accept bob" {
				t.Errorf("bob's call while alice's is in flight: %q, want bob asked", got)
			}
			if got := callOutcome(t, p, aliceCtx, "asking", "ask"); got != "accept alice" {
				t.Errorf("alice's second call while her first is in flight: %q", got)
			}
			close(release)
			if got := <-held; got != "released" {
				t.Errorf("hold: %q", got)
			}
			if got := callOutcome(t, p, context.WithValue(context.Background(), requesterKey{}, "default"), "asking", "ask"); got != "accept default" {
				t.Errorf("a call without handlers of its own: %q", got)
			}
		})
	}
}

func TestRoots(t *testing.T) {
	t.Parallel()
	for _, era := range eras {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			p, _ := askingPool(t, era, PoolOptions{DefaultRoots: []string{"/ws/workspace"}},
				ServerConfig{Name: "default", Transport: TransportStdio, Command: "unused"},
				ServerConfig{Name: "own", Transport: TransportStdio, Command: "unused", Roots: []string{"/data/a b", "/srv"}},
				ServerConfig{Name: "none", Transport: TransportStdio, Command: "unused", Roots: []string{}})
			ctx := context.Background()
			for server, want := range map[string]string{"default": "file:///ws/workspace", "own": "file:///data/a%20b file:///srv", "none": ""} {
				if got := callOutcome(t, p, ctx, server, "roots"); got != want {
					t.Errorf("%s: roots %q, want %q", server, got, want)
				}
			}
		})
	}
}
