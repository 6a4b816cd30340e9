package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOAuthDPoPLoginKeyNeverShown: an authorization server that
// advertises DPoP (ES256) gets a DPoP-bound login from `mcpcode auth`,
// which says so; later commands present the token with the DPoP scheme
// and a proof; the login's private key is written only to the token file,
// never to an output, a log or the workspace. (servers/dpop_test.go
// checks the proofs themselves.)
func TestOAuthDPoPLoginKeyNeverShown(t *testing.T) {
	e2e(t)
	t.Parallel()
	var mu sync.Mutex
	bound := map[string]bool{} // access tokens issued as DPoP
	var schemes []string
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	base := srv.URL
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		writeJSONResponse(w, 200, map[string]any{"resource": base + "/mcp", "authorization_servers": []string{base}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSONResponse(w, 200, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}, "dpop_signing_alg_values_supported": []string{"ES256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		writeJSONResponse(w, 201, map[string]any{"client_id": "c1", "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		to, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
		to.RawQuery = url.Values{"code": {"code-1"}, "state": {r.URL.Query().Get("state")}}.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		tok := fmt.Sprintf("AT-%d", len(bound)+1)
		typ := "Bearer"
		if r.Header.Get("DPoP") != "" {
			typ = "DPoP"
		}
		bound[tok] = typ == "DPoP"
		writeJSONResponse(w, 200, map[string]any{"access_token": tok, "token_type": typ, "expires_in": 3600})
	})
	server := mcp.NewServer(&mcp.Implementation{Name: "secure", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are logged in"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		mu.Lock()
		isBound, known := bound[tok]
		if known {
			schemes = append(schemes, scheme)
		}
		mu.Unlock()
		if !known || !isBound || scheme != "DPoP" || r.Header.Get("DPoP") == "" {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP algs="ES256", resource_metadata="%s/.well-known/oauth-protected-resource/mcp"`, base))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})

	ws, home := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"secure": {"type": "http", "url": "%s/mcp"}}}`, base))
	urls := filepath.Join(t.TempDir(), "browser-urls")
	env := []string{"XDG_CONFIG_HOME=" + home, "HOME=" + home, "BROWSER=echo >> " + shellQuote(urls)}
	browseLogins(t, urls)
	var outputs strings.Builder
	run := func(args ...string) runResult {
		t.Helper()
		res := runBinaryEnv(t, ws, env, 2*time.Minute, args...)
		fmt.Fprintf(&outputs, "%s\n%s\n", res.stdout, res.stderr)
		return res
	}

	res := run("auth", "secure")
	if res.code != 0 || !strings.Contains(res.stdout, "Logged in to secure with a DPoP-bound token; 1 tool listed.") {
		t.Fatalf("auth: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	res = run("auth", "--json", "secure")
	if res.code != 0 || !strings.Contains(res.stdout, `"status": "already"`) || !strings.Contains(res.stdout, `"dpop": true`) {
		t.Errorf("auth again: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = run("tools", "secure")
	if res.code != 0 || !strings.Contains(res.stdout, "whoami") {
		t.Errorf("tools: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	mu.Lock()
	for _, s := range schemes {
		if s != "DPoP" {
			t.Errorf("a request presented the token as %s", s)
		}
	}
	logins := len(bound)
	mu.Unlock()
	if logins != 1 {
		t.Errorf("%d tokens issued, want one login", logins)
	}

	files, _ := filepath.Glob(filepath.Join(home, "mcpcode", "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	var stored struct {
		Key struct {
			D string `json:"d"`
		} `json:"dpopKey"`
	}
	data, _ := os.ReadFile(files[0])
	if err := json.Unmarshal(data, &stored); err != nil || len(stored.Key.D) < 40 {
		t.Fatalf("the token file holds no DPoP key: %v", err)
	}
	everything := outputsAndFiles(outputs.String(), ws)
	if strings.Contains(everything, stored.Key.D) {
		t.Errorf("the DPoP private key shows in an output, a log or a workspace file")
	}
	logs, _ := os.ReadFile(filepath.Join(ws, ".mcpcode", "logs", "secure.log"))
	if !strings.Contains(string(logs), "DPoP-bound") {
		t.Errorf("the server's log does not say the token is DPoP-bound:\n%s", logs)
	}
}
