package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// runV2Host runs testdata/serve-client-2026.mjs (a host on protocol
// 2026-07-28 written with the TypeScript SDK v2 client) and returns its
// output; it fails the test when the driver does.
func runV2Host(t *testing.T, args ...string) string {
	t.Helper()
	node, path := node22(t)
	npm := npmPackageDir(t, "@modelcontextprotocol/client")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("testdata", "serve-client-2026.mjs")}, args...)...)
	cmd.Env = append(os.Environ(), path, "NPM_DIR="+filepath.Dir(filepath.Dir(filepath.Dir(npm))))
	var stderr syncBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript SDK v2 host failed: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	return string(out)
}

// TestServeWith2026Hosts: a host on protocol 2026-07-28 (the official
// TypeScript SDK v2 client) on each face of `mcpcode serve` (stdio,
// --http, --http --stateless): a read-only execute asks nobody; an
// execute whose write the person confirms with a plain accept changes the
// demo record (an input_required round of execute); one the person
// declines leaves it as it was.
func TestServeWith2026Hosts(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(binary)))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	want := []string{"ok connected mcpcode 2026-07-28", "ok read-only execute: Working - Contacted",
		"ok write confirmed by a plain accept: Working - Contacted -> Qualified", "ok write declined: record unchanged Qualified"}
	for _, face := range []struct {
		name string
		args func(t *testing.T) []string
	}{
		{"stdio", func(*testing.T) []string { return []string{"stdio", binary, ws} }},
		{"http", func(t *testing.T) []string {
			return []string{"http", startServeHTTP(t, ws, nil, "--timeout", slowTimeout)}
		}},
		{"http stateless", func(t *testing.T) []string {
			return []string{"http", startServeHTTP(t, ws, nil, "--stateless", "--timeout", slowTimeout)}
		}},
	} {
		t.Run(face.name, func(t *testing.T) {
			t.Parallel()
			out := runV2Host(t, face.args(t)...)
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("missing %q in:\n%s", w, out)
				}
			}
		})
	}
}

// countingDemo serves the salesforce demo server over (stateless)
// streamable HTTP from this test, as replicas share an HTTP upstream
// server, with a middleware that counts every tool call it gets by tool and
// arguments.
type countingDemo struct {
	mu    sync.Mutex
	calls map[string]int
}

func startCountingDemo(t *testing.T) (*countingDemo, string) {
	t.Helper()
	srv, err := demo.New("salesforce")
	if err != nil {
		t.Fatal(err)
	}
	c := &countingDemo{calls: map[string]int{}}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
				var args any
				_ = json.Unmarshal(p.Arguments, &args)
				canonical, _ := json.Marshal(args) // map keys sorted
				c.mu.Lock()
				c.calls[p.Name+" "+string(canonical)]++
				c.mu.Unlock()
			}
			return next(ctx, method, req)
		}
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true}))
	t.Cleanup(hs.Close)
	return c, hs.URL
}

func (c *countingDemo) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.calls {
		out[k] = v
	}
	return out
}

// TestServe2026ReplicasConfirmWrites: two `serve --http --stateless`
// replicas of one workspace behind a proxy that sends each tools/call to
// the other replica in turn. A host on protocol 2026-07-28 (TypeScript SDK
// v2) runs one execute with two writes, each confirmed with a plain
// accept: three rounds, each retry on the replica that did not ask. The
// run completes, both writes are made, and the upstream server sees every
// call exactly once.
func TestServe2026ReplicasConfirmWrites(t *testing.T) {
	e2e(t)
	t.Parallel()
	counts, demoURL := startCountingDemo(t)
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"salesforce": {"type": "http", "url": %q}}}`, demoURL))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	before := counts.snapshot() // gen lists tools and calls none
	replicas := []string{startServeHTTP(t, ws, nil, "--stateless", "--timeout", slowTimeout), startServeHTTP(t, ws, nil, "--stateless", "--timeout", slowTimeout)}
	var mu sync.Mutex
	var next int
	var calls []string
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		body, _ := io.ReadAll(r.In.Body)
		r.Out.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				RequestState string `json:"requestState"`
			} `json:"params"`
		}
		_ = json.Unmarshal(body, &msg)
		mu.Lock()
		i := next
		next = (next + 1) % 2
		if msg.Method == "tools/call" {
			entry := fmt.Sprintf("replica %d", i)
			if msg.Params.RequestState != "" {
				entry += " (retry)"
			}
			calls = append(calls, entry)
		}
		mu.Unlock()
		u, _ := url.Parse(replicas[i])
		r.SetURL(u)
		r.Out.URL.Path = u.Path
		r.Out.Host = u.Host
	}})
	t.Cleanup(proxy.Close)

	out := runV2Host(t, "replicas", proxy.URL+"/mcp")
	if !strings.Contains(out, "ok replicas: two writes confirmed") {
		t.Errorf("the host's run: %s", out)
	}
	mu.Lock()
	got := append([]string(nil), calls...)
	mu.Unlock()
	if len(got) != 3 || !strings.HasSuffix(got[1], "(retry)") || !strings.HasSuffix(got[2], "(retry)") ||
		got[0][:9] == got[1][:9] || got[1][:9] == got[2][:9] {
		t.Errorf("the execute calls went %q: want three, each retry on the other replica", got)
	}
	sent := counts.snapshot()
	n := 0
	for k, c := range sent {
		if c-before[k] != 1 {
			t.Errorf("%s reached the demo server %d times, want once", k, c-before[k])
		}
		n++
	}
	if n != 5 {
		t.Errorf("the demo server saw %d different calls, want 5 (3 queries, 2 updates): %v", n, sent)
	}
}
