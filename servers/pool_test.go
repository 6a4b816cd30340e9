package servers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// orderedTools have properties deliberately out of alphabetical order, a
// schema without "type", and odd spacing, to prove the raw bytes survive.
var orderedTools = []json.RawMessage{
	json.RawMessage(`{"name":"zeta","description":"Last.","inputSchema":{"type":"object","properties":{"zz":{"type":"string"},"aa":{"type":"number"},"mm":{}},"required":["zz"]},"annotations":{"readOnlyHint":true}}`),
	json.RawMessage(`{"name":"alpha","inputSchema":{"properties":{"b":{"type":"string"},"a":{"type":"string"}}}}`),
	json.RawMessage(`{ "name" : "write", "inputSchema" : {"type":"object"}, "outputSchema": {"type":"object","properties":{"ok":{"type":"boolean"}}}, "annotations": {"readOnlyHint": false, "idempotentHint": false} }`),
}

// inMemory returns pool options whose Dial connects each server to an
// in-process RawServer (a new connection per dial, as a restart would).
func inMemory(t *testing.T, servers map[string]*mcptest.RawServer) PoolOptions {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return PoolOptions{
		ConnectTimeout: 10 * time.Second,
		Dial: func(_ context.Context, s ServerConfig) (mcp.Transport, error) {
			srv, ok := servers[s.Name]
			if !ok {
				return nil, errors.New("no such fake server")
			}
			ct, st := mcp.NewInMemoryTransports()
			go func() { _ = srv.Serve(ctx, st) }()
			return ct, nil
		},
	}
}

func configOf(t *testing.T, names ...string) *Config {
	t.Helper()
	cfg := &Config{Path: "/ws/mcp.json"}
	for _, n := range names {
		cfg.Servers = append(cfg.Servers, ServerConfig{Name: n, Transport: TransportStdio, Command: "unused"})
	}
	return cfg
}

func TestPoolKeepsRawToolsAcrossPages(t *testing.T) {
	srv := &mcptest.RawServer{Name: "fake", Version: "2.0", Instructions: "Use wisely.", Tools: orderedTools, PageSize: 2}
	p := NewPool(configOf(t, "fake"), inMemory(t, map[string]*mcptest.RawServer{"fake": srv}))
	defer p.Close()
	l, err := p.Connect(context.Background(), "fake")
	if err != nil {
		t.Fatal(err)
	}
	if l.ServerName != "fake" || l.ServerVersion != "2.0" || l.Instructions != "Use wisely." {
		t.Errorf("server info: %+v", l)
	}
	got := l.RawTools()
	if len(got) != len(orderedTools) {
		t.Fatalf("got %d tools, want %d", len(got), len(orderedTools))
	}
	for i := range got {
		// The fake server re-encodes its response, which compacts the
		// JSON; property order and content must be untouched.
		var want bytes.Buffer
		_ = json.Compact(&want, orderedTools[i])
		if !bytes.Equal(got[i], want.Bytes()) {
			t.Errorf("tool %d changed on the way:\n got %s\nwant %s", i, got[i], orderedTools[i])
		}
	}
	zeta, _ := l.Tool("zeta")
	if !zeta.Hints.IsReadOnly() || zeta.HasOutputSchema() || zeta.FirstLine() != "Last." {
		t.Errorf("zeta parsed as %+v", zeta)
	}
	write, _ := l.Tool("write")
	if write.Hints.IsReadOnly() || !write.HasOutputSchema() || write.Hints.SafeToRetry() {
		t.Errorf("write parsed as %+v", write)
	}
}

func TestPoolConcurrentCallsShareOneSession(t *testing.T) {
	release := make(chan struct{})
	srv := &mcptest.RawServer{Name: "fake", Version: "1", Tools: orderedTools}
	srv.Call = func(ctx context.Context, tool string, args json.RawMessage) (any, error) {
		if srv.InFlight.Load() >= 10 {
			close(release)
		}
		select {
		case <-release:
		case <-ctx.Done():
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": tool}}}, nil
	}
	dials := 0
	opts := inMemory(t, map[string]*mcptest.RawServer{"fake": srv})
	dial := opts.Dial
	opts.Dial = func(ctx context.Context, s ServerConfig) (mcp.Transport, error) {
		dials++
		return dial(ctx, s)
	}
	p := NewPool(configOf(t, "fake"), opts)
	defer p.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := p.CallTool(context.Background(), "fake", "zeta", json.RawMessage(`{"zz":"x"}`))
			if err == nil && res.IsError {
				err = errors.New("tool error")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	if got := srv.MaxInFlight.Load(); got != 10 {
		t.Errorf("max in flight %d, want 10", got)
	}
	if dials != 1 {
		t.Errorf("dialed %d times, want one shared session", dials)
	}
}

func TestPoolPassesResultsRaw(t *testing.T) {
	srv := &mcptest.RawServer{Name: "fake", Version: "1", Tools: orderedTools}
	srv.Call = func(context.Context, string, json.RawMessage) (any, error) {
		// A content type go-sdk does not know would fail its decoding.
		return json.RawMessage(`{"content":[{"type":"hologram","depth":3},{"type":"text","text":"hi"}],"structuredContent":{"z":1,"a":[true]},"isError":true}`), nil
	}
	p := NewPool(configOf(t, "fake"), inMemory(t, map[string]*mcptest.RawServer{"fake": srv}))
	defer p.Close()
	res, err := p.CallTool(context.Background(), "fake", "zeta", nil)
	if err != nil {
		t.Fatal(err)
	}
	if string(res.Content) != `[{"type":"hologram","depth":3},{"type":"text","text":"hi"}]` || string(res.StructuredContent) != `{"z":1,"a":[true]}` || !res.IsError || res.Text() != "hi" {
		t.Errorf("got %+v", res)
	}
}

func TestPoolUnknownServer(t *testing.T) {
	p := NewPool(configOf(t, "a", "b"), PoolOptions{})
	_, err := p.CallTool(context.Background(), "c", "x", nil)
	if !errors.Is(err, ErrUnknownServer) || err.Error() != `unknown server "c": mcp.json configures a, b` {
		t.Errorf("got %v", err)
	}
}

func TestPoolReconnectsOnceWhenSessionLost(t *testing.T) {
	var mu sync.Mutex
	var conns []context.CancelFunc
	srv := &mcptest.RawServer{Name: "fake", Version: "1", Tools: orderedTools}
	dropNext := false
	srv.Call = func(ctx context.Context, tool string, _ json.RawMessage) (any, error) {
		mu.Lock()
		drop := dropNext
		dropNext = false
		last := conns[len(conns)-1]
		mu.Unlock()
		if drop {
			last() // the server goes away in the middle of the call
			<-ctx.Done()
			return nil, ctx.Err()
		}
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": "ok " + tool}}}, nil
	}
	opts := PoolOptions{ConnectTimeout: 10 * time.Second, Dial: func(context.Context, ServerConfig) (mcp.Transport, error) {
		ctx, cancel := context.WithCancel(context.Background())
		mu.Lock()
		conns = append(conns, cancel)
		mu.Unlock()
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = srv.Serve(ctx, st) }()
		return ct, nil
	}}
	t.Cleanup(func() {
		for _, c := range conns {
			c()
		}
	})
	p := NewPool(configOf(t, "fake"), opts)
	defer p.Close()
	ctx := context.Background()

	// A read-only tool whose connection dies mid-call is retried once.
	mu.Lock()
	dropNext = true
	mu.Unlock()
	res, err := p.CallTool(ctx, "fake", "zeta", json.RawMessage(`{"zz":"x"}`))
	if err != nil {
		t.Fatalf("read-only call was not retried: %v", err)
	}
	if text := res.Text(); text != "ok zeta" {
		t.Errorf("got %q", text)
	}
	// A write tool is not retried: the error says why, and the next call reconnects.
	mu.Lock()
	dropNext = true
	mu.Unlock()
	_, err = p.CallTool(ctx, "fake", "write", nil)
	if err == nil || !strings.Contains(err.Error(), "not retried because the tool is not declared read-only or idempotent") {
		t.Fatalf("write call: %v", err)
	}
	if _, err := p.CallTool(ctx, "fake", "write", nil); err != nil {
		t.Errorf("call after a lost session did not reconnect: %v", err)
	}
	mu.Lock()
	n := len(conns)
	mu.Unlock()
	if n != 3 {
		t.Errorf("connected %d times, want 3", n)
	}
}

func TestPoolToolListChanged(t *testing.T) {
	srv := &mcptest.RawServer{Name: "fake", Version: "1", Tools: orderedTools[:1]}
	changed := make(chan string, 1)
	opts := inMemory(t, map[string]*mcptest.RawServer{"fake": srv})
	opts.OnToolsChanged = func(s string) { changed <- s }
	p := NewPool(configOf(t, "fake"), opts)
	defer p.Close()
	ctx := context.Background()
	if _, err := p.Connect(ctx, "fake"); err != nil {
		t.Fatal(err)
	}
	srv.SetTools(orderedTools)
	if err := srv.NotifyToolsChanged(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-changed:
		if s != "fake" {
			t.Errorf("changed %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no tools-changed callback")
	}
	l, err := p.Relist(ctx, "fake")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Tools) != 3 {
		t.Errorf("relisted %d tools, want 3", len(l.Tools))
	}
}

// httpServer serves a go-sdk server over streamable HTTP and SSE, recording
// the Authorization headers it receives.
func httpServer(t *testing.T) (streamURL, sseURL string, auth func() []string) {
	t.Helper()
	newServer := func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "web", Version: "3"}, nil)
		s.AddTool(&mcp.Tool{Name: "ordered", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: json.RawMessage(`{"z":1,"a":2}`)}, nil
			})
		s.AddTool(&mcp.Tool{Name: "hello", InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string"},"and":{"type":"string"}}}`),
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello " + string(req.Params.Arguments)}}}, nil
			})
		return s
	}
	var mu sync.Mutex
	var seen []string
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Header.Get("Authorization"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", record(mcp.NewStreamableHTTPHandler(newServer, nil)))
	mux.Handle("/sse", record(mcp.NewSSEHandler(newServer, nil)))
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", ts.URL + "/sse", func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

func TestPoolHTTPAndSSE(t *testing.T) {
	streamURL, sseURL, auth := httpServer(t)
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{
		{Name: "stream", Transport: TransportHTTP, URL: streamURL, Headers: map[string]string{"Authorization": "Bearer abc"}},
		{Name: "legacy", Transport: TransportSSE, URL: sseURL, Headers: map[string]string{"Authorization": "Bearer abc"}},
	}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second})
	defer p.Close()
	for _, st := range p.ConnectAll(context.Background(), nil, nil) {
		if st.Err != nil {
			t.Errorf("%s: %v", st.Name, st.Err)
			continue
		}
		raw := st.Listing.RawTools()
		// go-sdk's server re-encodes schemas; what matters is that the
		// bytes we keep are the ones the server sent, not a re-encoding of
		// our own decoded maps (which would put "and" before "who").
		if len(raw) != 2 || !strings.Contains(string(raw[0]), `"who":{"type":"string"},"and"`) {
			t.Errorf("%s: raw tools %s", st.Name, raw)
		}
		res, err := p.CallTool(context.Background(), st.Name, "hello", json.RawMessage(`{"who":"you"}`))
		if err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		if text := res.Text(); text != `hello {"who":"you"}` {
			t.Errorf("%s: %q", st.Name, text)
		}
		// The result comes as the server sent it (go-sdk's decoding would
		// sort the keys).
		res, err = p.CallTool(context.Background(), st.Name, "ordered", nil)
		if err != nil {
			t.Fatalf("%s: %v", st.Name, err)
		}
		if string(res.StructuredContent) != `{"z":1,"a":2}` {
			t.Errorf("%s: structured content %s, want the raw bytes", st.Name, res.StructuredContent)
		}
	}
	for _, a := range auth() {
		if a != "Bearer abc" {
			t.Errorf("a request carried Authorization %q", a)
		}
	}
	if len(auth()) == 0 {
		t.Error("no requests seen")
	}
}

// selfServer configures the test binary as a stdio server in the given role.
func selfServer(t *testing.T, name, role string, env map[string]string) ServerConfig {
	t.Helper()
	e := map[string]string{"MCPCODE_TEST_SERVER": role}
	for k, v := range env {
		e[k] = v
	}
	return ServerConfig{Name: name, Transport: TransportStdio, Command: os.Args[0], Env: e}
}

func TestStdioServerThatNeverAnswersIsStopped(t *testing.T) {
	t.Parallel() // it waits out a 5 s connect timeout
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pids")
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "hang", "hang", map[string]string{"MCPCODE_TEST_PIDS": pidFile})}}
	// 5 s: time for a race-built test binary to start on a loaded machine
	// and say on stderr that it will never answer (checked below).
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 5 * time.Second, LogDir: filepath.Join(dir, "logs")})
	defer p.Close()
	_, err := p.Connect(context.Background(), "hang")
	var se *ServerError
	if !errors.As(err, &se) {
		t.Fatalf("got %v, want a ServerError", err)
	}
	if want := `server "hang": no answer to server/discover within 5s (--connect-timeout); the server was stopped`; err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
	if !strings.Contains(se.Detail(), "hang: waiting forever") {
		t.Errorf("detail lacks the server's stderr:\n%s", se.Detail())
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// SIGKILL is delivered asynchronously: allow the kernel a moment
	// (a guard, not a speed assertion).
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("process %d is still running", pid)
		}
	}
}

// alive reports whether pid is a running (not zombie) process.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(stat), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func TestStdioServerThatCrashesShowsItsStderr(t *testing.T) {
	dir := t.TempDir()
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "crashy", "crash", nil)}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, LogDir: dir})
	defer p.Close()
	_, err := p.Connect(context.Background(), "crashy")
	var se *ServerError
	if !errors.As(err, &se) {
		t.Fatalf("got %v", err)
	}
	if want := `server "crashy": the server exited with status 3 before answering initialize`; err.Error() != want {
		t.Errorf("error:\n got %s\nwant %s", err, want)
	}
	logPath := filepath.Join(dir, "crashy.log")
	want := "server \"crashy\": the server exited with status 3 before answering initialize\nlast lines of its stderr (full log: " + logPath + "):\n  starting up\n  fatal: MISSING_API_KEY is not set"
	if se.Detail() != want {
		t.Errorf("detail:\n got %s\nwant %s", se.Detail(), want)
	}
	if data, _ := os.ReadFile(logPath); !strings.Contains(string(data), "MISSING_API_KEY") {
		t.Errorf("log file holds %q", data)
	}
}

func TestStdioCommandNotFound(t *testing.T) {
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "ghost", Transport: TransportStdio, Command: "mcpcode-no-such-command"}}}
	p := NewPool(cfg, PoolOptions{})
	defer p.Close()
	_, err := p.Connect(context.Background(), "ghost")
	want := `server "ghost": command "mcpcode-no-such-command" not found: install it or fix "command" in the config (PATH is searched for bare names)`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestStdioEnvironmentIsExplicit(t *testing.T) {
	t.Setenv("MCPCODE_HOST_SECRET", "must-not-leak")
	srv := selfServer(t, "env", "env", map[string]string{"FROM_CONFIG": "yes"})
	p := NewPool(&Config{Path: "mcp.json", Servers: []ServerConfig{srv}}, PoolOptions{BaseEnv: []string{"PATH=" + os.Getenv("PATH"), "HOME=/home/x"}})
	defer p.Close()
	res, err := p.CallTool(context.Background(), "env", "environ", nil)
	if err != nil {
		t.Fatal(err)
	}
	env := res.Text()
	for _, want := range []string{"FROM_CONFIG=yes", "HOME=/home/x", "MCPCODE_TEST_SERVER=env"} {
		if !strings.Contains(env, want) {
			t.Errorf("server env lacks %s:\n%s", want, env)
		}
	}
	if strings.Contains(env, "MCPCODE_HOST_SECRET") {
		t.Error("the host environment leaked into the server")
	}
}

func TestStdioRawToolsKeptOverPipes(t *testing.T) {
	dir := t.TempDir()
	toolsFile := filepath.Join(dir, "tools.json")
	data, _ := json.Marshal(orderedTools)
	if err := os.WriteFile(toolsFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "raw", "raw", map[string]string{"MCPCODE_TEST_TOOLS": toolsFile})}}
	p := NewPool(cfg, PoolOptions{})
	defer p.Close()
	l, err := p.Connect(context.Background(), "raw")
	if err != nil {
		t.Fatal(err)
	}
	// json.Marshal of a RawMessage compacts it; compare compacted forms.
	for i, raw := range l.RawTools() {
		var want bytes.Buffer
		_ = json.Compact(&want, orderedTools[i])
		if !bytes.Equal(raw, want.Bytes()) {
			t.Errorf("tool %d: got %s want %s", i, raw, want.Bytes())
		}
	}
}
