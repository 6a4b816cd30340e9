package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// authServer is an MCP server (streamable HTTP at /mcp, SSE at /sse) behind
// OAuth, with its authorization server: dynamic registration,
// authorization code (PKCE not checked here; the CLI's end-to-end test
// does) and client credentials for client "m2m" with secret "s3".
type authServer struct {
	*httptest.Server
	mu     sync.Mutex
	tokens map[string]string // access token -> grant
	grants []string
}

// writeJSON answers with v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// approveAuthorization is an authorization endpoint whose person approves
// at once: it redirects back with the code "c1" and the request's state.
func approveAuthorization(w http.ResponseWriter, r *http.Request) {
	to, _ := url.Parse(r.URL.Query().Get("redirect_uri"))
	to.RawQuery = url.Values{"code": {"c1"}, "state": {r.URL.Query().Get("state")}}.Encode()
	http.Redirect(w, r, to.String(), http.StatusFound)
}

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	a := &authServer{tokens: map[string]string{}}
	mux := http.NewServeMux()
	a.Server = httptest.NewServer(mux)
	t.Cleanup(a.Close)
	base := a.URL
	for _, res := range []string{"mcp", "sse"} {
		mux.Handle("/.well-known/oauth-protected-resource/"+res, auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
			Resource: base + "/" + res, AuthorizationServers: []string{base}}))
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 200, map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported": []string{"authorization_code", "client_credentials", "refresh_token"}, "code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, map[string]any{"client_id": "dyn", "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", approveAuthorization)
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		grant := r.Form.Get("grant_type")
		if grant == "client_credentials" {
			id, secret, _ := r.BasicAuth()
			if id == "" {
				id, secret = r.Form.Get("client_id"), r.Form.Get("client_secret")
			}
			if id != "m2m" || secret != "s3" {
				writeJSON(w, 401, map[string]string{"error": "invalid_client"})
				return
			}
		}
		a.mu.Lock()
		tok := fmt.Sprintf("tok-%d", len(a.tokens)+1)
		a.tokens[tok] = grant
		a.grants = append(a.grants, grant)
		a.mu.Unlock()
		writeJSON(w, 200, map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 3600})
	})
	srv := mcp.NewServer(&mcp.Implementation{Name: "locked", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
	})
	verify := func(_ context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.tokens[tok] == "" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	get := func(*http.Request) *mcp.Server { return srv }
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: base + "/.well-known/oauth-protected-resource/mcp"})(mcp.NewStreamableHTTPHandler(get, nil)))
	mux.Handle("/sse", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: base + "/.well-known/oauth-protected-resource/sse"})(mcp.NewSSEHandler(get, nil)))
	return a
}

// browse plays the person at the browser: it loads the login page and
// follows the redirects back to mcpcode.
func browse(_ context.Context, _, u string) error {
	resp, err := http.Get(u)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("login page: %s", resp.Status)
	}
	return nil
}

func TestOAuthOverHTTPAndSSE(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t)
	for _, tr := range []string{TransportHTTP, TransportSSE} {
		t.Run(tr, func(t *testing.T) {
			path := map[string]string{TransportHTTP: "/mcp", TransportSSE: "/sse"}[tr]
			cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "locked", Transport: tr, URL: a.URL + path}}}
			store := &TokenStore{Dir: t.TempDir()}

			// No login possible: "needs login", not a 401.
			p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: store})
			_, err := p.Connect(context.Background(), "locked")
			p.Close()
			if !errors.Is(err, ErrNeedsLogin) || err.Error() != `server "locked": needs login: mcpcode auth locked` {
				t.Fatalf("without a login: %v", err)
			}

			// Logging in, then a new pool uses the stored token.
			p = NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: store, Login: &LoginOptions{OpenURL: browse}})
			if _, err := p.Connect(context.Background(), "locked"); err != nil {
				t.Fatalf("login: %v", err)
			}
			if info := p.Authorization("locked"); !info.OAuth || !info.LoggedIn {
				t.Errorf("after login: %+v", info)
			}
			p.Close()
			p = NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: store})
			defer p.Close()
			res, err := p.CallTool(context.Background(), "locked", "ping", nil)
			if err != nil || res.Text() != "pong" {
				t.Fatalf("with the stored login: %v %v", res, err)
			}
			if info := p.Authorization("locked"); !info.OAuth || info.LoggedIn {
				t.Errorf("with the stored login: %+v", info)
			}
			if forgot, err := store.Forget(a.URL + path); !forgot || err != nil {
				t.Errorf("forget: %v %v", forgot, err)
			}
		})
	}
}

func TestOAuthClientCredentials(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t)
	store := &TokenStore{Dir: t.TempDir()}
	for _, grant := range []string{GrantClientCredentials, ""} {
		store := store
		if grant == "" {
			store = &TokenStore{Dir: t.TempDir()}
		}
		cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "m2m", Transport: TransportHTTP, URL: a.URL + "/mcp",
			OAuth: &OAuthConfig{ClientID: "m2m", ClientSecret: "s3", Grant: grant}}}}
		p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: store})
		res, err := p.CallTool(context.Background(), "m2m", "ping", nil)
		p.Close()
		if grant == "" {
			// The authorization server offers the authorization code too:
			// without "grant", a person must log in.
			if !errors.Is(err, ErrNeedsLogin) {
				t.Errorf("grant unset: %v", err)
			}
			continue
		}
		if err != nil || res.Text() != "pong" {
			t.Fatalf("client credentials: %v %v", res, err)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.grants) != 1 || a.grants[0] != "client_credentials" {
		t.Errorf("grants: %v", a.grants)
	}
	entries, _ := os.ReadDir(store.Dir)
	if len(entries) != 1 {
		t.Errorf("stored: %v", entries)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(store.Dir + "/" + e.Name())
		if strings.Contains(string(data), `"s3"`) {
			t.Errorf("the client secret of mcp.json is stored with the token")
		}
	}
}
