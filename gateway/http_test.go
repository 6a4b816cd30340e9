package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPServesEveryRevision: the default (stateful) HTTP face serves
// hosts on protocol 2026-07-28 (stateless by design: their requests go to
// a stateless handler of the same server) and older hosts (with
// sessions), and each confirms a write with a plain accept: the modern
// host by an input_required round, the older one by elicitation.
// server/discover advertises what is served and every revision.
func TestHTTPServesEveryRevision(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	g := newTestGateway(t, ws, Options{})
	srv := httptest.NewServer(g.HTTPHandler(HTTPOptions{}))
	t.Cleanup(srv.Close)
	for i, version := range []string{modernVersion, "2025-11-25", "2025-06-18"} {
		a := &answering{answer: result("accept", map[string]any{})}
		s, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "1"}, a.options()).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: srv.URL}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatalf("%s: %v", version, err)
		}
		t.Cleanup(func() { s.Close() })
		init := s.InitializeResult()
		if init.ProtocolVersion != version {
			t.Errorf("%s: negotiated %s", version, init.ProtocolVersion)
		}
		if version == modernVersion {
			if s.ID() != "" {
				t.Errorf("a modern host got a session: %q", s.ID())
			}
		} else if s.ID() == "" {
			t.Errorf("%s: no session", version)
		}
		caps := init.Capabilities
		if caps.Tools == nil || caps.Resources == nil || caps.Prompts == nil || caps.Completions == nil || caps.Logging != nil {
			t.Errorf("%s: capabilities %+v, want tools, resources, prompts and completions", version, caps)
		}
		_, text := call(t, s, toolExecute, map[string]any{"code": updateProgram})
		if !strings.Contains(text, `"Qualified"`) || len(a.asked()) != 1 || calls.count("salesforce.updateRecord") != i+1 {
			t.Errorf("%s: asked %d times, %d writes sent: %s", version, len(a.asked()), calls.count("salesforce.updateRecord"), text)
		}
	}

	// server/discover lists every revision, on this stateful face too.
	status, body := postJSON(t, srv.URL, modernVersion, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	var discover struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	_ = json.Unmarshal([]byte(sseData(body)), &discover)
	if v := discover.Result.SupportedVersions; status != 200 || !slices.Contains(v, modernVersion) || !slices.Contains(v, "2025-11-25") {
		t.Errorf("server/discover: %d %s", status, body)
	}
	// A method the revision removed: 404 and -32601.
	status, body = postJSON(t, srv.URL, modernVersion, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{`+
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if status != http.StatusNotFound || !strings.Contains(body, "-32601") {
		t.Errorf("ping on 2026-07-28: %d %s, want 404 and -32601", status, body)
	}
}

func postJSON(t *testing.T, url, version, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", version)
	req.Header.Set("Mcp-Method", gjson(body, "method"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func gjson(body, field string) string {
	var m map[string]any
	_ = json.Unmarshal([]byte(body), &m)
	s, _ := m[field].(string)
	return s
}

// sseData is the data of the first event of a text/event-stream answer
// (or the answer as it is).
func sseData(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			return d
		}
	}
	return body
}

// TestCompletion: completion/complete completes the tree's resource
// template with the tree's paths; other references get no values.
func TestCompletion(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	_, s := connectModern(t, ws, Options{}, nil)
	res, err := s.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "mcpcode://{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "servers/salesforce/up"},
	})
	if err != nil || !slices.Equal(res.Completion.Values, []string{"servers/salesforce/updateRecord.ts"}) {
		t.Errorf("completing a path: %v %+v", err, res)
	}
	res, err = s.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "nothing"},
		Argument: mcp.CompleteParamsArgument{Name: "x", Value: "y"},
	})
	if err != nil || res.Completion.Values == nil || len(res.Completion.Values) != 0 {
		t.Errorf("completing an unknown prompt: %v %+v", err, res)
	}
}
