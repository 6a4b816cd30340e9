// Package mcptest holds the fakes tests and benchmarks share; only tests
// import it. RawServer is an in-process MCP server that answers tools/list
// with tool definitions exactly as given (bytes untouched, as a real server
// in another language would send them), which go-sdk's own Server cannot
// do for schemas without "type".
// FakeCaller plays the runtime fixture's servers (runtime/testdata/ws) for
// the runtime's and the worker's tests; DemoCaller and CopyDemoTree give
// the skills' and the app's tests the demo workspace's tree and tools.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallFunc answers one tools/call; the returned value is sent as the result
// (a CallToolResult shape). An error becomes a JSON-RPC error.
type CallFunc func(ctx context.Context, tool string, args json.RawMessage) (any, error)

// RawServer is a minimal MCP server speaking JSON-RPC directly.
type RawServer struct {
	Name, Version string
	Instructions  string
	Tools         []json.RawMessage
	PageSize      int      // tools per tools/list page; 0 = all in one page
	Call          CallFunc // nil answers every call with an echo of its arguments
	// Intercept, when set, sees every request first (ahead of the built-in
	// answers, which know no server/discover): handled reports that it
	// answered with result or err, or not at all when err is NoAnswer.
	Intercept func(ctx context.Context, method string, params json.RawMessage) (result any, err error, handled bool)

	// InFlight and MaxInFlight count concurrent tools/call requests.
	InFlight, MaxInFlight atomic.Int64
	Calls                 atomic.Int64

	mu    sync.Mutex
	conns []mcp.Connection
}

// Serve answers requests on t until the connection closes or ctx ends.
func (s *RawServer) Serve(ctx context.Context, t mcp.Transport) error {
	conn, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.conns = append(s.conns, conn)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.conns = slices.DeleteFunc(s.conns, func(c mcp.Connection) bool { return c == conn })
		s.mu.Unlock()
		conn.Close()
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			return nil
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.ID.IsValid() {
			continue // notifications and responses need no answer
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			result, err := s.handle(ctx, req)
			if errors.Is(err, NoAnswer) {
				return
			}
			resp := &jsonrpc.Response{ID: req.ID}
			if err != nil {
				resp.Error = err
			} else if resp.Result, err = json.Marshal(result); err != nil {
				resp.Error = err
			}
			_ = conn.Write(ctx, resp)
		}()
	}
}

// NotifyToolsChanged sends notifications/tools/list_changed on every open connection.
func (s *RawServer) NotifyToolsChanged(ctx context.Context) error {
	n := &jsonrpc.Request{Method: "notifications/tools/list_changed", Params: json.RawMessage(`{}`)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.conns {
		if err := c.Write(ctx, n); err != nil {
			return err
		}
	}
	return nil
}

// SetTools replaces the tool list (for list_changed tests).
func (s *RawServer) SetTools(tools []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Tools = tools
}

// NoAnswer, returned by an Intercept, leaves a request unanswered.
var NoAnswer = errors.New("mcptest: no answer")

func (s *RawServer) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	if s.Intercept != nil {
		if result, err, handled := s.Intercept(ctx, req.Method, req.Params); handled {
			return result, err
		}
	}
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(req.Params, &p)
		return map[string]any{
			"protocolVersion": p.ProtocolVersion,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
			"serverInfo":      map[string]any{"name": s.Name, "version": s.Version},
			"instructions":    s.Instructions,
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return s.page(req.Params)
	case "tools/call":
		var p struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, err
		}
		s.Calls.Add(1)
		n := s.InFlight.Add(1)
		for {
			m := s.MaxInFlight.Load()
			if n <= m || s.MaxInFlight.CompareAndSwap(m, n) {
				break
			}
		}
		defer s.InFlight.Add(-1)
		if s.Call == nil {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": string(p.Arguments)}}}, nil
		}
		return s.Call(ctx, p.Name, p.Arguments)
	}
	return nil, &jsonrpc.Error{Code: -32601, Message: "method not found: " + req.Method}
}

// page returns one page of the tool list; cursors are decimal offsets.
func (s *RawServer) page(params json.RawMessage) (any, error) {
	var p struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(params, &p)
	s.mu.Lock()
	tools := s.Tools
	s.mu.Unlock()
	start := 0
	if p.Cursor != "" {
		n, err := strconv.Atoi(p.Cursor)
		if err != nil || n < 0 || n > len(tools) {
			return nil, fmt.Errorf("bad cursor %q", p.Cursor)
		}
		start = n
	}
	end := len(tools)
	if s.PageSize > 0 && start+s.PageSize < end {
		end = start + s.PageSize
	}
	page := map[string]any{"tools": nonNil(tools[start:end])}
	if end < len(tools) {
		page["nextCursor"] = strconv.Itoa(end)
	}
	return page, nil
}

func nonNil(t []json.RawMessage) []json.RawMessage {
	if t == nil {
		return []json.RawMessage{}
	}
	return t
}
