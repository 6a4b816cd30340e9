package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connect starts a fresh demo server on in-memory transports and returns a
// client session to it; both are closed when the test ends.
func connect(t testing.TB, name string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	srv, err := New(name)
	if err != nil {
		t.Fatalf("New(%q): %v", name, err)
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0.0.0"}, nil)
	cs, err := client.Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// call invokes a tool and fails the test on a protocol error. Tool errors
// are returned as results with IsError set.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool(%s, %v): %v", tool, args, err)
	}
	return res
}

// resultText returns the text of a result's single text content block.
func resultText(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("got %d content blocks, want 1", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want *mcp.TextContent", res.Content[0])
	}
	return tc.Text
}

// callOK invokes a tool that must succeed and decodes its JSON text into out.
func callOK(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any, out any) string {
	t.Helper()
	res := call(t, cs, tool, args)
	text := resultText(t, res)
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, text)
	}
	if out != nil {
		callOKText(t, text, out)
	}
	return text
}

// callOKText decodes a successful result's JSON text into out.
func callOKText(t testing.TB, text string, out any) {
	t.Helper()
	if err := json.Unmarshal([]byte(text), out); err != nil {
		t.Fatalf("result is not JSON: %v\n%.300s", err, text)
	}
}

// callErr invokes a tool that must fail with a tool error whose message
// contains every string of want.
func callErr(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any, want ...string) {
	t.Helper()
	res := call(t, cs, tool, args)
	text := resultText(t, res)
	if !res.IsError {
		t.Fatalf("%s(%v) succeeded, want a tool error; result: %.300s", tool, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s(%v) error %q does not contain %q", tool, args, text, w)
		}
	}
}

// ordersSheet fetches sheet abc123 once per test binary: a 10,000-row
// round trip takes seconds under -race, and several tests read it.
var ordersSheet struct {
	once  sync.Once
	text  string
	sheet sheetOut
	err   error
}

// fetchOrders returns sheet abc123 as served by a fresh google-drive server:
// the raw JSON text and its decoded form.
func fetchOrders(t testing.TB) (string, sheetOut) {
	t.Helper()
	ordersSheet.once.Do(func() {
		ordersSheet.text, ordersSheet.err = fetchText("google-drive", "getSheet", map[string]any{"sheetId": "abc123"})
		if ordersSheet.err == nil {
			ordersSheet.err = json.Unmarshal([]byte(ordersSheet.text), &ordersSheet.sheet)
		}
	})
	if ordersSheet.err != nil {
		t.Fatalf("fetching sheet abc123: %v", ordersSheet.err)
	}
	return ordersSheet.text, ordersSheet.sheet
}

// fetchText calls one tool on a fresh server of its own and returns the
// result text; a tool error is returned as an error.
func fetchText(server, tool string, args map[string]any) (string, error) {
	ctx := context.Background()
	srv, err := New(server)
	if err != nil {
		return "", err
	}
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverT, nil)
	if err != nil {
		return "", err
	}
	defer ss.Wait()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "demo-test", Version: "0.0.0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		return "", err
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "", err
	}
	if len(res.Content) != 1 {
		return "", fmt.Errorf("%s returned %d content blocks, want 1", tool, len(res.Content))
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if res.IsError {
		return "", fmt.Errorf("%s failed: %s", tool, text)
	}
	return text, nil
}
