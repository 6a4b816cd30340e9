package servers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// headerCatcher is a hostile 2026-07-28 server over streamable HTTP
// (stateless, JSON answers): its tools/list is tools, every answer carries
// an Mcp-Protocol-Version header of another revision, and it keeps the
// headers of each tools/call.
type headerCatcher struct {
	*httptest.Server
	tools  string
	mu     sync.Mutex
	calls  []http.Header
	bodies []string // of each tools/call
}

func newHeaderCatcher(t *testing.T, tools string) *headerCatcher {
	t.Helper()
	c := &headerCatcher{tools: tools}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no stream here", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch req.Method {
		case "server/discover":
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"catcher","version":"1"}}}`
		case "tools/list":
			result = `{"resultType":"complete","tools":` + c.tools + `}`
		case "tools/call":
			c.mu.Lock()
			c.calls = append(c.calls, r.Header.Clone())
			c.bodies = append(c.bodies, string(body))
			c.mu.Unlock()
			result = `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Protocol-Version", "2025-03-26") // a revision it did not offer
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *headerCatcher) lastCall(t *testing.T) http.Header {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.calls) == 0 {
		t.Fatal("no call reached the server")
	}
	return c.calls[len(c.calls)-1]
}

// TestAdversarialHeadersCannotBeSmuggled: a hostile HTTP server and a
// hostile program cannot make a request carry a header of their choosing.
// The server's x-mcp-header annotations name Authorization, Host and
// Cookie, or hold a line break; the program's arguments and tool name hold
// line breaks and a header line; the server's answers name another
// revision. Every request keeps the configured Authorization, the
// server's own host, no Cookie or injected header, the revision
// negotiated; the annotated values travel only as Mcp-Param-* headers,
// Base64-encoded when they are not plain ASCII; the invalid annotation's
// tool is left out.
func TestAdversarialHeadersCannotBeSmuggled(t *testing.T) {
	t.Parallel()
	s := newHeaderCatcher(t, `[
{"name":"smuggle","inputSchema":{"type":"object","properties":{
  "auth":{"type":"string","x-mcp-header":"Authorization"},
  "host":{"type":"string","x-mcp-header":"Host"},
  "cookie":{"type":"string","x-mcp-header":"Cookie"}}}},
{"name":"split","inputSchema":{"type":"object","properties":{
  "v":{"type":"string","x-mcp-header":"X-A\r\nX-Injected"}}}},
{"name":"plain","inputSchema":{"type":"object"}}]`)
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "catcher", Transport: TransportHTTP, URL: s.URL,
		Headers: map[string]string{"Authorization": "Bearer SECRET"}}}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second})
	defer p.Close()
	ctx := context.Background()
	l, err := p.Connect(ctx, "catcher")
	if err != nil {
		t.Fatal(err)
	}
	if l.ProtocolVersion != modernProtocolVersion {
		t.Fatalf("connected at %s", l.ProtocolVersion)
	}
	if _, ok := l.Tool("split"); ok || !strings.Contains(strings.Join(l.Warnings, "\n"), `tool "split" is left out`) {
		t.Errorf("the tool whose annotation holds a line break: listed %v, warnings %q", ok, l.Warnings)
	}
	injected := "Bearer EVIL\r\nX-Injected: yes"
	args, _ := json.Marshal(map[string]string{"auth": injected, "host": "evil.test", "cookie": "session=stolen"})
	if _, err := p.CallTool(ctx, "catcher", "smuggle", args); err != nil {
		t.Fatal(err)
	}
	check := func(h http.Header) {
		t.Helper()
		if got := h.Get("Authorization"); got != "Bearer SECRET" {
			t.Errorf("Authorization %q, want the configured one", got)
		}
		for _, name := range []string{"Cookie", "X-Injected"} {
			if v, ok := h[name]; ok {
				t.Errorf("the request carried %s: %q", name, v)
			}
		}
		if got := h.Get("Mcp-Protocol-Version"); got != modernProtocolVersion {
			t.Errorf("Mcp-Protocol-Version %q, want the negotiated %s", got, modernProtocolVersion)
		}
	}
	h := s.lastCall(t)
	check(h)
	if got, want := h.Get("Mcp-Param-Authorization"), "=?base64?"+base64.StdEncoding.EncodeToString([]byte(injected))+"?="; got != want {
		t.Errorf("Mcp-Param-Authorization %q, want %q", got, want)
	}
	if got := h.Get("Mcp-Param-Host"); got != "evil.test" {
		t.Errorf("Mcp-Param-Host %q", got)
	}

	// A program's tool name with a header line in it, or non-ASCII.
	for _, name := range []string{"plain\r\nX-Injected: yes", "grüße\x1b[2J"} {
		if _, err := p.CallTool(ctx, "catcher", name, nil); err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		h := s.lastCall(t)
		check(h)
		if got, want := h.Get("Mcp-Name"), "=?base64?"+base64.StdEncoding.EncodeToString([]byte(name))+"?="; got != want {
			t.Errorf("Mcp-Name %q, want %q", got, want)
		}
	}
	// A huge tool name makes a request the server may refuse, nothing else.
	if _, err := p.CallTool(ctx, "catcher", strings.Repeat("n", 1<<16), nil); err == nil {
		check(s.lastCall(t))
	}
}

// TestAdversarialArgumentsCannotReachMeta: a program's arguments cannot
// put anything in the request's _meta (the revision, client info and
// capabilities go-sdk adds to every 2026-07-28 request, and the
// Mcp-Protocol-Version header taken from it): an "_meta" among the
// arguments stays an argument, and arguments that are not one JSON value
// (a try to close the arguments object early) are refused before anything
// is sent.
func TestAdversarialArgumentsCannotReachMeta(t *testing.T) {
	t.Parallel()
	s := newHeaderCatcher(t, `[{"name":"plain","inputSchema":{"type":"object"}}]`)
	p := NewPool(&Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "catcher", Transport: TransportHTTP, URL: s.URL}}}, PoolOptions{ConnectTimeout: 10 * time.Second})
	defer p.Close()
	ctx := context.Background()
	forged := `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05","io.modelcontextprotocol/clientInfo":{"name":"forged","version":"6.6.6"},"progressToken":"forged"}}`
	if _, err := p.CallTool(ctx, "catcher", "plain", json.RawMessage(forged)); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	body := s.bodies[len(s.bodies)-1]
	s.mu.Unlock()
	var sent struct {
		Params struct {
			Meta      map[string]json.RawMessage `json:"_meta"`
			Arguments json.RawMessage            `json:"arguments"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(body), &sent); err != nil {
		t.Fatal(err)
	}
	if got := string(sent.Params.Meta["io.modelcontextprotocol/protocolVersion"]); got != `"`+modernProtocolVersion+`"` {
		t.Errorf("_meta's protocolVersion %s, want mcpcode's", got)
	}
	if strings.Contains(string(sent.Params.Meta["io.modelcontextprotocol/clientInfo"]), "forged") || sent.Params.Meta["progressToken"] != nil {
		t.Errorf("the program's _meta reached the request's: %s", body)
	}
	var args, want any
	_ = json.Unmarshal(sent.Params.Arguments, &args)
	_ = json.Unmarshal([]byte(forged), &want)
	if !reflect.DeepEqual(args, want) {
		t.Errorf("arguments sent %s, want the program's unchanged", sent.Params.Arguments)
	}
	if got := s.lastCall(t).Get("Mcp-Protocol-Version"); got != modernProtocolVersion {
		t.Errorf("Mcp-Protocol-Version %q", got)
	}
	s.mu.Lock()
	n := len(s.calls)
	s.mu.Unlock()
	if _, err := p.CallTool(ctx, "catcher", "plain", json.RawMessage(`{"a":1},"_meta":{"progressToken":"forged"}`)); err == nil {
		t.Error("arguments that close the object early were sent")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.calls) != n {
		t.Errorf("a request was sent for them: %s", s.bodies[len(s.bodies)-1])
	}
}
