package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// catcher is an HTTP server that notes every request it gets and the
// credentials it carries.
type catcher struct {
	*httptest.Server
	mu   sync.Mutex
	got  []string // "METHOD path" of each request
	auth []string // the Authorization and X-Api-Key headers and form secrets it saw
}

func newCatcher(t *testing.T, host string, h http.HandlerFunc) *catcher {
	t.Helper()
	c := &catcher{}
	l, err := net.Listen("tcp", host+":0")
	if err != nil {
		t.Fatalf("listening on %s: %v", host, err)
	}
	c.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		c.mu.Lock()
		c.got = append(c.got, r.Method+" "+r.URL.Path)
		for _, v := range []string{r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.PostForm.Get("client_secret")} {
			if v != "" {
				c.auth = append(c.auth, v)
			}
		}
		c.mu.Unlock()
		if h != nil {
			h(w, r)
			return
		}
		http.Error(w, "nothing here", http.StatusNotFound)
	}))
	c.Server.Listener.Close()
	c.Server.Listener = l
	c.Start()
	t.Cleanup(c.Close)
	return c
}

func (c *catcher) credentials() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.auth...)
}

func (c *catcher) requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

// redirector answers every request with a redirect of the given status to
// target (the same path).
func redirector(status int, target func() string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target()+r.URL.Path, status)
	}
}

// TestConfiguredHeadersStayWithTheirOrigin: a server that redirects to
// another origin (another host, the same host on another port) with any
// redirect status does not get mcpcode to send the configured headers
// there; the connection fails with an error that says why.
func TestConfiguredHeadersStayWithTheirOrigin(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"127.0.0.2", "127.0.0.1"} { // another host; the same host, another port
		for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
			for _, tr := range []string{TransportHTTP, TransportSSE} {
				t.Run(fmt.Sprintf("%s/%d/%s", target, status, tr), func(t *testing.T) {
					t.Parallel()
					thief := newCatcher(t, target, nil)
					origin := newCatcher(t, "127.0.0.1", redirector(status, func() string { return thief.URL }))
					cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "crm", Transport: tr, URL: origin.URL + "/mcp",
						Headers: map[string]string{"Authorization": "Bearer SECRET-TOKEN", "X-Api-Key": "SECRET-KEY"}}}}
					p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second})
					defer p.Close()
					_, err := p.Connect(context.Background(), "crm")
					if err == nil {
						t.Fatal("connected through a redirect to another origin")
					}
					if got := thief.credentials(); len(got) > 0 {
						t.Fatalf("the other origin got the configured credentials %q", got)
					}
					if len(origin.credentials()) == 0 {
						t.Fatal("the server's own origin got no credentials")
					}
					if !strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), thief.URL) {
						t.Errorf("the error does not say a redirect to another origin was refused: %v", err)
					}
				})
			}
		}
	}
}

// TestSSEOAuthTokenStaysWithItsOrigin: on an SSE server the OAuth access
// token (added by mcpcode's round tripper, go-sdk's SSE transport has no
// OAuth hook) is not sent to another origin the server redirects to.
func TestSSEOAuthTokenStaysWithItsOrigin(t *testing.T) {
	t.Parallel()
	thief := newCatcher(t, "127.0.0.2", nil)
	origin := newCatcher(t, "127.0.0.1", redirector(http.StatusTemporaryRedirect, func() string { return thief.URL }))
	store := &TokenStore{Dir: t.TempDir()}
	if err := store.save(&storedLogin{URL: origin.URL + "/sse", ClientID: "c", Grant: GrantAuthorizationCode,
		Token: &oauth2.Token{AccessToken: "ACCESS-TOKEN", TokenType: "Bearer", Expiry: time.Now().Add(time.Hour)}}); err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "legacy", Transport: TransportSSE, URL: origin.URL + "/sse"}}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: store})
	defer p.Close()
	if _, err := p.Connect(context.Background(), "legacy"); err == nil {
		t.Fatal("connected through a redirect to another origin")
	}
	if got := thief.credentials(); len(got) > 0 {
		t.Fatalf("the other origin got %q", got)
	}
	if got := origin.credentials(); len(got) == 0 || got[0] != "Bearer ACCESS-TOKEN" {
		t.Fatalf("the server's own origin got %q, want the stored token", got)
	}
}

// evilAuthServer is an authorization server that should never see the
// client secret: it notes every request.
func oauthMCPServer(t *testing.T, asURL func() string) *catcher {
	t.Helper()
	var c *catcher
	c = newCatcher(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(oauthex.ProtectedResourceMetadata{Resource: c.URL + "/mcp", AuthorizationServers: []string{asURL()}})
		default:
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+c.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
		}
	})
	return c
}

// asMetadata serves authorization server metadata naming issuer and token
// endpoint as given (the token endpoint also answers, with an error).
func asMetadata(t *testing.T, host string, tokenEndpoint func(self string) string) *catcher {
	t.Helper()
	var c *catcher
	c = newCatcher(t, host, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server", "/.well-known/openid-configuration":
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": c.URL, "authorization_endpoint": c.URL + "/authorize",
				"token_endpoint": tokenEndpoint(c.URL), "response_types_supported": []string{"code"},
				"grant_types_supported": []string{"client_credentials"}, "code_challenge_methods_supported": []string{"S256"}})
		default:
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"error": "invalid_client"})
		}
	})
	return c
}

// TestClientSecretGoesOnlyToThePinnedIssuer: with "oauth.issuer" pinned in
// mcp.json, a server whose metadata names another authorization server
// gets no client secret sent there; the login fails and says why.
func TestClientSecretGoesOnlyToThePinnedIssuer(t *testing.T) {
	t.Parallel()
	evil := asMetadata(t, "127.0.0.2", func(self string) string { return self + "/token" })
	good := asMetadata(t, "127.0.0.1", func(self string) string { return self + "/token" })
	mcpSrv := oauthMCPServer(t, func() string { return evil.URL })
	data := fmt.Sprintf(`{"mcpServers": {"m2m": {"url": %q, "oauth": {"clientId": "m2m", "clientSecret": "TOP-SECRET", "grant": "client_credentials", "issuer": %q}}}}`, mcpSrv.URL+"/mcp", good.URL)
	cfg, err := ParseConfig([]byte(data), "/ws/mcp.json", func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) > 0 {
		t.Errorf("oauth.issuer gives warnings: %q", cfg.Warnings)
	}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: &TokenStore{Dir: t.TempDir()}})
	defer p.Close()
	_, err = p.Connect(context.Background(), "m2m")
	if err == nil {
		t.Fatal("connected with an authorization server other than the pinned one")
	}
	for _, c := range evil.credentials() {
		if strings.Contains(c, "TOP-SECRET") || strings.Contains(c, "m2m") {
			t.Fatalf("the authorization server the server named got the client's credentials: %q (requests %q)", c, evil.requests())
		}
	}
	if !strings.Contains(err.Error(), good.URL) || !strings.Contains(err.Error(), evil.URL) {
		t.Errorf("the error does not name the pinned and the offered authorization servers: %v", err)
	}
}

// TestClientSecretGoesOnlyToTheIssuersTokenEndpoint: with a client secret
// and no pin, a token endpoint on another origin than the discovered
// issuer's is refused: the secret is not sent there.
func TestClientSecretGoesOnlyToTheIssuersTokenEndpoint(t *testing.T) {
	t.Parallel()
	thief := newCatcher(t, "127.0.0.2", nil)
	as := asMetadata(t, "127.0.0.1", func(string) string { return thief.URL + "/token" })
	mcpSrv := oauthMCPServer(t, func() string { return as.URL })
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "m2m", Transport: TransportHTTP, URL: mcpSrv.URL + "/mcp",
		OAuth: &OAuthConfig{ClientID: "m2m", ClientSecret: "TOP-SECRET", Grant: GrantClientCredentials}}}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: &TokenStore{Dir: t.TempDir()}})
	defer p.Close()
	_, err := p.Connect(context.Background(), "m2m")
	if err == nil {
		t.Fatal("connected")
	}
	if got := thief.requests(); len(got) > 0 {
		t.Fatalf("the foreign token endpoint got %q (credentials %q)", got, thief.credentials())
	}
	if !strings.Contains(err.Error(), "token endpoint") || !strings.Contains(err.Error(), thief.URL) {
		t.Errorf("the error does not say the token endpoint was refused: %v", err)
	}
}

var _ = url.Parse

// fakeNet answers every request itself: a redirect to next[host] when
// there is one, else 200; it notes the credentials each request carried.
type fakeNet struct {
	mu   sync.Mutex
	next map[string]string // URL → Location
	seen []string          // "URL credentials"
}

func (f *fakeNet) RoundTrip(req *http.Request) (*http.Response, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, req.URL.String()+" "+req.Header.Get("Authorization"))
	resp := &http.Response{StatusCode: 200, Header: http.Header{}, Body: http.NoBody, Request: req}
	if to, ok := f.next[req.URL.String()]; ok {
		resp.StatusCode = http.StatusTemporaryRedirect
		resp.Header.Set("Location", to)
	}
	return resp, nil
}

// TestRedirectsThatChangeTheOrigin: a scheme downgrade, another port, user
// information that hides another host, a host that differs only by case
// or by the default port written out; only the last two keep the origin.
func TestRedirectsThatChangeTheOrigin(t *testing.T) {
	t.Parallel()
	const server = "https://good.example/mcp"
	for _, tt := range []struct {
		to   string
		same bool
	}{
		{"http://good.example/mcp", false},                  // https to http
		{"https://good.example:8443/mcp", false},            // another port
		{"https://good.example@evil.example/mcp", false},    // user information, then the real host
		{"https://evil.example%2f@good.example/mcp", false}, // the same origin, with user information
		{"https://good.example.evil.example/mcp", false},
		{"https://sub.good.example/mcp", false}, // net/http would keep Authorization for a subdomain
		{"//evil.example/mcp", false},           // scheme-relative
		{"https://GOOD.example:443/mcp/", true},
		{"/mcp/", true},
	} {
		f := &fakeNet{next: map[string]string{server: tt.to}}
		c := serverClient(&httpRoundTripper{base: f, headers: map[string]string{"Authorization": "Bearer SECRET"}}, server)
		resp, err := c.Get(server)
		if resp != nil {
			resp.Body.Close()
		}
		if tt.same != (err == nil) {
			t.Errorf("redirect to %s: error %v, want the redirect followed: %v", tt.to, err, tt.same)
		}
		f.mu.Lock()
		for _, s := range f.seen[1:] {
			if !tt.same {
				t.Errorf("redirect to %s: a request was sent: %s", tt.to, s)
			} else if !strings.HasSuffix(s, " Bearer SECRET") {
				t.Errorf("redirect to %s (same origin): sent without the header: %s", tt.to, s)
			}
		}
		f.mu.Unlock()
	}
	for in, want := range map[string]string{
		"https://a.example":       "https://a.example:443",
		"HTTPS://A.Example:443/x": "https://a.example:443",
		"http://u:p@a.example/":   "http://a.example:80",
		"http://[::1]:8080/":      "http://[::1]:8080",
		"http://a.example.:80/":   "http://a.example.:80",
	} {
		if got := originOfURL(in); got != want {
			t.Errorf("originOfURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOAuthIssuerConfig: oauth.issuer is an https URL (http on loopback),
// expanded like the other fields.
func TestOAuthIssuerConfig(t *testing.T) {
	t.Parallel()
	env := func(k string) (string, bool) { return map[string]string{"AS": "https://auth.example"}[k], k == "AS" }
	for issuer, wantErr := range map[string]bool{
		"https://auth.example":         false,
		"${AS}":                        false,
		"http://127.0.0.1:9000":        false,
		"http://localhost:9000/tenant": false,
		"http://auth.example":          true,
		"https://auth.example/?x=1":    true,
		"https://user@auth.example":    true,
		"auth.example":                 true,
	} {
		data := fmt.Sprintf(`{"mcpServers": {"s": {"url": "https://mcp.example/mcp", "oauth": {"issuer": %q}}}}`, issuer)
		cfg, err := ParseConfig([]byte(data), "/ws/mcp.json", env)
		if err == nil && len(cfg.Servers) == 1 {
			err = cfg.Servers[0].Err
		}
		if gotErr := err != nil; gotErr != wantErr {
			t.Errorf("issuer %q: error %v, want error %v", issuer, err, wantErr)
		}
		if err != nil && !strings.Contains(err.Error(), "oauth.issuer") {
			t.Errorf("issuer %q: the error does not name oauth.issuer: %v", issuer, err)
		}
	}
}

// TestSSEEndpointOnAnotherOrigin: an SSE server whose endpoint event sends
// mcpcode's messages to another origin does not get the configured
// headers sent there.
func TestSSEEndpointOnAnotherOrigin(t *testing.T) {
	t.Parallel()
	thief := newCatcher(t, "127.0.0.2", nil)
	origin := newCatcher(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?session=1\n\n", thief.URL)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "legacy", Transport: TransportSSE, URL: origin.URL + "/sse",
		Headers: map[string]string{"Authorization": "Bearer SECRET-TOKEN"}}}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second})
	defer p.Close()
	_, err := p.Connect(context.Background(), "legacy")
	if err == nil {
		t.Fatal("connected")
	}
	if got := thief.requests(); len(got) > 0 {
		t.Fatalf("the other origin got %q (credentials %q)", got, thief.credentials())
	}
	if !strings.Contains(err.Error(), "another origin") || !strings.Contains(err.Error(), thief.URL) {
		t.Errorf("the error does not say why: %v", err)
	}
}

// TestClientSecretDoesNotFollowATokenRedirect: a token endpoint on the
// issuer's origin that redirects (307: the form with the secret is sent
// again) to another origin does not get the secret sent there.
func TestClientSecretDoesNotFollowATokenRedirect(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"client_secret_basic", "client_secret_post"} {
		t.Run(method, func(t *testing.T) {
			t.Parallel()
			testTokenRedirect(t, method)
		})
	}
}

func testTokenRedirect(t *testing.T, authMethod string) {
	thief := newCatcher(t, "127.0.0.2", nil)
	var as *catcher
	as = newCatcher(t, "127.0.0.1", func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/.well-known/oauth-authorization-server":
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": as.URL, "authorization_endpoint": as.URL + "/authorize",
				"token_endpoint": as.URL + "/token", "response_types_supported": []string{"code"},
				"grant_types_supported": []string{"client_credentials"}, "code_challenge_methods_supported": []string{"S256"},
				"token_endpoint_auth_methods_supported": []string{authMethod}})
		case "/token":
			http.Redirect(w, r, thief.URL+"/token", http.StatusTemporaryRedirect)
		default:
			http.NotFound(w, r)
		}
	})
	mcpSrv := oauthMCPServer(t, func() string { return as.URL })
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "m2m", Transport: TransportHTTP, URL: mcpSrv.URL + "/mcp",
		OAuth: &OAuthConfig{ClientID: "m2m", ClientSecret: "TOP-SECRET", Grant: GrantClientCredentials}}}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 10 * time.Second, Tokens: &TokenStore{Dir: t.TempDir()}})
	defer p.Close()
	if _, err := p.Connect(context.Background(), "m2m"); err == nil {
		t.Fatal("connected")
	}
	if got := thief.requests(); len(got) > 0 {
		t.Fatalf("the redirect target got %q (credentials %q)", got, thief.credentials())
	}
	if got := as.credentials(); len(got) == 0 {
		t.Errorf("the issuer's own token endpoint got no credentials: the test does not test the redirect")
	}
}
