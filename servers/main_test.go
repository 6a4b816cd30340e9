package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as the stdio servers the process tests start:
// with MCPCODE_TEST_SERVER set it behaves as that server instead of testing.
func TestMain(m *testing.M) {
	if role := os.Getenv("MCPCODE_TEST_SERVER"); role != "" {
		os.Exit(fakeServer(role))
	}
	os.Exit(m.Run())
}

func fakeServer(role string) int {
	switch role {
	case "hang":
		// Start a child that would outlive a careless parent, record both
		// pids, then never answer initialize.
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), "MCPCODE_TEST_SERVER=sleep")
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		pids := fmt.Sprintf("%d %d", os.Getpid(), child.Process.Pid)
		if err := os.WriteFile(os.Getenv("MCPCODE_TEST_PIDS"), []byte(pids), 0o644); err != nil {
			return 1
		}
		fmt.Fprintln(os.Stderr, "hang: waiting forever")
		select {}
	case "sleep":
		time.Sleep(time.Hour)
		return 0
	case "crash":
		fmt.Fprintln(os.Stderr, "starting up")
		fmt.Fprintln(os.Stderr, "fatal: MISSING_API_KEY is not set")
		return 3
	case "env":
		// A server whose one tool reports the environment it was given.
		s := mcp.NewServer(&mcp.Implementation{Name: "env", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "environ", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(os.Environ(), "\n")}}}, nil
			})
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	case "noisy":
		// A server that prints a banner on stdout before serving, and a
		// line of chatter in the middle of a call.
		fmt.Println("Starting Noisy MCP server...")
		fmt.Println("")
		fmt.Println("{not json either")
		s := mcp.NewServer(&mcp.Implementation{Name: "noisy", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "chatty", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fmt.Println("processing request... done")
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "fine"}}}, nil
			})
		if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	case "stubborn":
		// A server that keeps running after its stdin closes (until a
		// signal stops it).
		s := mcp.NewServer(&mcp.Implementation{Name: "stubborn", Version: "1"}, nil)
		s.AddTool(&mcp.Tool{Name: "environ", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		_ = s.Run(context.Background(), &mcp.StdioTransport{})
		select {}
	case "banner-crash":
		fmt.Println("Starting Broken MCP server...")
		fmt.Fprintln(os.Stderr, "Error: cannot find module 'zod'")
		return 1
	case "replay":
		return replayServer()
	case "silent-discover", "exit-on-discover", "future", "late-modern", "refuse-initialize", "exit-always":
		return eraServer(role)
	case "raw":
		var tools []json.RawMessage
		data, err := os.ReadFile(os.Getenv("MCPCODE_TEST_TOOLS"))
		if err == nil {
			err = json.Unmarshal(data, &tools)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		srv := &mcptest.RawServer{Name: "raw", Version: "1", Tools: tools, PageSize: 2}
		_ = srv.Serve(context.Background(), &mcp.StdioTransport{})
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown MCPCODE_TEST_SERVER role", role)
	return 2
}

// eraServer is a stdio server with one tool ("t") that opens as a role of
// the 2026-07-28 era rules asks (the probe tests, probe_test.go):
//   - silent-discover: a legacy server that never answers server/discover
//     (it answers ping and initialize);
//   - exit-on-discover: a legacy server that exits when its first request
//     is server/discover (as rmcp-based servers did);
//   - future: a modern server of a revision mcpcode does not speak;
//   - refuse-initialize: a legacy server that answers initialize with an
//     error of its own;
//   - late-modern: a 2026-07-28-only server slow to answer server/discover:
//     its first process answers it only once initialize arrives (which it
//     rejects, naming 2026-07-28); later processes answer it after 300 ms.
//     MCPCODE_TEST_STATE is a file marking that the first process ran;
//   - exit-always: a server that exits on its first request, whatever it
//     is.
//
// With MCPCODE_TEST_STARTS set, each process appends its pid to that file.
func eraServer(role string) int {
	if starts := os.Getenv("MCPCODE_TEST_STARTS"); starts != "" {
		f, err := os.OpenFile(starts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return 1
		}
		fmt.Fprintln(f, os.Getpid())
		f.Close()
	}
	srv := &mcptest.RawServer{Name: role, Version: "1", Tools: []json.RawMessage{json.RawMessage(`{"name":"t","inputSchema":{"type":"object"}}`)}}
	unsupported := func(supported ...string) error {
		data, _ := json.Marshal(map[string]any{"supported": supported})
		return &jsonrpc.Error{Code: mcp.CodeUnsupportedProtocolVersion, Message: "Unsupported protocol version", Data: data}
	}
	discovered := func(versions ...string) any {
		return map[string]any{"resultType": "complete", "supportedVersions": versions, "capabilities": map[string]any{"tools": map[string]any{}},
			"_meta": map[string]any{mcp.MetaKeyServerInfo: map[string]any{"name": role, "version": "1"}}}
	}
	first := false
	if role == "late-modern" {
		state := os.Getenv("MCPCODE_TEST_STATE")
		if _, err := os.Stat(state); err != nil {
			first = true
			_ = os.WriteFile(state, []byte("ran"), 0o644)
		}
	}
	initialized := make(chan struct{})
	var once sync.Once
	srv.Intercept = func(ctx context.Context, method string, _ json.RawMessage) (any, error, bool) {
		switch role + " " + method {
		case "silent-discover server/discover":
			return nil, mcptest.NoAnswer, true
		case "exit-always server/discover", "exit-always initialize":
			os.Exit(1)
		case "exit-on-discover server/discover":
			fmt.Fprintln(os.Stderr, "Error: ExpectedInitializeRequest(server/discover)")
			os.Exit(1)
		case "future server/discover":
			return discovered("2099-01-01"), nil, true
		case "future initialize":
			return nil, unsupported("2099-01-01"), true
		case "refuse-initialize initialize":
			return nil, &jsonrpc.Error{Code: -32603, Message: "the database is not reachable"}, true
		case "late-modern initialize":
			once.Do(func() { close(initialized) })
			return nil, unsupported(modernProtocolVersion), true
		case "late-modern server/discover":
			if first {
				select {
				case <-initialized:
				case <-ctx.Done():
				}
			} else {
				time.Sleep(300 * time.Millisecond)
			}
			return discovered(modernProtocolVersion), nil, true
		}
		return nil, nil, false
	}
	_ = srv.Serve(context.Background(), &mcp.StdioTransport{})
	return 0
}
