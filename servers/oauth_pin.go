package servers

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Which authorization server mcpcode logs in with, and where a client
// secret may go.
//
// By default the authorization server is the one the MCP server's
// protected resource metadata names (the MCP authorization spec's
// discovery). "oauth": {"issuer": "https://auth.example"} in mcp.json pins
// it: a server whose metadata names another one is refused, every request
// of the login that sends something (registration, token) goes to the
// pinned issuer's origin, and so does the person's browser. With a client
// secret given in mcp.json ("clientSecret"), the secret is sent only to
// the origin of the authorization server's issuer: the pinned one, else
// the one discovered; a token endpoint on another origin is refused before
// anything is sent. So a hostile MCP server cannot collect a client secret
// by naming its own token endpoint; without a pin it can still name its
// own authorization server, whose token endpoint then gets the secret:
// pin the issuer whenever a secret is configured.

// parseIssuer checks and expands "oauth.issuer": an https URL, or http on
// a loopback address, without a query or fragment.
func parseIssuer(where, written string, x *expander) (string, error) {
	issuer := x.expand("oauth.issuer", written)
	if issuer == "" {
		return "", nil
	}
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil ||
		(u.Scheme != "https" && !(u.Scheme == "http" && isLoopbackHost(u.Hostname()))) {
		return "", fmt.Errorf("%s: oauth.issuer %q must be the authorization server's issuer URL: https (http only on a loopback address), without a query", where, written)
	}
	return issuer, nil
}

func isLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// issuerGuard holds what an oauthHandler's requests may do: it is the
// Transport of the handler's HTTP client (metadata, registration and token
// requests, go-sdk's and the oauth2 package's included), so the rule holds
// whichever code sends the request.
type issuerGuard struct {
	base   http.RoundTripper
	server string // the MCP server's name, for messages
	pinned string // oauth.issuer; "" when not pinned
	secret string // oauth.clientSecret; "" when none

	mu     sync.Mutex
	issuer string // the issuer in use: pinned, or discovered
}

func (g *issuerGuard) setIssuer(issuer string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.issuer = issuer
}

func (g *issuerGuard) currentIssuer() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.issuer
}

// RoundTrip refuses, before sending anything: with a pinned issuer, a
// request that is not a GET to another origin than the issuer's; a request
// carrying the client secret to another origin than the issuer's.
func (g *issuerGuard) RoundTrip(req *http.Request) (*http.Response, error) {
	issuer := g.currentIssuer()
	if g.pinned != "" {
		issuer = g.pinned
	}
	to := originOf(req.URL)
	if g.pinned != "" && req.Method != http.MethodGet && to != originOfURL(g.pinned) {
		return nil, fmt.Errorf("mcpcode sends nothing to %s for logging in to server %q: it is not on the authorization server that oauth.issuer in mcp.json pins (%s)",
			redactURL(req.URL), g.server, g.pinned)
	}
	if g.secret == "" {
		return g.base.RoundTrip(req)
	}
	req, carries, err := carriesSecret(req, g.secret)
	if err != nil {
		return nil, err
	}
	if carries && (issuer == "" || to != originOfURL(issuer)) {
		if issuer == "" {
			return nil, fmt.Errorf("mcpcode did not send the client secret of server %q to %s: it does not know the authorization server's issuer; pin it with oauth.issuer in mcp.json",
				g.server, redactURL(req.URL))
		}
		return nil, fmt.Errorf("mcpcode did not send the client secret of server %q to %s: that token endpoint is not on the origin of the authorization server's issuer %s, "+
			"and a client secret goes only to its issuer's origin; check the authorization server in the server's metadata, and pin the right one with oauth.issuer in mcp.json",
			g.server, redactURL(req.URL), issuer)
	}
	return g.base.RoundTrip(req)
}

// maxAuthBody bounds the body of a login request the guard reads (a token
// or registration request is small).
const maxAuthBody = 1 << 20

// carriesSecret reports whether req sends secret (in HTTP Basic
// authentication, as is or form-encoded, or anywhere in its body); it
// returns the request to send, whose body it may have read.
func carriesSecret(req *http.Request, secret string) (*http.Request, bool, error) {
	if _, pass, ok := req.BasicAuth(); ok {
		if p, err := url.QueryUnescape(pass); pass == secret || (err == nil && p == secret) {
			return req, true, nil
		}
	}
	if req.Body == nil || req.Body == http.NoBody {
		return req, false, nil
	}
	body, err := io.ReadAll(io.LimitReader(req.Body, maxAuthBody+1))
	req.Body.Close()
	if err != nil {
		return nil, false, err
	}
	if len(body) > maxAuthBody {
		return nil, false, fmt.Errorf("a login request's body is over %d bytes", maxAuthBody)
	}
	r := req.Clone(req.Context())
	setBody(r, body)
	carries := bytes.Contains(body, []byte(secret)) || bytes.Contains(body, []byte(url.QueryEscape(secret)))
	return r, carries, nil
}

// authClient is the HTTP client of h's login requests, guarded.
func (h *oauthHandler) authClient() *http.Client {
	h.guard = &issuerGuard{base: &dpopAuthTransport{base: http.DefaultTransport, s: h.dpop}, server: h.u.cfg.Name, pinned: h.cfg.Issuer, secret: h.cfg.ClientSecret}
	return &http.Client{Transport: h.guard, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		// A registration or token request is not sent on to another
		// origin (net/http would resend its form with a 307 or 308).
		if via[0].Method != http.MethodGet && originOf(req.URL) != originOf(via[0].URL) {
			return fmt.Errorf("the authorization server redirected a %s to %s, another origin: mcpcode does not follow it", via[0].Method, redactURL(req.URL))
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}}
}

// settleIssuer decides the authorization server before a login: the
// pinned one, else (with a client secret) the one the server's protected
// resource metadata names. go-sdk's login is then told to expect it
// (credentials' Issuer): metadata that names another one fails the login.
func (h *oauthHandler) settleIssuer(ctx context.Context, req *http.Request, challenges []oauthex.Challenge) {
	switch {
	case h.cfg.Issuer != "":
		h.guard.setIssuer(h.cfg.Issuer)
	case h.cfg.ClientSecret != "" && h.guard.currentIssuer() == "":
		h.guard.setIssuer(h.discoverIssuer(ctx, req.URL.String(), challenges))
	}
}

// expectedIssuer is the issuer go-sdk's login must find ("" for any).
func (h *oauthHandler) expectedIssuer() string { return h.guard.currentIssuer() }

// checkAuthorizationURL refuses to show the person a login page that is not
// on the pinned authorization server.
func (h *oauthHandler) checkAuthorizationURL(au *url.URL) error {
	if h.cfg.Issuer == "" || originOf(au) == originOfURL(h.cfg.Issuer) {
		return nil
	}
	return fmt.Errorf("the login page %s is not on the authorization server that oauth.issuer in mcp.json pins (%s); not opening it", redactURL(au), h.cfg.Issuer)
}

// issuerMismatchHint adds what mcp.json says to go-sdk's error about an
// authorization server other than the expected one.
func (h *oauthHandler) issuerMismatchHint(err error) error {
	if err == nil || !strings.Contains(err.Error(), "does not match pre-registered credentials issuer") {
		return err
	}
	if h.cfg.Issuer != "" {
		return fmt.Errorf("%w (oauth.issuer in mcp.json pins %s; the server's metadata names another authorization server)", err, h.cfg.Issuer)
	}
	return fmt.Errorf("%w (the server's metadata named another authorization server during the login; pin it with oauth.issuer in mcp.json)", err)
}
