package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptest"
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
