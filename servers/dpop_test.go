package servers

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// checkedProof is what a server found in a DPoP proof it verified.
type checkedProof struct {
	jkt    string // the thumbprint of the proof's key
	claims map[string]any
}

// verifyProof checks a DPoP proof as a server does (RFC 9449, section
// 4.3), independently of dpop.go: typ, alg, a public JWK, the ES256
// signature with that key, jti, htm, htu without query, iat, and ath when
// a token is presented with it.
func verifyProof(proof, method, wantHTU, token string) (checkedProof, error) {
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return checkedProof{}, errors.New("not a JWS")
	}
	dec := func(s string, v any) error {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil {
			return err
		}
		return json.Unmarshal(b, v)
	}
	var h struct {
		Typ string            `json:"typ"`
		Alg string            `json:"alg"`
		JWK map[string]string `json:"jwk"`
	}
	if err := dec(parts[0], &h); err != nil {
		return checkedProof{}, err
	}
	if h.Typ != "dpop+jwt" || h.Alg != "ES256" || h.JWK["kty"] != "EC" || h.JWK["crv"] != "P-256" {
		return checkedProof{}, fmt.Errorf("header %+v", h)
	}
	if _, ok := h.JWK["d"]; ok {
		return checkedProof{}, errors.New("the jwk holds the private key")
	}
	x, err1 := base64.RawURLEncoding.DecodeString(h.JWK["x"])
	y, err2 := base64.RawURLEncoding.DecodeString(h.JWK["y"])
	if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
		return checkedProof{}, errors.New("jwk coordinates")
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return checkedProof{}, err
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(sig) != 64 {
		return checkedProof{}, errors.New("signature encoding")
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return checkedProof{}, errors.New("the signature does not verify with the proof's key")
	}
	var c map[string]any
	if err := dec(parts[1], &c); err != nil {
		return checkedProof{}, err
	}
	if jti, _ := c["jti"].(string); len(jti) < 16 {
		return checkedProof{}, errors.New("jti missing or short")
	}
	if c["htm"] != method {
		return checkedProof{}, fmt.Errorf("htm %v, want %s", c["htm"], method)
	}
	if c["htu"] != wantHTU {
		return checkedProof{}, fmt.Errorf("htu %v, want %s", c["htu"], wantHTU)
	}
	iat, _ := c["iat"].(float64)
	if d := time.Since(time.Unix(int64(iat), 0)); d > 5*time.Minute || d < -5*time.Minute {
		return checkedProof{}, fmt.Errorf("iat %v", c["iat"])
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		if c["ath"] != base64.RawURLEncoding.EncodeToString(sum[:]) {
			return checkedProof{}, fmt.Errorf("ath %v does not hash the token", c["ath"])
		}
	} else if _, ok := c["ath"]; ok {
		return checkedProof{}, errors.New("ath at the token endpoint")
	}
	jwk := fmt.Sprintf(`{"crv":"P-256","kty":"EC","x":%q,"y":%q}`, h.JWK["x"], h.JWK["y"])
	sum := sha256.Sum256([]byte(jwk))
	return checkedProof{jkt: base64.RawURLEncoding.EncodeToString(sum[:]), claims: c}, nil
}

func TestDPoPProofClaims(t *testing.T) {
	t.Parallel()
	key, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	bodySum := sha256.Sum256(body)
	for _, tc := range []struct {
		name, method, url, token, nonce, wantHTU string
		body                                     []byte
		digest                                   bool
	}{
		{name: "token endpoint", method: "POST", url: "https://as.example/token", wantHTU: "https://as.example/token"},
		{name: "token endpoint with a nonce", method: "POST", url: "https://as.example/token", nonce: "n-1", wantHTU: "https://as.example/token"},
		{name: "MCP request", method: "POST", url: "https://mcp.example/mcp", token: "at-1", body: body, digest: true, wantHTU: "https://mcp.example/mcp"},
		{name: "query and fragment left out", method: "GET", url: "https://mcp.example:8443/sse?sessionid=abc#frag", token: "at-2", digest: true, wantHTU: "https://mcp.example:8443/sse"},
		{name: "nonce from the server", method: "DELETE", url: "http://127.0.0.1:9/mcp", token: "at-3", nonce: "abc_DEF-1.2~x", digest: true, wantHTU: "http://127.0.0.1:9/mcp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, _ := url.Parse(tc.url)
			proof, err := key.sign(dpopProof{method: tc.method, url: u, token: tc.token, nonce: tc.nonce, body: tc.body, digest: tc.digest}, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			p, err := verifyProof(proof, tc.method, tc.wantHTU, tc.token)
			if err != nil {
				t.Fatalf("the proof does not verify: %v", err)
			}
			if p.jkt != key.thumbprint() {
				t.Errorf("the proof's key %s is not the login's %s", p.jkt, key.thumbprint())
			}
			if got, _ := p.claims["nonce"].(string); got != tc.nonce {
				t.Errorf("nonce %q, want %q", got, tc.nonce)
			}
			digest, has := p.claims["content_digest"]
			switch {
			case tc.digest && digest != "sha-256=:"+base64.StdEncoding.EncodeToString(map[bool][]byte{true: bodySum[:], false: sha256Sum(nil)}[tc.body != nil])+":":
				t.Errorf("content_digest %v", digest)
			case !tc.digest && has:
				t.Errorf("content_digest at the token endpoint: %v", digest)
			}
			again, _ := key.sign(dpopProof{method: tc.method, url: u, token: tc.token}, time.Now())
			if q, _ := verifyProof(again, tc.method, tc.wantHTU, tc.token); q.claims["jti"] == p.claims["jti"] {
				t.Errorf("two proofs share jti %v", p.claims["jti"])
			}
		})
	}
}

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}

func TestDPoPKeyStoredNeverShown(t *testing.T) {
	t.Parallel()
	key, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	l := storedLogin{URL: "https://mcp.example/mcp", Grant: GrantAuthorizationCode, DPoP: key, Token: &oauth2.Token{AccessToken: "at"}}
	data, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back storedLogin
	if err := json.Unmarshal(data, &back); err != nil || back.DPoP == nil {
		t.Fatalf("read back: %v %v", back.DPoP, err)
	}
	if back.DPoP.thumbprint() != key.thumbprint() || !back.DPoP.priv.Equal(key.priv) {
		t.Errorf("the stored key reads back as another key")
	}
	d, _ := key.priv.Bytes()
	secret := base64.RawURLEncoding.EncodeToString(d)
	if !strings.Contains(string(data), secret) {
		t.Fatalf("the store does not hold the private key")
	}
	for _, shown := range []string{fmt.Sprintf("%v", l), fmt.Sprintf("%+v", l), fmt.Sprintf("%#v", l), fmt.Sprint(key), fmt.Sprintf("%+v", *key)} {
		if strings.Contains(shown, secret) || strings.Contains(shown, fmt.Sprint(key.priv.D)) {
			t.Errorf("printing shows the private key: %s", shown)
		}
	}
	// A hostile or damaged login file: another curve or key type with a
	// scalar that would be a valid P-256 key, the scalars 0 and the group
	// order n, a scalar too long.
	n := base64.RawURLEncoding.EncodeToString(elliptic.P256().Params().N.Bytes())
	zero := base64.RawURLEncoding.EncodeToString(make([]byte, 32))
	long := base64.RawURLEncoding.EncodeToString(append([]byte{0}, d...))
	for _, bad := range []string{`{"kty":"EC","crv":"P-384","d":"AAAA"}`, `{"kty":"EC","crv":"P-256","d":"not base64!"}`, `{"kty":"EC","crv":"P-256","d":"AAAA"}`, `{"kty":"RSA"}`,
		`{"kty":"EC","crv":"P-384","d":"` + secret + `"}`, `{"kty":"OKP","crv":"P-256","d":"` + secret + `"}`,
		`{"kty":"EC","crv":"P-256","d":"` + zero + `"}`, `{"kty":"EC","crv":"P-256","d":"` + n + `"}`, `{"kty":"EC","crv":"P-256","d":"` + long + `"}`} {
		var k dpopKey
		if err := json.Unmarshal([]byte(bad), &k); err == nil {
			t.Errorf("stored key %s accepted", bad)
		}
	}
	// Public coordinates that are not the private key's are not believed:
	// proofs carry the key that signs them.
	other, _ := newDPoPKey()
	var pub storedDPoPKey
	_ = json.Unmarshal(other.jwk, &pub)
	var k dpopKey
	if err := json.Unmarshal([]byte(`{"kty":"EC","crv":"P-256","x":"`+pub.X+`","y":"`+pub.Y+`","d":"`+secret+`"}`), &k); err != nil || k.thumbprint() != key.thumbprint() {
		t.Errorf("a stored key with another key's x and y: %v, thumbprint %s, want the private key's %s", err, k.thumbprint(), key.thumbprint())
	}
}

func TestDPoPNonceValidity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		nonce string
		ok    bool
	}{
		{"eyJ7S_zG.eyJH0-Z.HX4w-7v", true},
		{"!#$%&'()*+,-./:;<=>?@[]^_`{|}~", true},
		{strings.Repeat("n", maxDPoPNonce), true},
		{"", false},
		{strings.Repeat("n", maxDPoPNonce+1), false},
		{"a b", false},
		{`a"b`, false},
		{`a\b`, false},
		{"a\r\nSet-Cookie: x=1", false},
		{"a\x00b", false},
		{"a\x1bb", false},
		{"a\x7fb", false},
		{"nonce\u00e9", false},
	} {
		if got := validDPoPNonce(tc.nonce); got != tc.ok {
			t.Errorf("validDPoPNonce(%q) = %v, want %v", tc.nonce, got, tc.ok)
		}
	}
}

// dpopServer is an MCP server (streamable HTTP at /mcp, SSE at /sse)
// behind an authorization server that binds tokens to DPoP keys, and
// checks every proof it gets (verifyProof).
type dpopServer struct {
	*httptest.Server
	// algs is dpop_signing_alg_values_supported (nil: not in the metadata).
	algs []string
	// tokenEndpoint overrides the metadata's token_endpoint.
	tokenEndpoint string
	// asNonce and rsNonce, when set, are the nonces the token endpoint and
	// the MCP server require; nonceHeader, when set, is the DPoP-Nonce
	// header they send instead of the nonce; always makes them ask for it
	// on every request.
	asNonce, rsNonce, nonceHeader string
	asAlways, rsAlways            bool
	// bearerOnly makes the token endpoint issue Bearer tokens even for a
	// request with a proof.
	bearerOnly bool
	// dpopAlways makes it issue token_type DPoP even without a proof.
	dpopAlways bool
	expiresIn  int
	// redirectTo, when set, answers DPoP requests to the MCP server with
	// a 307 there.
	redirectTo string

	mu       sync.Mutex
	tokens   map[string]string // access token -> jkt ("" for a Bearer token)
	refresh  map[string]string // refresh token -> jkt
	tokenReq []tokenSeen
	mcpReq   []mcpSeen
}

type tokenSeen struct {
	grant, jkt, nonce string
	proof             bool
}

type mcpSeen struct {
	method, scheme, jkt, nonce string
	call                       string // the JSON-RPC request's method and id
	proof                      bool
	err                        string
}

func newDPoPServer(t *testing.T, s *dpopServer) *dpopServer {
	t.Helper()
	s.tokens, s.refresh = map[string]string{}, map[string]string{}
	if s.expiresIn == 0 {
		s.expiresIn = 3600
	}
	mux := http.NewServeMux()
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	base := s.URL
	for _, res := range []string{"mcp", "sse"} {
		mux.HandleFunc("/.well-known/oauth-protected-resource/"+res, func(w http.ResponseWriter, r *http.Request) {
			writeJSON(w, 200, map[string]any{"resource": base + "/" + res, "authorization_servers": []string{base}})
		})
	}
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		te := base + "/token"
		if s.tokenEndpoint != "" {
			te = s.tokenEndpoint
		}
		m := map[string]any{"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": te,
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported": []string{"authorization_code", "refresh_token"}, "code_challenge_methods_supported": []string{"S256"}}
		if s.algs != nil {
			m["dpop_signing_alg_values_supported"] = s.algs
		}
		writeJSON(w, 200, m)
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, 201, map[string]any{"client_id": "dyn", "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", approveAuthorization)
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		seen := tokenSeen{grant: r.Form.Get("grant_type")}
		defer func() {
			s.mu.Lock()
			s.tokenReq = append(s.tokenReq, seen)
			s.mu.Unlock()
		}()
		if proof := r.Header.Get("DPoP"); proof != "" {
			seen.proof = true
			p, err := verifyProof(proof, "POST", base+"/token", "")
			if err != nil {
				writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
				return
			}
			seen.jkt = p.jkt
			seen.nonce, _ = p.claims["nonce"].(string)
			if s.asNonce != "" && (s.asAlways || seen.nonce != s.asNonce) {
				w.Header().Set("DPoP-Nonce", cmp(s.nonceHeader, s.asNonce))
				writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce"})
				return
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if seen.grant == "refresh_token" {
			jkt, ok := s.refresh[r.Form.Get("refresh_token")]
			if !ok || jkt != seen.jkt {
				writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "the refresh token is bound to another key"})
				return
			}
		}
		n := len(s.tokens) + 1
		at, rt := fmt.Sprintf("at-%d", n), fmt.Sprintf("rt-%d", n)
		typ, bound := "Bearer", ""
		if seen.jkt != "" && !s.bearerOnly {
			typ, bound = "DPoP", seen.jkt
		}
		if s.dpopAlways {
			typ = "DPoP"
		}
		s.tokens[at] = bound
		s.refresh[rt] = seen.jkt
		writeJSON(w, 200, map[string]any{"access_token": at, "token_type": typ, "expires_in": s.expiresIn, "refresh_token": rt})
	})
	srv := mcp.NewServer(&mcp.Implementation{Name: "bound", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil
	})
	get := func(*http.Request) *mcp.Server { return srv }
	mux.Handle("/mcp", s.protect("/mcp", mcp.NewStreamableHTTPHandler(get, nil)))
	mux.Handle("/sse", s.protect("/sse", mcp.NewSSEHandler(get, nil)))
	return s
}

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// protect lets through requests with a token the authorization server
// issued, presented as it was issued: a DPoP-bound one with the DPoP
// scheme and a valid proof of its key (ath, content_digest, nonce).
func (s *dpopServer) protect(path string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		challenge := fmt.Sprintf(`DPoP algs="ES256", resource_metadata="%s/.well-known/oauth-protected-resource%s"`, s.URL, path)
		scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string          `json:"method"`
			ID     json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(body, &msg)
		seen := mcpSeen{method: r.Method, call: msg.Method + "#" + string(msg.ID), scheme: scheme, proof: r.Header.Get("DPoP") != ""}
		record := func(errText string) {
			seen.err = errText
			s.mu.Lock()
			s.mcpReq = append(s.mcpReq, seen)
			s.mu.Unlock()
		}
		s.mu.Lock()
		jkt, known := s.tokens[token]
		s.mu.Unlock()
		if !known {
			record("no valid token")
			w.Header().Set("WWW-Authenticate", challenge)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if jkt == "" {
			if scheme != "Bearer" {
				record("a Bearer token in scheme " + scheme)
				w.Header().Set("WWW-Authenticate", challenge)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			record("")
			next.ServeHTTP(w, r)
			return
		}
		if scheme != "DPoP" {
			record("a DPoP-bound token in scheme " + scheme)
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_token"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		p, err := verifyProof(r.Header.Get("DPoP"), r.Method, "http://"+r.Host+r.URL.Path, token)
		if err == nil && p.jkt != jkt {
			err = errors.New("the proof's key is not the token's")
		}
		if err == nil && p.claims["content_digest"] != "sha-256=:"+base64.StdEncoding.EncodeToString(sha256Sum(body))+":" {
			err = fmt.Errorf("content_digest %v", p.claims["content_digest"])
		}
		if err != nil {
			record(err.Error())
			w.Header().Set("WWW-Authenticate", `DPoP error="invalid_dpop_proof"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		seen.jkt = p.jkt
		seen.nonce, _ = p.claims["nonce"].(string)
		if s.rsNonce != "" && (s.rsAlways || seen.nonce != s.rsNonce) {
			record("use_dpop_nonce")
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="Resource server requires nonce in DPoP proof"`)
			w.Header().Set("DPoP-Nonce", cmp(s.nonceHeader, s.rsNonce))
			http.Error(w, "nonce", http.StatusUnauthorized)
			return
		}
		if s.redirectTo != "" {
			record("redirected")
			http.Redirect(w, r, s.redirectTo, http.StatusTemporaryRedirect)
			return
		}
		record("")
		next.ServeHTTP(w, r)
	})
}

func (s *dpopServer) seen() ([]tokenSeen, []mcpSeen) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.tokenReq), slices.Clone(s.mcpReq)
}

func dpopPool(s *dpopServer, path string, store *TokenStore, login bool) *Pool {
	tr := TransportHTTP
	if path == "/sse" {
		tr = TransportSSE
	}
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "bound", Transport: tr, URL: s.URL + path}}}
	opts := PoolOptions{ConnectTimeout: 20 * time.Second, Tokens: store}
	if login {
		opts.Login = &LoginOptions{OpenURL: browse}
	}
	return NewPool(cfg, opts)
}

func ping(p *Pool) error {
	res, err := p.CallTool(context.Background(), "bound", "ping", nil)
	if err != nil {
		return err
	}
	if res.Text() != "pong" {
		return fmt.Errorf("ping: %q", res.Text())
	}
	return nil
}

// codeProofs are the thumbprints of the keys that signed the
// authorization code token requests (one login each).
func codeProofs(reqs []tokenSeen) []string {
	var out []string
	for _, r := range reqs {
		if r.grant == "authorization_code" && r.proof {
			out = append(out, r.jkt)
		}
	}
	return out
}

func TestDPoPLoginAndRequests(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path string
		nonces     bool
	}{
		{"http", "/mcp", false},
		{"http with nonces", "/mcp", true},
		{"sse", "/sse", false},
		{"sse with nonces", "/sse", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &dpopServer{algs: []string{"RS256", "ES256"}}
			if tc.nonces {
				s.asNonce, s.rsNonce = "as-nonce-1", "rs-nonce-1"
			}
			newDPoPServer(t, s)
			store := &TokenStore{Dir: t.TempDir()}
			p := dpopPool(s, tc.path, store, true)
			err := ping(p)
			info := p.Authorization("bound")
			p.Close()
			if err != nil {
				t.Fatalf("login and call: %v", err)
			}
			if !info.DPoP || !info.LoggedIn {
				t.Errorf("authorization %+v: want a DPoP-bound login", info)
			}
			tokens, reqs := s.seen()
			keys := codeProofs(tokens)
			wantTokenReqs := 1
			if tc.nonces {
				wantTokenReqs = 2
			}
			if len(keys) != wantTokenReqs || len(tokens) != wantTokenReqs || keys[0] == "" || keys[len(keys)-1] != keys[0] {
				t.Fatalf("token requests %+v: want %d with a valid proof of one key", tokens, wantTokenReqs)
			}
			if tc.nonces && (tokens[0].nonce != "" || tokens[1].nonce != s.asNonce) {
				t.Errorf("the token request was not sent once more with the authorization server's nonce: %+v", tokens)
			}
			jkt := keys[0]
			authed, challenged := 0, 0
			for _, r := range reqs {
				switch {
				case r.err == "no valid token" && r.scheme == "":
				case r.err == "use_dpop_nonce":
					challenged++
				case r.err != "":
					t.Errorf("the MCP server refused a request: %+v", r)
				case r.scheme != "DPoP" || r.jkt != jkt:
					t.Errorf("request %+v: want the DPoP scheme and a proof of the login's key", r)
				default:
					authed++
					if tc.nonces && r.nonce != s.rsNonce {
						t.Errorf("request %+v without the server's nonce", r)
					}
				}
			}
			if authed < 2 {
				t.Errorf("%d authorized MCP requests: %+v", authed, reqs)
			}
			if want := map[bool]int{true: 1, false: 0}[tc.nonces]; challenged != want {
				t.Errorf("the server asked for its nonce %d times, want %d (the nonce is kept for the next requests): %+v", challenged, want, reqs)
			}

			// The key is stored with the login (0600) and used again by the
			// next process, without logging in again.
			files, _ := filepath.Glob(filepath.Join(store.Dir, "*.json"))
			if len(files) != 1 {
				t.Fatalf("stored logins: %v", files)
			}
			fi, _ := os.Stat(files[0])
			data, _ := os.ReadFile(files[0])
			if fi.Mode().Perm() != 0o600 || !strings.Contains(string(data), `"dpopKey"`) {
				t.Errorf("the login's file (%v) does not hold its DPoP key", fi.Mode())
			}
			p = dpopPool(s, tc.path, store, false)
			err = ping(p)
			p.Close()
			if err != nil {
				t.Fatalf("with the stored login: %v", err)
			}
			tokens2, reqs2 := s.seen()
			if len(tokens2) != len(tokens) {
				t.Errorf("the stored login was not used: new token requests %+v", tokens2[len(tokens):])
			}
			later := reqs2[len(reqs):]
			ok := 0
			for _, r := range later {
				if r.err == "" && r.scheme == "DPoP" && r.jkt == jkt {
					ok++
				} else if r.err != "use_dpop_nonce" {
					t.Errorf("after restart: %+v", r)
				}
			}
			if ok == 0 {
				t.Errorf("after restart no request carried a proof of the stored key: %+v", later)
			}

			// A new login gets a fresh key.
			if _, err := store.Forget(s.URL + tc.path); err != nil {
				t.Fatal(err)
			}
			p = dpopPool(s, tc.path, store, true)
			err = ping(p)
			p.Close()
			if err != nil {
				t.Fatalf("second login: %v", err)
			}
			tokens3, _ := s.seen()
			keys3 := codeProofs(tokens3)
			if last := keys3[len(keys3)-1]; last == jkt || last == "" {
				t.Errorf("the new login reused the old key")
			}
		})
	}
}

func TestDPoPRefreshCarriesProofOfTheSameKey(t *testing.T) {
	t.Parallel()
	// expires_in 1: the token is stale at once (oauth2 refreshes 10 s
	// early), so every use refreshes it.
	s := newDPoPServer(t, &dpopServer{algs: []string{"ES256"}, expiresIn: 1})
	store := &TokenStore{Dir: t.TempDir()}
	p := dpopPool(s, "/mcp", store, true)
	err := ping(p)
	p.Close()
	if err != nil {
		t.Fatal(err)
	}
	p = dpopPool(s, "/mcp", store, false)
	err = ping(p)
	p.Close()
	if err != nil {
		t.Fatalf("after restart: %v", err)
	}
	tokens, reqs := s.seen()
	keys := codeProofs(tokens)
	refreshes := 0
	for _, r := range tokens {
		if r.grant == "refresh_token" {
			refreshes++
			if !r.proof || r.jkt != keys[0] {
				t.Errorf("refresh %+v: want a proof of the login's key %s", r, keys[0])
			}
		}
	}
	if len(keys) != 1 || refreshes == 0 {
		t.Errorf("token requests %+v: want one login and refreshes", tokens)
	}
	for _, r := range reqs {
		if r.err != "" && r.err != "no valid token" {
			t.Errorf("refused: %+v", r)
		}
	}
}

func TestDPoPBearerWhenNotAdvertised(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		server *dpopServer
	}{
		{"no dpop_signing_alg_values_supported", &dpopServer{}},
		{"empty", &dpopServer{algs: []string{}}},
		{"none", &dpopServer{algs: []string{"none"}}},
		{"RS256 only", &dpopServer{algs: []string{"RS256"}}},
		{"unbound token despite the proof", &dpopServer{algs: []string{"ES256"}, bearerOnly: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newDPoPServer(t, tc.server)
			p := dpopPool(s, "/mcp", &TokenStore{Dir: t.TempDir()}, true)
			err := ping(p)
			info := p.Authorization("bound")
			p.Close()
			if err != nil {
				t.Fatal(err)
			}
			if info.DPoP || !info.OAuth {
				t.Errorf("authorization %+v: want a Bearer login", info)
			}
			tokens, reqs := s.seen()
			for _, r := range tokens {
				if r.proof != (tc.name == "unbound token despite the proof") {
					t.Errorf("token request %+v", r)
				}
			}
			for _, r := range reqs {
				if r.proof || (r.scheme != "Bearer" && r.err != "no valid token") || (r.err != "" && r.err != "no valid token") {
					t.Errorf("MCP request %+v: want Bearer without a proof", r)
				}
			}
		})
	}
}

func TestDPoPTokenEndpointOnAnotherOriginGetsNoProof(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var proofs int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.Header.Get("DPoP") != "" {
			proofs++
		}
		mu.Unlock()
		http.Error(w, "no", http.StatusBadRequest)
	}))
	t.Cleanup(other.Close)
	s := newDPoPServer(t, &dpopServer{algs: []string{"ES256"}, tokenEndpoint: other.URL + "/token"})
	p := dpopPool(s, "/mcp", &TokenStore{Dir: t.TempDir()}, true)
	err := ping(p)
	p.Close()
	if err == nil {
		t.Fatal("a login whose token endpoint fails succeeded")
	}
	mu.Lock()
	defer mu.Unlock()
	if proofs != 0 {
		t.Errorf("%d DPoP proofs went to a token endpoint on another origin than the issuer's", proofs)
	}
}

func TestDPoPAdversarialServers(t *testing.T) {
	t.Parallel()
	var otherHits int
	var omu sync.Mutex
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		omu.Lock()
		otherHits++
		omu.Unlock()
	}))
	t.Cleanup(other.Close)
	huge := strings.Repeat("n", maxDPoPNonce+1)
	for _, tc := range []struct {
		name    string
		server  *dpopServer
		wantErr string
		// perKey is how many token requests each login's key signs;
		// perCall how many requests with a proof each JSON-RPC request
		// makes to the MCP server (0: none gets there).
		perKey, perCall int
	}{
		{"the MCP server keeps asking for a nonce", &dpopServer{rsNonce: "n1", rsAlways: true},
			"asked for a new DPoP nonce again after mcpcode sent the one it gave", 1, 2},
		{"the token endpoint keeps asking for a nonce", &dpopServer{asNonce: "n1", asAlways: true},
			"asked for a new DPoP nonce again after mcpcode sent the one it gave", 2, 0},
		{"a nonce with a quote and a space", &dpopServer{rsNonce: "n1", nonceHeader: `a" b`},
			"without a valid DPoP-Nonce header", 1, 1},
		{"a huge nonce", &dpopServer{rsNonce: "n1", nonceHeader: huge},
			"without a valid DPoP-Nonce header", 1, 1},
		{"a huge nonce at the token endpoint", &dpopServer{asNonce: "n1", nonceHeader: huge},
			"without a valid DPoP-Nonce header", 1, 0},
		{"a redirect to another origin", &dpopServer{redirectTo: other.URL + "/mcp"},
			"another origin", 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.server.algs = []string{"ES256"}
			s := newDPoPServer(t, tc.server)
			p := dpopPool(s, "/mcp", &TokenStore{Dir: t.TempDir()}, true)
			err := ping(p)
			p.Close()
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), huge) {
				t.Errorf("the error repeats the server's nonce")
			}
			tokens, reqs := s.seen()
			perKey, perCall := map[string]int{}, map[string]int{}
			for _, r := range tokens {
				perKey[r.jkt]++
				if r.nonce == huge || strings.Contains(r.nonce, `"`) {
					t.Errorf("the invalid nonce was sent back: %+v", r)
				}
			}
			for _, r := range reqs {
				if r.proof {
					perCall[r.call]++
				}
				if r.nonce == huge || strings.Contains(r.nonce, `"`) {
					t.Errorf("the invalid nonce was sent back: %+v", r)
				}
			}
			// go-sdk opens a session with server/discover and, when that
			// fails, once more with initialize: each is one request, and
			// with a login failing, one more login.
			if len(perKey) == 0 || len(perKey) > 2 {
				t.Errorf("%d logins: %+v", len(perKey), tokens)
			}
			for k, n := range perKey {
				if n != tc.perKey {
					t.Errorf("key %s signed %d token requests, want %d: %+v", k, n, tc.perKey, tokens)
				}
			}
			if tc.perCall > 0 && len(perCall) == 0 {
				t.Errorf("no request reached the MCP server with a proof: %+v", reqs)
			}
			for call, n := range perCall {
				if n != tc.perCall {
					t.Errorf("%s was sent %d times with a proof, want %d: %+v", call, n, tc.perCall, reqs)
				}
			}
		})
	}
	omu.Lock()
	defer omu.Unlock()
	if otherHits != 0 {
		t.Errorf("the other origin got %d requests", otherHits)
	}
}

// roundTripFunc is an http.RoundTripper of a function.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func TestDPoPSendToResourceLimits(t *testing.T) {
	t.Parallel()
	key, _ := newDPoPKey()
	var sent []*http.Request
	askNonce := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		sent = append(sent, r)
		h := http.Header{}
		h.Set("WWW-Authenticate", `DPoP error="use_dpop_nonce"`)
		h.Set("DPoP-Nonce", "fresh")
		return &http.Response{StatusCode: 401, Header: h, Body: io.NopCloser(strings.NewReader(""))}, nil
	})
	s := newDPoPState("bound", "https://mcp.example/mcp")

	// A request to another origin gets no proof at all.
	req, _ := http.NewRequest("POST", "https://evil.example/mcp", strings.NewReader("{}"))
	if _, err := s.sendToResource(askNonce, req, "at", key); err == nil || len(sent) != 0 {
		t.Errorf("a request to another origin: %v, %d sent", err, len(sent))
	}

	// A body that cannot be sent again is not sent again.
	req, _ = http.NewRequest("POST", "https://mcp.example/mcp", io.NopCloser(strings.NewReader(`{"id":1}`)))
	req.GetBody = nil
	if _, err := s.sendToResource(askNonce, req, "at", key); err == nil || !strings.Contains(err.Error(), "cannot be sent again") || len(sent) != 1 {
		t.Errorf("a body that cannot be replayed: %v, %d sent", err, len(sent))
	}

	// A replayable one is sent once more, with the nonce, and no more.
	sent = nil
	s = newDPoPState("bound", "https://mcp.example/mcp")
	req, _ = http.NewRequest("POST", "https://mcp.example/mcp", strings.NewReader(`{"id":2}`))
	_, err := s.sendToResource(askNonce, req, "at", key)
	if err == nil || len(sent) != 2 {
		t.Fatalf("replayable: %v, %d sent", err, len(sent))
	}
	for i, r := range sent {
		body, _ := io.ReadAll(r.Body)
		p, err := verifyProof(r.Header.Get("DPoP"), "POST", "https://mcp.example/mcp", "at")
		if err != nil || string(body) != `{"id":2}` || r.Header.Get("Authorization") != "DPoP at" {
			t.Errorf("attempt %d: %v %q %q", i, err, body, r.Header.Get("Authorization"))
		}
		if want := map[int]any{0: nil, 1: "fresh"}[i]; p.claims["nonce"] != want {
			t.Errorf("attempt %d nonce %v, want %v", i, p.claims["nonce"], want)
		}
	}
}

func TestDPoPNewLoginGetsAFreshKey(t *testing.T) {
	t.Parallel()
	s := newDPoPServer(t, &dpopServer{algs: []string{"ES256"}})
	p := dpopPool(s, "/mcp", &TokenStore{Dir: t.TempDir()}, true)
	defer p.Close()
	if err := ping(p); err != nil {
		t.Fatal(err)
	}
	// The authorization server forgets every token: the next call logs in
	// again, in the same pool.
	s.mu.Lock()
	clear(s.tokens)
	clear(s.refresh)
	s.mu.Unlock()
	if err := ping(p); err != nil {
		t.Fatalf("after the tokens were revoked: %v", err)
	}
	tokens, reqs := s.seen()
	keys := codeProofs(tokens)
	if len(keys) != 2 || keys[0] == keys[1] {
		t.Fatalf("logins signed by %v: want two logins with two keys", keys)
	}
	last := reqs[len(reqs)-1]
	if last.err != "" || last.jkt != keys[1] {
		t.Errorf("the last request %+v is not signed with the new login's key", last)
	}
}

func TestDPoPBoundTokenWithoutKey(t *testing.T) {
	t.Parallel()
	// An authorization server that says DPoP without having been sent a
	// proof: the login fails, saying so.
	s := newDPoPServer(t, &dpopServer{dpopAlways: true})
	p := dpopPool(s, "/mcp", &TokenStore{Dir: t.TempDir()}, true)
	err := ping(p)
	p.Close()
	if err == nil || !strings.Contains(err.Error(), "issued a DPoP-bound token (token_type DPoP) although mcpcode sent no DPoP proof") {
		t.Errorf("a DPoP token without a proof: %v", err)
	}

	// A stored DPoP-bound login whose key is gone (an edited file) is as
	// good as expired: the next command logs in again, with a new key.
	s = newDPoPServer(t, &dpopServer{algs: []string{"ES256"}})
	store := &TokenStore{Dir: t.TempDir()}
	p = dpopPool(s, "/mcp", store, true)
	err = ping(p)
	p.Close()
	if err != nil {
		t.Fatal(err)
	}
	l, err := store.load(s.URL + "/mcp")
	if err != nil || l == nil || l.DPoP == nil {
		t.Fatalf("stored login: %v %v", l, err)
	}
	l.DPoP = nil
	if err := store.save(l); err != nil {
		t.Fatal(err)
	}
	p = dpopPool(s, "/mcp", store, true)
	err = ping(p)
	p.Close()
	if err != nil {
		t.Fatalf("after the key was lost: %v", err)
	}
	tokens, reqs := s.seen()
	if keys := codeProofs(tokens); len(keys) != 2 || keys[0] == keys[1] {
		t.Errorf("logins %v: want a second login with a new key", keys)
	}
	for _, r := range reqs {
		if r.scheme == "Bearer" {
			t.Errorf("the DPoP-bound token was sent as Bearer: %+v", r)
		}
	}
}

func TestDPoPClientCredentials(t *testing.T) {
	t.Parallel()
	s := newDPoPServer(t, &dpopServer{algs: []string{"ES256"}, asNonce: "as-n", rsNonce: "rs-n"})
	store := &TokenStore{Dir: t.TempDir()}
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "bound", Transport: TransportHTTP, URL: s.URL + "/mcp",
		OAuth: &OAuthConfig{ClientID: "m2m", ClientSecret: "s3", Grant: GrantClientCredentials}}}}
	for round := range 2 { // the second one uses the stored token and key
		p := NewPool(cfg, PoolOptions{ConnectTimeout: 20 * time.Second, Tokens: store})
		err := ping(p)
		p.Close()
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
	}
	tokens, reqs := s.seen()
	if len(tokens) != 2 || tokens[1].grant != "client_credentials" || !tokens[1].proof || tokens[1].nonce != "as-n" {
		t.Fatalf("token requests %+v: want one client credentials grant with a proof, sent once more with the nonce", tokens)
	}
	ok := 0
	for _, r := range reqs {
		switch {
		case r.err == "" && r.scheme == "DPoP" && r.jkt == tokens[1].jkt:
			ok++
		case r.err == "no valid token" || r.err == "use_dpop_nonce":
		default:
			t.Errorf("MCP request %+v", r)
		}
	}
	if ok < 4 {
		t.Errorf("%d requests with proofs of the login's key: %+v", ok, reqs)
	}
}
