package servers

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStdioSkipsLinesThatAreNotJSON: a banner before initialize and a line
// of chatter in the middle of a call are skipped and logged; the
// connection and the calls after it work.
func TestStdioSkipsLinesThatAreNotJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "noisy", "noisy", nil)}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second, LogDir: dir})
	l, err := p.Connect(context.Background(), "noisy")
	if err != nil {
		t.Fatalf("a banner on stdout broke the connection: %v", err)
	}
	if _, ok := l.Tool("chatty"); !ok {
		t.Fatalf("tools: %v", l.Tools)
	}
	for i := range 3 {
		res, err := p.CallTool(context.Background(), "noisy", "chatty", nil)
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if res.Text() != "fine" {
			t.Errorf("call %d: %q", i, res.Text())
		}
	}
	p.Close()
	data, err := os.ReadFile(filepath.Join(dir, "noisy.log"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"[stdout, not JSON-RPC, skipped] Starting Noisy MCP server...\n",
		"[stdout, not JSON-RPC, skipped] {not json either\n",
		"[stdout, not JSON-RPC, skipped] processing request... done\n",
	} {
		if !strings.Contains(string(data), want) {
			t.Errorf("the log lacks %q:\n%s", want, data)
		}
	}
}

// TestStdioServerThatDiesAfterABannerQuotesIt: the error of a server that
// printed a line and exited quotes that line.
func TestStdioServerThatDiesAfterABannerQuotesIt(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "broken", "banner-crash", nil)}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second, LogDir: dir})
	defer p.Close()
	_, err := p.Connect(context.Background(), "broken")
	var se *ServerError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a ServerError", err)
	}
	want := `server "broken": the server exited with status 1 before answering initialize; it printed on stdout "Starting Broken MCP server...", which is not JSON-RPC (skipped)`
	if err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
	detail := "\nlines it printed on stdout that are not JSON-RPC (skipped):\n  Starting Broken MCP server...\nlast lines of its stderr (full log: " + filepath.Join(dir, "broken.log") + "):\n  Error: cannot find module 'zod'"
	if !strings.HasSuffix(se.Detail(), detail) {
		t.Errorf("detail:\n%s\nwant the suffix%s", se.Detail(), detail)
	}
}

// TestConfigErrorFailsOnlyThatServer: a server whose mcp.json entry is
// broken fails every use with its configuration error; the others work.
func TestConfigErrorFailsOnlyThatServer(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]byte(`{"mcpServers": {
  "broken": {"type": "http", "url": "https://x.test/mcp", "headers": {"Authorization": "Bearer ${UNSET_TOKEN}"}},
  "noisy": {"command": "unused"}}}`), "/ws/mcp.json", envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	ok, _ := cfg.Server("noisy")
	ok.Command, ok.Env = os.Args[0], map[string]string{"MCPCODE_TEST_SERVER": "noisy"}
	cfg.Servers[1] = ok
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second})
	defer p.Close()
	want := `server "broken": mcp.json: server "broken": environment variable UNSET_TOKEN is not set (used in headers.Authorization); set it, or write ${UNSET_TOKEN:-default}`
	sts := p.ConnectAll(context.Background(), nil, nil)
	if len(sts) != 2 || sts[0].Name != "broken" || sts[0].Err == nil || sts[0].Err.Error() != want || sts[0].Transport != TransportHTTP {
		t.Errorf("broken: %+v\nwant the error %s", sts[0], want)
	}
	if sts[1].Err != nil {
		t.Errorf("the broken server's entry failed another server: %v", sts[1].Err)
	}
	if _, err := p.CallTool(context.Background(), "broken", "x", nil); err == nil || err.Error() != want {
		t.Errorf("call: %v", err)
	}
	if res, err := p.CallTool(context.Background(), "noisy", "chatty", nil); err != nil || res.Text() != "fine" {
		t.Errorf("call of the working server: %v %v", res, err)
	}
}

// TestTransportMismatchSaysWhichTypeToUse: an sse entry pointed at a
// streamable HTTP endpoint, and the reverse, fail with the "type" to write.
func TestTransportMismatchSaysWhichTypeToUse(t *testing.T) {
	t.Parallel()
	streamURL, sseURL, _ := httpServer(t)
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{
		{Name: "really-http", Transport: TransportSSE, URL: streamURL},
		{Name: "really-sse", Transport: TransportHTTP, URL: sseURL},
	}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second})
	defer p.Close()
	sts := p.ConnectAll(context.Background(), nil, nil)
	wants := []string{
		`the url speaks the streamable HTTP transport, not SSE: write "type": "http" in its mcp.json entry`,
		`the url speaks the SSE transport, not streamable HTTP: write "type": "sse" in its mcp.json entry`,
	}
	for i, st := range sts {
		if st.Err == nil || !strings.HasSuffix(st.Err.Error(), wants[i]) {
			t.Errorf("%s: %v\nwant the hint %s", st.Name, st.Err, wants[i])
		}
	}
}
