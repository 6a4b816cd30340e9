package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// BenchmarkConnect is what connecting to one server costs a run, gen or
// tools: start it (stdio), open the session at the newest revision both
// speak, list its tools, stop it. Each op is one connect of a fresh pool.
// The go-sdk servers are this test binary; the others are the pinned npm
// servers (testdata/npm, installed by make test), started with node.
func BenchmarkConnect(b *testing.B) {
	nm, err := filepath.Abs(filepath.Join("..", "testdata", "npm", "node_modules"))
	if err != nil {
		b.Fatal(err)
	}
	self := func(role string) ServerConfig {
		return ServerConfig{Transport: TransportStdio, Command: os.Args[0], Env: map[string]string{"MCPCODE_TEST_SERVER": role}}
	}
	nodeServer := func(pkg string, args ...string) ServerConfig {
		script := filepath.Join(nm, filepath.FromSlash(pkg))
		if _, err := os.Stat(script); err != nil {
			b.Fatalf("%s is not installed (make test installs it): %v", pkg, err)
		}
		return ServerConfig{Transport: TransportStdio, Command: "node", Args: append([]string{script}, args...),
			Env: map[string]string{"NPM_DIR": filepath.Dir(nm), "MEMORY_FILE_PATH": filepath.Join(b.TempDir(), "memory.jsonl")}}
	}
	for _, c := range []struct {
		name string
		cfg  ServerConfig
	}{
		{"go-sdk-2026-07-28", self("env")},
		{"legacy", ServerConfig{Transport: TransportStdio, Command: os.Args[0], Env: map[string]string{"MCPCODE_TEST_SERVER": "raw", "MCPCODE_TEST_TOOLS": writeTools(b)}}},
		{"legacy-silent-to-discover", self("silent-discover")},
		{"legacy-exits-on-discover", self("exit-on-discover")},
		{"server-everything", nodeServer("@modelcontextprotocol/server-everything/dist/index.js", "stdio")},
		{"server-filesystem", nodeServer("@modelcontextprotocol/server-filesystem/dist/index.js", b.TempDir())},
		{"server-memory", nodeServer("@modelcontextprotocol/server-memory/dist/index.js")},
		{"time-mcp", nodeServer("time-mcp/dist/index.js")},
		{"ts-sdk-v2-2026-07-28-only", nodeServer("../../mcp2026/server.mjs", "stdio")},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.cfg.Name = "s"
			env := []string{"PATH=" + os.Getenv("PATH")}
			var version string
			for b.Loop() {
				p := NewPool(&Config{Path: "mcp.json", Servers: []ServerConfig{c.cfg}}, PoolOptions{ConnectTimeout: 30 * time.Second, BaseEnv: env})
				l, err := p.Connect(context.Background(), "s")
				if err != nil {
					b.Fatal(err)
				}
				version = l.ProtocolVersion
				_ = p.Close()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/connect")
			b.Logf("%s: MCP %s", c.name, version)
		})
	}
}

func writeTools(b *testing.B) string {
	path := filepath.Join(b.TempDir(), "tools.json")
	if err := os.WriteFile(path, []byte(`[{"name":"t","inputSchema":{"type":"object"}}]`), 0o644); err != nil {
		b.Fatal(err)
	}
	return path
}
