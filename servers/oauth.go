package servers

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// ErrNeedsLogin is wrapped by the error of a server that asks for an OAuth
// login that was not given: the person logs in with `mcpcode auth NAME`.
var ErrNeedsLogin = errors.New("needs login")

// LoginOptions let a command log in interactively when a server asks for
// authorization (OAuth authorization code with PKCE and a loopback
// redirect). Without them such a server fails with ErrNeedsLogin.
type LoginOptions struct {
	// OpenURL shows the person the authorization page: it opens a browser,
	// or prints the URL. It returns once the page is shown, not when the
	// person is done.
	OpenURL func(ctx context.Context, server, url string) error
	// Timeout bounds the wait for the person to finish (default 5 minutes).
	Timeout time.Duration
}

// DefaultLoginTimeout bounds the wait for a person to log in.
const DefaultLoginTimeout = 5 * time.Minute

// maxAuthorizations bounds the authorizations one connection attempts: a
// server that keeps refusing the scopes it asks for is not asked again and
// again.
const maxAuthorizations = 3

// oauthHandler authorizes an http or sse server's requests for one
// upstream. It implements go-sdk's auth.OAuthHandler: the token source it
// hands out is the stored token (refreshed as needed, and stored again),
// and Authorize, called on a 401 or 403, logs in: with client credentials
// (a machine: no person) or, when the command allows it, the authorization
// code flow in the person's browser; else it fails with ErrNeedsLogin.
//
// Registration follows the MCP spec: a client registered in advance
// ("oauth": {"clientId", "clientSecret"}), a Client ID Metadata Document
// ("clientMetadataUrl") when the authorization server supports them, or
// dynamic client registration.
type oauthHandler struct {
	u      *upstream
	url    string
	cfg    OAuthConfig
	store  *TokenStore
	login  *LoginOptions
	client *http.Client // for metadata, registration and token requests
	guard  *issuerGuard // its transport: where the login may send what (oauth_pin.go)
	dpop   *dpopState   // DPoP keys, nonces and bound tokens (dpop.go)

	mu      sync.Mutex
	ts      oauth2.TokenSource // nil until there is a usable token
	granted []string           // scopes granted so far
	grant   string             // the grant in use (GrantAuthorizationCode or GrantClientCredentials)

	authMu   sync.Mutex // one authorization at a time
	attempts int
	code     *auth.AuthorizationCodeHandler
	redirect *loopback
	cc       *extauth.ClientCredentialsHandler
}

// newOAuth returns the OAuth handler of an http or sse upstream, or nil when
// OAuth is off for it: its "headers" set Authorization itself, or the pool
// has neither a token store nor a way to log in.
func (u *upstream) newOAuth() *oauthHandler {
	for k := range u.cfg.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil
		}
	}
	o := u.pool.opts
	if o.Tokens == nil && o.Login == nil && u.cfg.OAuth == nil {
		return nil
	}
	h := &oauthHandler{u: u, url: u.cfg.URL, store: o.Tokens, login: o.Login, dpop: newDPoPState(u.cfg.Name, u.cfg.URL)}
	if u.cfg.OAuth != nil {
		h.cfg = *u.cfg.OAuth
	}
	h.client = h.authClient()
	h.grant = h.cfg.Grant
	if h.store != nil {
		l, err := h.store.load(h.url)
		if err != nil {
			h.u.log.note("oauth", err.Error())
		}
		if err == nil && l != nil {
			if h.cfg.Issuer == "" && l.Issuer != "" {
				h.guard.setIssuer(l.Issuer) // the issuer of the stored login's refreshes
			}
			h.granted = l.Scopes
			h.ts = h.resume(l)
		}
	}
	return h
}

// resume makes a token source of a stored login: the token as long as it
// is valid, then refreshed with its refresh token (or, for client
// credentials, fetched again), every new token stored.
func (h *oauthHandler) resume(l *storedLogin) oauth2.TokenSource {
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, h.client)
	var src oauth2.TokenSource
	switch {
	case l.Grant == GrantClientCredentials || l.Token.RefreshToken == "" || l.TokenURL == "":
		src = validOnly{l.Token}
	default:
		cfg := &oauth2.Config{ClientID: l.ClientID, ClientSecret: l.ClientSecret, Scopes: l.Scopes,
			Endpoint: oauth2.Endpoint{TokenURL: l.TokenURL, AuthStyle: l.AuthStyle}}
		src = cfg.TokenSource(ctx, l.Token)
	}
	tmpl := *l
	tmpl.Token = nil
	h.dpop.resume(l.DPoP, l.TokenURL)
	return presenting{src: &persisting{src: soft{src}, store: h.store, login: tmpl, last: l.Token.AccessToken, onErr: h.noteErr}, key: l.DPoP, s: h.dpop}
}

func (h *oauthHandler) noteErr(err error) {
	h.u.log.note("oauth", "storing the token failed: "+err.Error())
}

// validOnly hands out its token while it is valid.
type validOnly struct{ tok *oauth2.Token }

func (v validOnly) Token() (*oauth2.Token, error) {
	if v.tok.Valid() {
		return v.tok, nil
	}
	return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the stored token expired"}
}

// soft turns a refresh that the authorization server refused into
// "invalid_grant", which go-sdk answers by sending the request without a
// token; the server's 401 then leads to a new login. Network errors pass.
type soft struct{ src oauth2.TokenSource }

func (s soft) Token() (*oauth2.Token, error) {
	tok, err := s.src.Token()
	var re *oauth2.RetrieveError
	if err != nil && (errors.As(err, &re) || strings.Contains(err.Error(), "refresh token is not set")) {
		return nil, &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the stored token cannot be refreshed"}
	}
	return tok, err
}

// TokenSource implements auth.OAuthHandler.
func (h *oauthHandler) TokenSource(context.Context) (oauth2.TokenSource, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ts, nil
}

func (h *oauthHandler) setSource(ts oauth2.TokenSource, granted []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ts = ts
	if granted != nil {
		h.granted = granted
	}
}

// current is the access token requests are sent with now ("" for none).
func (h *oauthHandler) current() string {
	h.mu.Lock()
	ts := h.ts
	h.mu.Unlock()
	if ts == nil {
		return ""
	}
	tok, err := ts.Token()
	if err != nil {
		return ""
	}
	return tok.AccessToken
}

func (h *oauthHandler) grantedScopes() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.granted)
}

// loginError is the error of a server that asks for a login not given.
type loginError struct{ msg string }

func (e *loginError) Error() string { return e.msg }
func (e *loginError) Unwrap() error { return ErrNeedsLogin }

// loginErrorOf finds the loginError in a chain of wrapped errors, so that
// the message is "needs login: mcpcode auth NAME" without the transport's
// prefixes.
func loginErrorOf(err error) error {
	var le *loginError
	if errors.As(err, &le) {
		return le
	}
	return err
}

func (h *oauthHandler) needsLogin(why string) error {
	return &loginError{msg: fmt.Sprintf("needs login: mcpcode auth %s%s", h.u.cfg.Name, why)}
}

// Authorize implements auth.OAuthHandler: it is called with a request the
// server answered 401 or 403.
func (h *oauthHandler) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	defer resp.Body.Close()
	h.authMu.Lock()
	defer h.authMu.Unlock()
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	sent := strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	if cur := h.current(); cur != "" && subtle.ConstantTimeCompare([]byte(cur), []byte(sent)) == 0 {
		// Another request logged in while this one waited: retry with that.
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	insufficient := resp.StatusCode == http.StatusForbidden && challengeParam(challenges, "error") == "insufficient_scope"
	if resp.StatusCode == http.StatusForbidden && !insufficient {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil // a plain 403: not a matter of authorization
	}
	if insufficient {
		want := strings.Fields(challengeParam(challenges, "scope"))
		if sent != "" && len(want) > 0 && subset(want, h.grantedScopes()) {
			_, _ = io.Copy(io.Discard, resp.Body)
			return fmt.Errorf("the server refuses the scope %q although the login granted it; not asking again", strings.Join(want, " "))
		}
	}
	h.attempts++
	if h.attempts > maxAuthorizations {
		_, _ = io.Copy(io.Discard, resp.Body)
		return fmt.Errorf("the server still refuses after %d logins; not asking again", maxAuthorizations)
	}
	h.settleIssuer(ctx, req, challenges)
	grant, err := h.chooseGrant(ctx, req, challenges)
	if err != nil {
		return err
	}
	h.dpop.beginLogin() // a new login gets a fresh DPoP key, if any
	defer h.dpop.endLogin()
	if grant == GrantClientCredentials {
		return h.clientCredentials(ctx, req, resp)
	}
	if h.login == nil || h.login.OpenURL == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		if insufficient {
			return h.needsLogin(" (the server asks for more permission: " + challengeParam(challenges, "scope") + ")")
		}
		return h.needsLogin("")
	}
	code, err := h.codeHandler()
	if err != nil {
		return err
	}
	h.u.log.note("oauth", "logging in (authorization code with PKCE)")
	resume := h.u.pauseConnectTimeout()
	defer resume()
	if err := code.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("logging in: %w", h.issuerMismatchHint(err))
	}
	return nil
}

// chooseGrant decides between the authorization code and client
// credentials: as mcp.json says, else client credentials when a client
// secret is configured and the authorization server offers no
// authorization code grant.
func (h *oauthHandler) chooseGrant(ctx context.Context, req *http.Request, challenges []oauthex.Challenge) (string, error) {
	if h.grant != "" {
		return h.grant, nil
	}
	h.grant = GrantAuthorizationCode
	if h.cfg.ClientID == "" || h.cfg.ClientSecret == "" {
		return h.grant, nil
	}
	asm := h.discover(ctx, req.URL.String(), challenges)
	if asm != nil && len(asm.GrantTypesSupported) > 0 &&
		!slices.Contains(asm.GrantTypesSupported, "authorization_code") && slices.Contains(asm.GrantTypesSupported, "client_credentials") {
		h.grant = GrantClientCredentials
	}
	return h.grant, nil
}

// discover finds the authorization server's metadata (nil when it cannot).
func (h *oauthHandler) discover(ctx context.Context, resource string, challenges []oauthex.Challenge) *oauthex.AuthServerMeta {
	issuer := h.cfg.Issuer
	if issuer == "" {
		issuer = h.discoverIssuer(ctx, resource, challenges)
	}
	if issuer == "" {
		return nil
	}
	asm, err := auth.GetAuthServerMetadata(ctx, issuer, h.client)
	if err != nil {
		return nil
	}
	return asm
}

// discoverIssuer finds the authorization server the resource's protected
// resource metadata names, else (the 2025-03-26 fallback) the resource's
// own origin; "" when the resource is not a URL.
func (h *oauthHandler) discoverIssuer(ctx context.Context, resource string, challenges []oauthex.Challenge) string {
	var candidates []string
	if u := challengeParam(challenges, "resource_metadata"); u != "" {
		candidates = append(candidates, u)
	}
	if ru, err := url.Parse(resource); err == nil {
		mu := *ru
		mu.RawQuery, mu.Fragment = "", ""
		mu.Path = "/.well-known/oauth-protected-resource/" + strings.TrimLeft(ru.Path, "/")
		candidates = append(candidates, mu.String())
		mu.Path = "/.well-known/oauth-protected-resource"
		candidates = append(candidates, mu.String())
	}
	issuer := ""
	for _, c := range candidates {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c, resource, h.client)
		if err == nil && prm != nil && len(prm.AuthorizationServers) > 0 {
			issuer = prm.AuthorizationServers[0]
			break
		}
	}
	if issuer == "" {
		ru, err := url.Parse(resource)
		if err != nil {
			return ""
		}
		ru.Path, ru.RawQuery, ru.Fragment = "", "", ""
		issuer = ru.String()
	}
	return issuer
}

// clientCredentials gets a token with the client's own credentials.
func (h *oauthHandler) clientCredentials(ctx context.Context, req *http.Request, resp *http.Response) error {
	if h.cc == nil {
		if h.cfg.ClientID == "" || h.cfg.ClientSecret == "" {
			return fmt.Errorf("oauth.grant %q needs oauth.clientId and oauth.clientSecret in mcp.json", GrantClientCredentials)
		}
		cc, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
			Credentials: &oauthex.ClientCredentials{ClientID: h.cfg.ClientID, ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: h.cfg.ClientSecret},
				Issuer: h.expectedIssuer()},
			HTTPClient: h.client,
		})
		if err != nil {
			return err
		}
		h.cc = cc
	}
	h.u.log.note("oauth", "getting a token (client credentials)")
	if err := h.cc.Authorize(ctx, req, resp); err != nil {
		return fmt.Errorf("getting a token with the client credentials: %w", h.issuerMismatchHint(err))
	}
	src, err := h.cc.TokenSource(ctx)
	if err != nil || src == nil {
		return fmt.Errorf("getting a token with the client credentials: no token")
	}
	tok, err := src.Token()
	if err != nil {
		return fmt.Errorf("getting a token with the client credentials: %w", err)
	}
	granted := scopesOf(tok, nil)
	key, err := h.dpop.commit(tok)
	if err != nil {
		return err
	}
	h.noteDPoP(key, tok)
	var ts oauth2.TokenSource = src
	if h.store != nil {
		l := storedLogin{URL: h.url, ClientID: h.cfg.ClientID, Scopes: granted, Grant: GrantClientCredentials, Issuer: h.expectedIssuer(), DPoP: key}
		p := &persisting{src: soft{src}, store: h.store, login: l, onErr: h.noteErr}
		_, _ = p.Token() // store it now
		ts = p
	}
	h.setSource(presenting{src: ts, key: key, s: h.dpop}, granted)
	return nil
}

// noteDPoP says in the server's log how a new token is bound (never the
// key or the token).
func (h *oauthHandler) noteDPoP(key *dpopKey, tok *oauth2.Token) {
	switch {
	case key != nil && isDPoPToken(tok):
		h.u.log.note("oauth", "the token is DPoP-bound: requests carry proofs signed with a key stored with the login")
	case key != nil:
		h.u.log.note("oauth", "the authorization server advertises DPoP but issued a "+tok.Type()+" token: it is sent as such; refreshes carry proofs")
	}
}

// codeHandler is go-sdk's authorization code handler for this upstream,
// made on first use with a loopback redirect URL that stays open until the
// pool closes.
func (h *oauthHandler) codeHandler() (*auth.AuthorizationCodeHandler, error) {
	if h.code != nil {
		return h.code, nil
	}
	lb, err := newLoopback()
	if err != nil {
		return nil, fmt.Errorf("opening the loopback redirect URL: %w", err)
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:              lb.url,
		AuthorizationCodeFetcher: h.fetchCode,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:  []string{lb.url},
			ClientName:    "mcpcode",
			GrantTypes:    []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"},
		}},
		RequestRefreshToken: true,
		ScopeFilter:         h.scopes,
		Client:              h.client,
		NewTokenSource:      h.newTokenSource,
	}
	if h.cfg.ClientMetadataURL != "" {
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: h.cfg.ClientMetadataURL}
	}
	if h.cfg.ClientID != "" {
		pre := &oauthex.ClientCredentials{ClientID: h.cfg.ClientID, Issuer: h.expectedIssuer()}
		if h.cfg.ClientSecret != "" {
			pre.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: h.cfg.ClientSecret}
		}
		cfg.PreregisteredClient = pre
	}
	code, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		lb.close()
		return nil, err
	}
	h.code, h.redirect = code, lb
	return code, nil
}

// scopes picks the scopes to ask for: mcp.json's "scopes" when given, else
// those the server asks for (or advertises), with those granted before
// (a step-up asks for more, never fewer).
func (h *oauthHandler) scopes(discovered []string) []string {
	base := discovered
	if len(h.cfg.Scopes) > 0 {
		base = h.cfg.Scopes
	}
	out := slices.Clone(h.grantedScopes())
	for _, s := range base {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// newTokenSource is called by go-sdk with a fresh token: it is stored with
// what refreshing it needs, and handed out from now on.
func (h *oauthHandler) newTokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	granted := scopesOf(tok, cfg.Scopes)
	key, err := h.dpop.commit(tok)
	if err != nil {
		return nil, err
	}
	h.noteDPoP(key, tok)
	var ts oauth2.TokenSource = cfg.TokenSource(ctx, tok)
	if h.store != nil {
		l := storedLogin{URL: h.url, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, AuthStyle: cfg.Endpoint.AuthStyle,
			TokenURL: cfg.Endpoint.TokenURL, Scopes: granted, Grant: GrantAuthorizationCode, Issuer: h.expectedIssuer(), DPoP: key}
		p := &persisting{src: soft{ts}, store: h.store, login: l, onErr: h.noteErr}
		if _, err := p.Token(); err != nil {
			return nil, err
		}
		ts = p
	}
	ts = presenting{src: ts, key: key, s: h.dpop}
	h.setSource(ts, granted)
	h.u.log.note("oauth", "logged in; the token is stored (never in this log)")
	return ts, nil
}

// scopesOf is the scopes a token was granted ("scope" in the token
// response), else those asked for.
func scopesOf(tok *oauth2.Token, asked []string) []string {
	if s, ok := tok.Extra("scope").(string); ok && s != "" {
		return strings.Fields(s)
	}
	return slices.Clone(asked)
}

// fetchCode shows the person the authorization page and waits for the
// authorization server to redirect their browser back to the loopback URL.
func (h *oauthHandler) fetchCode(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
	au, err := url.Parse(args.URL)
	if err != nil {
		return nil, fmt.Errorf("the authorization URL %q is not valid: %w", args.URL, err)
	}
	if err := h.checkAuthorizationURL(au); err != nil {
		return nil, err
	}
	state := au.Query().Get("state")
	wait := h.redirect.expect(state)
	defer h.redirect.forget(state)
	if err := h.login.OpenURL(ctx, h.u.cfg.Name, args.URL); err != nil {
		return nil, fmt.Errorf("showing the login page: %w", err)
	}
	timeout := h.login.Timeout
	if timeout <= 0 {
		timeout = DefaultLoginTimeout
	}
	select {
	case r := <-wait:
		if r.err != "" {
			return nil, fmt.Errorf("the authorization server refused: %s", r.err)
		}
		return &auth.AuthorizationResult{Code: r.code, State: state, Iss: r.iss}, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("no login within %s; run mcpcode auth %s again", timeout, h.u.cfg.Name)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *oauthHandler) close() {
	h.authMu.Lock()
	defer h.authMu.Unlock()
	if h.redirect != nil {
		h.redirect.close()
	}
}

// logout forgets the stored login.
func (h *oauthHandler) logout() (bool, error) {
	h.setSource(nil, []string{})
	h.dpop.resume(nil, "")
	if h.store == nil {
		return false, nil
	}
	return h.store.remove(h.url)
}

func challengeParam(cs []oauthex.Challenge, name string) string {
	for _, c := range cs {
		if v := c.Params[name]; v != "" {
			return v
		}
	}
	return ""
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

// loopback is the redirect URL of the authorization code flow: an HTTP
// server on 127.0.0.1 that takes the authorization server's redirect of
// the person's browser (RFC 8252, section 7.3).
type loopback struct {
	url string
	srv *http.Server

	mu      sync.Mutex
	waiting map[string]chan redirectResult
}

type redirectResult struct{ code, iss, err string }

func newLoopback() (*loopback, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	lb := &loopback{url: fmt.Sprintf("http://127.0.0.1:%d/callback", l.Addr().(*net.TCPAddr).Port), waiting: map[string]chan redirectResult{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/callback", lb.callback)
	lb.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = lb.srv.Serve(l) }()
	return lb, nil
}

func (lb *loopback) expect(state string) <-chan redirectResult {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	ch := make(chan redirectResult, 1)
	lb.waiting[state] = ch
	return ch
}

func (lb *loopback) forget(state string) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	delete(lb.waiting, state)
}

func (lb *loopback) callback(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	lb.mu.Lock()
	ch, ok := lb.waiting[q.Get("state")]
	if ok {
		delete(lb.waiting, q.Get("state"))
	}
	lb.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if !ok {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, "<!doctype html><title>mcpcode</title><p>This login is not expected (it expired, or was already used). Run mcpcode auth again.</p>")
		return
	}
	res := redirectResult{code: q.Get("code"), iss: q.Get("iss")}
	if e := q.Get("error"); e != "" {
		res.err = strings.TrimSpace(e + ": " + q.Get("error_description"))
	} else if res.code == "" {
		res.err = "the redirect carries no authorization code"
	}
	ch <- res
	if res.err != "" {
		fmt.Fprintf(w, "<!doctype html><title>mcpcode</title><p>Login failed: %s</p>", html.EscapeString(res.err))
		return
	}
	fmt.Fprint(w, "<!doctype html><title>mcpcode</title><p>Logged in. You can close this tab and return to mcpcode.</p>")
}

func (lb *loopback) close() { _ = lb.srv.Close() }

// AuthInfo says how a connected server was authorized.
type AuthInfo struct {
	// OAuth is true when the server is used with an OAuth token.
	OAuth bool
	// LoggedIn is true when this pool logged in (a new token), false when
	// a stored token was used, or none was needed.
	LoggedIn bool
	// Scopes are the scopes granted.
	Scopes []string
	// Grant is how the token was obtained.
	Grant string
	// DPoP is true when the token is DPoP-bound (RFC 9449): sent with
	// proofs of a key stored with the login.
	DPoP bool
}

// Authorization reports how a server is authorized (after Connect).
func (p *Pool) Authorization(name string) AuthInfo {
	u, err := p.upstream(name)
	if err != nil || u.oauth == nil {
		return AuthInfo{}
	}
	h := u.oauth
	bound := false
	if tok := h.current(); tok != "" {
		bound = h.dpop.boundKey(tok) != nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return AuthInfo{OAuth: h.ts != nil, LoggedIn: h.attempts > 0 && h.ts != nil, Scopes: slices.Clone(h.granted), Grant: h.grant, DPoP: bound}
}

// Forget deletes the stored login of a server URL; it reports whether
// there was one.
func (s *TokenStore) Forget(url string) (bool, error) { return s.remove(url) }
