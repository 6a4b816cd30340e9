package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/session"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernAsker is a 2026-07-28 upstream whose "ask" asks the client who
// it is, by an input_required round, and answers with the answer.
func modernAsker() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "modern-asker", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, ok := req.Params.InputResponses["who"].(*mcp.ElicitResult)
		if !ok {
			return &mcp.CallToolResult{RequestState: "asked", InputRequests: mcp.InputRequestMap{"who": &mcp.ElicitParams{Message: "Who is asking?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"}}}`)}}}, nil
		}
		who, _ := res.Content["zeta"].(string)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: res.Action + " " + who}}}, nil
	})
	return s
}

// sessionOf serves a workspace whose one server "up" is upstream(), each
// connection a fresh one, through a workspace session.
func sessionOf(t *testing.T, upstream func() *mcp.Server) *app.Workspace {
	t.Helper()
	if !session.Supported {
		t.Skip("sessions need Linux")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{"mcpServers":{"up":{"command":"unused"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &app.App{Dial: func(ctx context.Context, _ servers.ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = upstream().Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}}
	ws, err := a.Open(app.OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done, ready := make(chan error, 1), make(chan struct{})
	go func() {
		done <- ServeSession(ctx, ws, SessionOptions{Ready: func(session.Status) { close(ready) }})
	}()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the session did not start: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the session never listened")
	}
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return ws
}

// TestAdversarialSessionRoutesQuestionsToTheirOwnRun: two runs call the
// same upstream server through one workspace session at once; the
// server's question during each call reaches the run that made that call
// and no other. A 2026-07-28 server's question (an input_required round)
// belongs to its call, so each run is asked its own while the other's
// question is still out; an older server's question (a request of its
// own) cannot say which call it is about, so while both runs' calls are
// in flight it is declined, never put to the other run.
func TestAdversarialSessionRoutesQuestionsToTheirOwnRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		era      string
		upstream func() *mcp.Server
	}{{"modern", modernAsker}, {"legacy", statefulUpstream}} {
		t.Run(tc.era, func(t *testing.T) {
			t.Parallel()
			ws := sessionOf(t, tc.upstream)
			var aliceAsked, bobAsked atomic.Int32
			aliceIn, aliceGo := make(chan struct{}), make(chan struct{})
			dial := func(h *servers.ClientHandlers) *servers.Session {
				s, err := servers.DialSession(t.Context(), ws.Session(), servers.SessionOptions{Handlers: h})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				return s
			}
			alice := dial(&servers.ClientHandlers{Elicit: func(ctx context.Context, _ *servers.ElicitRequest) (*mcp.ElicitResult, error) {
				if aliceAsked.Add(1) == 1 {
					close(aliceIn)
				}
				select { // alice takes her time: bob's call comes meanwhile
				case <-aliceGo:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"zeta": "alice"}}, nil
			}})
			bob := dial(&servers.ClientHandlers{Elicit: func(context.Context, *servers.ElicitRequest) (*mcp.ElicitResult, error) {
				bobAsked.Add(1)
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"zeta": "bob"}}, nil
			}})
			aliceGot := make(chan string, 1)
			go func() {
				res, err := alice.CallTool(t.Context(), "up", "ask", json.RawMessage(`{}`))
				if err != nil {
					aliceGot <- "error: " + err.Error()
					return
				}
				aliceGot <- res.Text()
			}()
			select {
			case <-aliceIn:
			case got := <-aliceGot:
				t.Fatalf("alice's call ended before she was asked: %s", got)
			}
			res, err := bob.CallTool(t.Context(), "up", "ask", json.RawMessage(`{}`))
			bobGot := ""
			if err != nil {
				bobGot = "error: " + err.Error()
			} else {
				bobGot = res.Text()
			}
			close(aliceGo)
			if got := <-aliceGot; got != "accept alice" {
				t.Errorf("alice's call: %q", got)
			}
			if n := aliceAsked.Load(); n != 1 {
				t.Errorf("alice was asked %d times, want once (her own question)", n)
			}
			switch tc.era {
			case "modern":
				if bobGot != "accept bob" || bobAsked.Load() != 1 {
					t.Errorf("bob's call: %q, asked %d times; want bob asked his own question", bobGot, bobAsked.Load())
				}
			case "legacy":
				if !strings.Contains(bobGot, "several programs are calling this server at once") || bobAsked.Load() != 0 {
					t.Errorf("bob's call: %q, asked %d times; want his question declined as ambiguous", bobGot, bobAsked.Load())
				}
			}
		})
	}
}
