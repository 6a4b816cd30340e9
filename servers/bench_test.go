package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// echoServer is a go-sdk server with one small read-only tool.
func echoServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "echo", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"number"}}}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(req.Params.Arguments)}}}, nil
		})
	return s
}

const benchCalls = 100

// BenchmarkCallDirectGoSDK is the baseline: go-sdk's own CallTool on an
// in-process server, benchCalls sequential calls per op.
func BenchmarkCallDirectGoSDK(b *testing.B) {
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	go func() { _ = echoServer().Run(ctx, st) }()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	for b.Loop() {
		for i := range benchCalls {
			if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"n": i}}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
}

// BenchmarkCallThroughBridge makes the same calls from a program in the
// runtime (in-process isolation): the pool, argument validation and the
// JavaScript bridge included. Program start is amortized over the calls.
func BenchmarkCallThroughBridge(b *testing.B) {
	ctx := context.Background()
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "echo", Transport: TransportStdio, Command: "unused"}}}
	pool := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Dial: func(context.Context, ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = echoServer().Run(ctx, st) }()
		return ct, nil
	}})
	defer pool.Close()
	src := fmt.Sprintf(`import { callMCPTool } from "mcpcode:runtime";
for (let i = 0; i < %d; i++) await callMCPTool("echo", "echo", { n: i });
`, benchCalls)
	ws := b.TempDir()
	prog, err := runtime.Bundle(runtime.BundleOptions{Workspace: ws, Entry: ws + "/bench.ts", Source: []byte(src)})
	if err != nil {
		b.Fatal(err)
	}
	opts := runtime.RunOptions{Workspace: ws, Caller: pool, Limits: runtime.DefaultLimits()}
	if r := runtime.Run(ctx, prog, opts); !r.OK { // connect once, outside the timing
		b.Fatal(r.Error)
	}
	for b.Loop() {
		if r := runtime.Run(ctx, prog, opts); !r.OK {
			b.Fatal(r.Error)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchCalls), "ns/call")
}

// BenchmarkRunStopsStdioServer is what a `run` of a program calling one
// stdio server pays after the program ends: the pool stopping the server.
// Each op starts the server (this test binary as a go-sdk stdio server),
// runs a program making one call, then closes the pool; only the close is
// timed, reported as ms-after-program-end. The "exits-on-stdin-close"
// server is the common case (go-sdk and the TypeScript SDK exit when stdin
// closes); "ignores-stdin-close" keeps running until SIGTERM, which it gets
// after the grace period.
func BenchmarkRunStopsStdioServer(b *testing.B) {
	for _, c := range []struct{ name, role string }{{"exits-on-stdin-close", "env"}, {"ignores-stdin-close", "stubborn"}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			ws := b.TempDir()
			prog, err := runtime.Bundle(runtime.BundleOptions{Workspace: ws, Entry: ws + "/bench.ts",
				Source: []byte(`import { callMCPTool } from "mcpcode:runtime"; await callMCPTool("srv", "environ", {});`)})
			if err != nil {
				b.Fatal(err)
			}
			cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "srv", Transport: TransportStdio,
				Command: os.Args[0], Env: map[string]string{"MCPCODE_TEST_SERVER": c.role}}}}
			var stopping time.Duration
			for b.Loop() {
				b.StopTimer()
				pool := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second})
				if r := runtime.Run(ctx, prog, runtime.RunOptions{Workspace: ws, Caller: pool, Limits: runtime.DefaultLimits()}); !r.OK {
					b.Fatal(r.Error)
				}
				b.StartTimer()
				start := time.Now()
				_ = pool.Close()
				stopping += time.Since(start)
			}
			b.ReportMetric(float64(stopping.Microseconds())/1000/float64(b.N), "ms-after-program-end")
		})
	}
}
