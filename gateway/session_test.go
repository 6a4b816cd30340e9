package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/internal/session"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// statefulUpstream is an upstream server with state of its own: "incr"
// adds one to a counter and "get" reads it (state a session keeps between
// runs); "ask" elicits a form whose fields come in the order zeta, alpha;
// "chatty" sends two progress notifications and a log message before it
// answers; and it has one resource. It speaks the revisions before
// 2026-07-28 only, in which a server asks by requests of its own during
// the call (go-sdk refuses Session.Elicit on 2026-07-28).
func statefulUpstream() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "stateful", Version: "1"}, &mcp.ServerOptions{
		Capabilities:              &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}, Logging: &mcp.LoggingCapabilities{}, Resources: &mcp.ResourceCapabilities{}},
		SupportedProtocolVersions: []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}})
	var mu sync.Mutex
	counter := 0
	obj := json.RawMessage(`{"type":"object"}`)
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "incr", InputSchema: obj}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		counter++
		return text(strings.Repeat("+", counter)), nil
	})
	s.AddTool(&mcp.Tool{Name: "get", InputSchema: obj, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "counter"}}, StructuredContent: map[string]int{"counter": counter}}, nil
	})
	s.AddTool(&mcp.Tool{Name: "ask", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Two things?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"string"}}}`)})
		if err != nil {
			return text("error: " + err.Error()), nil
		}
		z, _ := res.Content["zeta"].(string)
		return text(res.Action + " " + z), nil
	})
	s.AddTool(&mcp.Tool{Name: "chatty", InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		for i := 1; i <= 2 && token != nil; i++ {
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 2, Message: "step"})
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "warning", Data: "careful"})
		return text("done"), nil
	})
	s.AddResource(&mcp.Resource{URI: "test://note", Name: "note"}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://note", Text: "a note"}}}, nil
	})
	return s
}

// rawUpstream answers "big" with a result of about 2 MB whose content
// holds a type go-sdk does not know, and "fails" with a tool error.
func rawUpstream() *mcptest.RawServer {
	return &mcptest.RawServer{Name: "raw", Version: "1",
		Tools: []json.RawMessage{json.RawMessage(`{"name":"big","inputSchema":{"type":"object"}}`), json.RawMessage(`{"name":"fails","inputSchema":{"type":"object"}}`)},
		Call: func(_ context.Context, tool string, _ json.RawMessage) (any, error) {
			if tool == "fails" {
				return map[string]any{"content": []any{map[string]any{"type": "text", "text": "no such record"}}, "isError": true}, nil
			}
			rows := make([]map[string]any, 20000)
			for i := range rows {
				rows[i] = map[string]any{"id": i, "note": "row \"quoted\" \u00e9 " + strings.Repeat("x", i%50)}
			}
			return map[string]any{"content": []any{map[string]any{"type": "hologram", "data": "future"}}, "structuredContent": map[string]any{"rows": rows}}, nil
		}}
}

// sessionFixture is a workspace of stateful servers (one per name) and a
// session serving it.
type sessionFixture struct {
	ws  *app.Workspace
	cfg string // its mcp.json
	mu  sync.Mutex
	// starts counts the connections made to each server (each is a fresh
	// server: a restart).
	starts map[string]int
	done   chan error
	status session.Status
}

func newSessionFixture(t *testing.T, idle time.Duration, names ...string) *sessionFixture {
	t.Helper()
	return newSessionFixtureWith(t, idle, nil, names...)
}

// newSessionFixtureWith is newSessionFixture with servers of the test's
// own: custom[name], when set, makes the server of that name.
func newSessionFixtureWith(t *testing.T, idle time.Duration, custom map[string]func() *mcp.Server, names ...string) *sessionFixture {
	t.Helper()
	if !session.Supported {
		t.Skip("sessions need Linux")
	}
	f := &sessionFixture{starts: map[string]int{}}
	dir := t.TempDir()
	f.cfg = filepath.Join(dir, "mcp.json")
	f.writeConfig(t, names, "1")
	a := &app.App{Dial: func(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
		f.mu.Lock()
		f.starts[cfg.Name]++
		f.mu.Unlock()
		ct, st := mcp.NewInMemoryTransports()
		if mk := custom[cfg.Name]; mk != nil {
			go func() { _ = mk().Run(context.WithoutCancel(ctx), st) }()
			return ct, nil
		}
		if cfg.Name == "raw" {
			go func() { _ = rawUpstream().Serve(context.WithoutCancel(ctx), st) }()
			return ct, nil
		}
		go func() { _ = statefulUpstream().Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}}
	ws, err := a.Open(app.OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	f.ws = ws
	f.status, f.done = serveSession(t, ws, idle)
	return f
}

// serveSession serves ws's session (stopping when idle for idle, 0: never)
// until the test ends. It returns the session's status once it listens,
// and the channel its end comes on (a test that sees the end puts nil
// back, for the cleanup).
func serveSession(t *testing.T, ws *app.Workspace, idle time.Duration) (session.Status, chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done, ready := make(chan error, 1), make(chan session.Status, 1)
	go func() {
		done <- ServeSession(ctx, ws, SessionOptions{Idle: idle, Ready: func(st session.Status) { ready <- st }})
	}()
	var st session.Status
	select {
	case st = <-ready:
	case err := <-done:
		cancel()
		t.Fatalf("the session did not start: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		t.Fatal("the session never listened")
	}
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("the session did not end when its context did")
		}
	})
	return st, done
}

// waitStopped waits for the session to end by itself, without an error;
// failing the test with "notStopped" if it has not after a minute.
func (f *sessionFixture) waitStopped(t *testing.T, notStopped string) {
	t.Helper()
	select {
	case err := <-f.done:
		if err != nil {
			t.Fatalf("the session ended with %v", err)
		}
		f.done <- nil // for the cleanup
	case <-time.After(60 * time.Second):
		t.Fatal(notStopped)
	}
}

// writeConfig writes mcp.json with one server per name, each with the
// argument version.
func (f *sessionFixture) writeConfig(t *testing.T, names []string, version string) {
	t.Helper()
	entries := map[string]any{}
	for _, n := range names {
		entries[n] = map[string]any{"command": "unused", "args": []string{version}}
	}
	data, _ := json.Marshal(map[string]any{"mcpServers": entries})
	writeConfigFile(t, f.cfg, string(data))
}

func (f *sessionFixture) startsOf(name string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.starts[name]
}

// dial is one run's connection to the session.
func (f *sessionFixture) dial(t *testing.T, h *servers.ClientHandlers) *servers.Session {
	t.Helper()
	s, err := servers.DialSession(t.Context(), f.ws.Session(), servers.SessionOptions{Handlers: h})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func callText(t *testing.T, c mcptool.Caller, ctx context.Context, server, tool string) string {
	t.Helper()
	res, err := c.CallTool(ctx, server, tool, json.RawMessage(`{}`))
	if err != nil {
		t.Fatalf("%s.%s: %v", server, tool, err)
	}
	return res.Text()
}

// TestSessionKeepsServersBetweenRuns: two runs, one after the other, use
// the same upstream server through the session: the state the first left
// is seen by the second, and the server was started once. Its status says
// which servers it holds.
func TestSessionKeepsServersBetweenRuns(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, 0, "state")
	if f.status.Pid != os.Getpid() || f.status.Workspace != f.ws.Root || f.status.Config != f.cfg || f.status.Binary != session.ExecutableID() {
		t.Errorf("status %+v", f.status)
	}
	run1 := f.dial(t, nil)
	if got := callText(t, run1, t.Context(), "state", "incr"); got != "+" {
		t.Fatalf("first incr: %q", got)
	}
	run1.Close()
	run2 := f.dial(t, nil)
	if got := callText(t, run2, t.Context(), "state", "incr"); got != "++" {
		t.Errorf("second run's incr: %q, want the counter the first run left, plus one", got)
	}
	if n := f.startsOf("state"); n != 1 {
		t.Errorf("the server was started %d times, want once", n)
	}
	tools, err := run2.Tools(t.Context(), "state")
	var names []string
	for _, tool := range tools {
		names = append(names, tool.Name)
	}
	if err != nil || strings.Join(names, " ") != "ask chatty get incr" || !tools[2].Hints.IsReadOnly() {
		t.Errorf("tools %q (%v), want the server's list as it sent it", names, err)
	}
	st, err := run2.AskStatus(t.Context())
	if err != nil || len(st.Servers) != 1 || st.Servers[0].Name != "state" || !st.Servers[0].Connected || st.Servers[0].Tools != 4 {
		t.Errorf("status servers %+v, %v", st.Servers, err)
	}
	if _, err := run2.CallTool(t.Context(), "nope", "x", nil); !errors.Is(err, mcptool.ErrUnknownServer) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("a server the config lacks: %v, want ErrUnknownServer naming it", err)
	}
	raw, err := run2.ReadResource(t.Context(), "state", "test://note")
	if err != nil || !strings.Contains(string(raw), "a note") {
		t.Errorf("resource: %s %v", raw, err)
	}
}

// TestSessionForwardsQuestionsAndNotices: an upstream server's question
// during a run's call reaches that run's handlers, with the server's name
// and the form's fields in the server's order; its progress and log
// notices reach the call's sink, in order, before the answer.
func TestSessionForwardsQuestionsAndNotices(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, 0, "state")
	var asked *servers.ElicitRequest
	run := f.dial(t, &servers.ClientHandlers{Elicit: func(_ context.Context, r *servers.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = r
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"zeta": "z", "alpha": "a"}}, nil
	}})
	if got := callText(t, run, t.Context(), "state", "ask"); got != "accept z" {
		t.Fatalf("ask: %q", got)
	}
	if asked == nil || asked.Server != "state" || asked.Params.Message != "Two things?" || !slices.Equal(asked.Order, []string{"zeta", "alpha"}) {
		t.Errorf("the run's handler was asked %+v", asked)
	}
	if asked != nil && asked.Params.Meta != nil {
		t.Errorf("the session's own meta reached the handler: %v", asked.Params.Meta)
	}

	var notices noticeLog
	ctx := mcptool.WithNotices(t.Context(), notices.sink())
	if got := callText(t, run, ctx, "state", "chatty"); got != "done" {
		t.Fatalf("chatty: %q", got)
	}
	got := notices.String()
	if want := "[state progress] 1/2 step\n[state progress] 2/2 step\n[state warning] careful"; got != want {
		t.Errorf("notices before the answer:\n%s\nwant:\n%s", got, want)
	}

	// A run that cannot ask: declined, with its reason, and the server
	// says so in its result.
	quiet := f.dial(t, &servers.ClientHandlers{NoElicit: "no terminal to ask the person in"})
	if got := callText(t, quiet, t.Context(), "state", "ask"); !strings.Contains(got, "no terminal to ask the person in") {
		t.Errorf("a run without a terminal: %q, want the reason", got)
	}
}

// TestSessionRestartsChangedServers: mcp.json edited while the session
// runs: the server whose entry changed is restarted from the new entry
// (its state is gone), the other keeps running (its state is kept), and
// the status says which was restarted.
func TestSessionRestartsChangedServers(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, 0, "a", "b")
	run := f.dial(t, nil)
	callText(t, run, t.Context(), "a", "incr")
	callText(t, run, t.Context(), "b", "incr")
	raw, _ := os.ReadFile(f.cfg)
	edited := strings.Replace(string(raw), `"a":{"args":["1"]`, `"a":{"args":["2"]`, 1)
	if edited == string(raw) {
		t.Fatalf("the test's edit did not apply to %s", raw)
	}
	if err := os.WriteFile(f.cfg+".tmp", []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(f.cfg+".tmp", f.cfg); err != nil {
		t.Fatal(err)
	}
	if got := callText(t, run, t.Context(), "a", "incr"); got != "+" {
		t.Errorf("a after its entry changed: %q, want a fresh server's first count", got)
	}
	if got := callText(t, run, t.Context(), "b", "incr"); got != "++" {
		t.Errorf("b, whose entry did not change: %q, want its state kept", got)
	}
	if f.startsOf("a") != 2 || f.startsOf("b") != 1 {
		t.Errorf("starts: a %d, b %d; want 2 and 1", f.startsOf("a"), f.startsOf("b"))
	}
	st, err := run.AskStatus(t.Context())
	if err != nil || !slices.Equal(st.Restarted, []string{"a"}) {
		t.Errorf("status restarted %v, %v; want [a]", st.Restarted, err)
	}
	// A broken mcp.json is refused with the reason, not served stale.
	if err := os.WriteFile(f.cfg, []byte(`{"mcpServers": {`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run.CallTool(t.Context(), "b", "incr", nil); err == nil || !strings.Contains(err.Error(), "mcp.json") {
		t.Errorf("a call with mcp.json broken: %v, want a refusal that names it", err)
	}
}

// TestSessionStops: a session stops when a run asks it to, and when it
// was idle for its idle time; either way its servers are closed, its
// socket is gone, and it no longer answers.
func TestSessionStops(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"asked", "idle"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			idle := time.Duration(0)
			if how == "idle" {
				idle = 300 * time.Millisecond
			}
			f := newSessionFixture(t, idle, "state")
			run := f.dial(t, nil)
			callText(t, run, t.Context(), "state", "incr")
			if how == "asked" {
				if _, err := run.Stop(t.Context()); err != nil {
					t.Fatal(err)
				}
			}
			f.waitStopped(t, "the session did not stop")
			if _, err := os.Lstat(filepath.Join(f.ws.Session(), session.SocketName)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the socket is still there: %v", err)
			}
			if _, err := servers.DialSession(t.Context(), f.ws.Session(), servers.SessionOptions{}); err == nil {
				t.Error("a stopped session still answers")
			}
		})
	}
}

// TestOneSessionPerWorkspace: a second session for the same workspace
// is refused while the first runs.
func TestOneSessionPerWorkspace(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, 0, "state")
	err := ServeSession(t.Context(), f.ws, SessionOptions{})
	if err == nil || !strings.Contains(err.Error(), "already runs") {
		t.Errorf("a second session: %v, want a refusal", err)
	}
	// The first still serves.
	callText(t, f.dial(t, nil), t.Context(), "state", "incr")
}

// TestRunUsesTheSession: app's Run sends a run's calls through the
// workspace's session (state kept, one server start), with the upstream's
// questions asked through the run's own handlers; with NoSession it makes
// its own connection (a second, fresh server).
func TestRunUsesTheSession(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, 0, "state")
	var asked []string
	h := &app.ClientHandlers{Elicit: func(_ context.Context, r *app.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, r.Server+": "+r.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"zeta": "from the run's terminal"}}, nil
	}}
	run := func(src string, noSession bool) string {
		res, err := f.ws.Run(t.Context(), app.RunRequest{Source: []byte(`import { callMCPTool } from "mcpcode:runtime";
` + src), Isolation: app.IsolationNone, Handlers: h, NoSession: noSession})
		if err != nil || !res.OK {
			t.Fatalf("run: %v %+v", err, res.Error)
		}
		return string(res.Result)
	}
	run(`await callMCPTool("state", "incr", {});`, false)
	if got := run(`export default (await callMCPTool("state", "get", {})).structuredContent.counter;`, false); got != "1" {
		t.Errorf("the second run read %s, want the first run's count", got)
	}
	if got := run(`export default (await callMCPTool("state", "ask", {})).content[0].text;`, false); got != `"accept from the run's terminal"` || len(asked) != 1 || asked[0] != "state: Two things?" {
		t.Errorf("a question during a run: result %s, the run's handler asked %q", got, asked)
	}
	if n := f.startsOf("state"); n != 1 {
		t.Errorf("the server was started %d times for three runs through the session, want once", n)
	}
	if got := run(`export default (await callMCPTool("state", "get", {})).structuredContent.counter;`, true); got != "0" || f.startsOf("state") != 2 {
		t.Errorf("a run with NoSession read %s with %d starts, want a fresh server's 0 and a second start", got, f.startsOf("state"))
	}
}

// TestSessionPassesResultsAsReceived: a large result, with a content type
// go-sdk does not know, reaches the run through the session byte for byte
// as the run's own connection gets it; a tool error stays a result, not an
// error of the session.
func TestSessionPassesResultsAsReceived(t *testing.T) {
	t.Parallel()
	f := newSessionFixture(t, 0, "raw")
	run := f.dial(t, nil)
	pool := f.ws.Pool(app.PoolOptions{})
	defer pool.Close()
	for _, tool := range []string{"big", "fails"} {
		direct, err := pool.CallTool(t.Context(), "raw", tool, json.RawMessage(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		through, err := run.CallTool(t.Context(), "raw", tool, json.RawMessage(`{}`))
		if err != nil {
			t.Fatalf("%s through the session: %v", tool, err)
		}
		if string(through.Content) != string(direct.Content) || string(through.StructuredContent) != string(direct.StructuredContent) || through.IsError != direct.IsError {
			t.Errorf("%s through the session differs from the direct answer: %d+%d bytes (error %v) against %d+%d (error %v)", tool,
				len(through.Content), len(through.StructuredContent), through.IsError, len(direct.Content), len(direct.StructuredContent), direct.IsError)
		}
		if tool == "big" && (len(direct.StructuredContent) < 1<<20 || !strings.Contains(string(direct.Content), "hologram")) {
			t.Errorf("the fixture's big answer is %d bytes: %s", len(direct.StructuredContent), direct.Content)
		}
	}
}
