package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServeReplicasShareAWorkspace runs two `serve --http --stateless`
// replicas on one workspace behind a round-robin reverse proxy: a skill
// proposed through the proxy (so through one replica) and approved with the
// CLI becomes a tool on both, with no coordination between them.
func TestServeReplicasShareAWorkspace(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(binary)))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	env := []string{"MCPCODE_TOKEN=replica-secret"}
	replicas := []string{startServeHTTP(t, ws, env, "--stateless", "--timeout", slowTimeout), startServeHTTP(t, ws, env, "--stateless", "--timeout", slowTimeout)}
	var next atomic.Int64
	hits := make([]atomic.Int64, 2)
	proxy := httptest.NewServer(&httputil.ReverseProxy{Rewrite: func(r *httputil.ProxyRequest) {
		i := int(next.Add(1)) % 2
		hits[i].Add(1)
		u, _ := url.Parse(replicas[i])
		r.SetURL(u)
		r.Out.URL.Path = u.Path
		r.Out.Host = u.Host
	}})
	defer proxy.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	connect := func(u string) *mcp.ClientSession {
		t.Helper()
		tr := &mcp.StreamableClientTransport{Endpoint: u, HTTPClient: &http.Client{Transport: bearer{"replica-secret"}}}
		s, err := mcp.NewClient(&mcp.Implementation{Name: "lb-client", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatalf("connecting to %s: %v", u, err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	lb := connect(proxy.URL + "/mcp")
	res, err := lb.CallTool(ctx, &mcp.CallToolParams{Name: "propose_skill", Arguments: map[string]any{
		"name": "sheet-size", "description": "Counts the rows of the order sheet.", "rationale": "often asked",
		"code": "import { getSheet } from \"servers/google-drive/getSheet\";\nexport default async function () { return (await getSheet({ sheetId: \"abc123\" })).rows.length; }\n"}})
	if err != nil || res.IsError {
		t.Fatalf("propose through the load balancer: %v %+v", err, res)
	}
	approveSkill(t, ws, "sheet-size")
	for i, u := range replicas {
		s := connect(u)
		found := false
		for tool, err := range s.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			found = found || tool.Name == "sheet-size"
		}
		if !found {
			t.Errorf("replica %d does not serve the approved skill", i+1)
		}
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "sheet-size", Arguments: map[string]any{}})
		if err != nil || res.IsError || !strings.Contains(textOf(res), "10000") {
			t.Errorf("replica %d running the skill: %v %s", i+1, err, textOf(res))
		}
	}
	if hits[0].Load() == 0 || hits[1].Load() == 0 {
		t.Errorf("the proxy did not spread requests: %d and %d", hits[0].Load(), hits[1].Load())
	}
	// Without the token, nothing.
	resp, err := http.Post(replicas[0], "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a request without the token got %d", resp.StatusCode)
	}
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func textOf(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
