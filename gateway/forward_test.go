package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// askingUpstream is an upstream server whose read-only tools ask the client
// of mcpcode: "ask" elicits a name, "sample" asks for a completion. It
// speaks the revisions before 2026-07-28 only, in which a server asks by
// requests of its own during the call (on 2026-07-28 it would answer
// input_required instead, and go-sdk refuses Session.Elicit there).
func askingUpstream() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"},
		&mcp.ServerOptions{SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}})
	ro := &mcp.ToolAnnotations{ReadOnlyHint: true}
	obj := json.RawMessage(`{"type":"object"}`)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: obj, Annotations: ro}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Your name?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)})
		if err != nil {
			return text("error: " + err.Error()), nil
		}
		name, _ := res.Content["name"].(string)
		return text(res.Action + " " + name), nil
	})
	s.AddTool(&mcp.Tool{Name: "sample", InputSchema: obj, Annotations: ro}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}})
		if err != nil {
			return text("error: " + err.Error()), nil
		}
		return text("model " + res.Model), nil
	})
	return s
}

func askingWorkspace(t *testing.T) *app.Workspace {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{"mcpServers": {"asking": {"command": "unused"}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a := &app.App{Dial: func(ctx context.Context, _ servers.ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = askingUpstream().Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}}
	ws, err := a.Open(app.OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

const askProgram = `import { callMCPTool } from "mcpcode:runtime";
const r: any = await callMCPTool("asking", "ask", {});
console.log("answer:", r.content[0].text);`

// TestUpstreamRequestsAreForwardedToTheHost: an upstream server's
// elicitation during a call of a program run by execute reaches the host
// session that ran it (and only that one), and its answer reaches the
// program; sampling likewise; a host that cannot answer gets nothing, and
// the program sees why.
func TestUpstreamRequestsAreForwardedToTheHost(t *testing.T) {
	t.Parallel()
	ws := askingWorkspace(t)
	g, err := New(ws, Options{Isolation: app.IsolationNone})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	type host struct {
		sess  *mcp.ClientSession
		mu    sync.Mutex
		asked []string
	}
	newHost := func(answer string, capable bool) *host {
		h := &host{}
		opts := &mcp.ClientOptions{}
		if capable {
			opts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				h.mu.Lock()
				h.asked = append(h.asked, r.Params.Message)
				h.mu.Unlock()
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": answer}}, nil
			}
			opts.CreateMessageHandler = func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
				return &mcp.CreateMessageResult{Model: answer + "-model", Role: "assistant", Content: &mcp.TextContent{Text: "hello"}}, nil
			}
		}
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = g.Run(ctx, st) }()
		sess, err := mcp.NewClient(&mcp.Implementation{Name: "host-" + answer, Version: "1"}, opts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sess.Close() })
		h.sess = sess
		return h
	}
	ada, bob, mute := newHost("Ada", true), newHost("Bob", true), newHost("Mute", false)

	if _, text := call(t, ada.sess, toolExecute, map[string]any{"code": askProgram}); !strings.Contains(text, "answer: accept Ada") {
		t.Errorf("Ada's run: %s", text)
	}
	if _, text := call(t, bob.sess, toolExecute, map[string]any{"code": askProgram}); !strings.Contains(text, "answer: accept Bob") {
		t.Errorf("Bob's run: %s", text)
	}
	if len(ada.asked) != 1 || len(bob.asked) != 1 {
		t.Errorf("each host must be asked exactly for its own run: Ada %q, Bob %q", ada.asked, bob.asked)
	}
	if want := `The MCP server "asking" (called by a program run through mcpcode) asks: Your name?`; len(ada.asked) == 1 && ada.asked[0] != want {
		t.Errorf("the host was asked %q, want %q", ada.asked[0], want)
	}
	if _, text := call(t, mute.sess, toolExecute, map[string]any{"code": askProgram}); !strings.Contains(text, "the agent host cannot be asked: it does not support MCP elicitation") {
		t.Errorf("a host without elicitation: %s", text)
	}
	sample := `import { callMCPTool } from "mcpcode:runtime";
const r: any = await callMCPTool("asking", "sample", {});
console.log(r.content[0].text);`
	if _, text := call(t, bob.sess, toolExecute, map[string]any{"code": sample}); !strings.Contains(text, "model Bob-model") {
		t.Errorf("sampling through Bob's host: %s", text)
	}
	if _, text := call(t, mute.sess, toolExecute, map[string]any{"code": sample}); !strings.Contains(text, "does not support MCP sampling") {
		t.Errorf("sampling through a host without it: %s", text)
	}
}

// TestUpstreamRequestsReachModernHostsAsRounds: for a host on protocol
// 2026-07-28, an upstream server's elicitation or sampling during a call of
// the host's run is a round of the host's execute (input_required), and
// the host's answer reaches the upstream server; a host that did not
// declare the capability is not asked, and the program sees why.
func TestUpstreamRequestsReachModernHostsAsRounds(t *testing.T) {
	t.Parallel()
	ws := askingWorkspace(t)
	g := newTestGateway(t, ws, Options{})
	var asked []string
	var mu sync.Mutex
	ada := connectModernTo(t, g, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			mu.Lock()
			asked = append(asked, r.Params.Message)
			mu.Unlock()
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageHandler: func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			return &mcp.CreateMessageResult{Model: "Ada-model", Role: "assistant", Content: &mcp.TextContent{Text: "hello"}}, nil
		},
	})
	if _, text := call(t, ada, toolExecute, map[string]any{"code": askProgram}); !strings.Contains(text, "answer: accept Ada") {
		t.Errorf("the upstream question through a modern host: %s", text)
	}
	if want := `The MCP server "asking" (called by a program run through mcpcode) asks: Your name?`; len(asked) != 1 || asked[0] != want {
		t.Errorf("the host was asked %q, want once %q", asked, want)
	}
	sample := `import { callMCPTool } from "mcpcode:runtime";
const r: any = await callMCPTool("asking", "sample", {});
console.log(r.content[0].text);`
	if _, text := call(t, ada, toolExecute, map[string]any{"code": sample}); !strings.Contains(text, "model Ada-model") {
		t.Errorf("sampling through a modern host: %s", text)
	}
	mute := connectModernTo(t, g, &mcp.ClientOptions{})
	if _, text := call(t, mute, toolExecute, map[string]any{"code": askProgram}); !strings.Contains(text, "the agent host cannot be asked: it did not declare the elicitation capability") {
		t.Errorf("a modern host without elicitation: %s", text)
	}
	if _, text := call(t, mute, toolExecute, map[string]any{"code": sample}); !strings.Contains(text, "did not declare the sampling capability") {
		t.Errorf("sampling through a modern host without it: %s", text)
	}
}
