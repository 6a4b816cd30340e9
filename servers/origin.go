package servers

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Credentials stay with their origin. The headers configured for an http
// or sse server (its "headers" in mcp.json) and the OAuth token mcpcode
// got for it are sent only to the origin (scheme, host and port) of the
// server's url. A redirect to another origin, whatever its status (301,
// 302, 303, 307, 308), and a request the server points elsewhere (an SSE
// endpoint event naming another host) fail with an error that says so;
// they are not followed without the credentials either. Why fail rather
// than follow without them: a 307 or 308 resends the request's body, the
// JSON-RPC message with the program's tool arguments, to the other
// origin; and a server that moved is fixed once, by writing its new url
// in mcp.json.

// originOf is u's origin as RFC 6454 compares them: the scheme and host
// in lower case and the port, the scheme's default port made explicit.
// The user information of a URL is no part of it.
func originOf(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if port == "" {
		switch scheme {
		case "http":
			port = "80"
		case "https":
			port = "443"
		}
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// originOfURL is the origin of a URL written as text ("" when it does not
// parse).
func originOfURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return ""
	}
	return originOf(u)
}

// errOtherOrigin is wrapped by the error of a request to an origin other
// than the server's.
var errOtherOrigin = errors.New("another origin")

// otherOriginError says that a request of a server's connection went, or
// was redirected, to another origin than its url's.
func otherOriginError(redirect bool, to *url.URL, serverURL string) error {
	what := "the server sent mcpcode to"
	if redirect {
		what = "the server redirected to"
	}
	shown := serverURL
	if u, err := url.Parse(serverURL); err == nil {
		shown = redactURL(u)
	}
	return fmt.Errorf("%s %s, %w than its url %s: mcpcode does not go there, so that the headers and token configured for the server "+
		"are sent only to it; if the server moved, write its new url in mcp.json", what, redactURL(to), errOtherOrigin, shown)
}

// redactURL is u without user information or query (either may hold a
// secret), for messages.
func redactURL(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

// checkOrigin refuses a request to another origin than the server's url,
// before any header is added to it.
func (t *httpRoundTripper) checkOrigin(req *http.Request) error {
	if t.serverURL == "" || originOf(req.URL) == originOfURL(t.serverURL) {
		return nil
	}
	return otherOriginError(false, req.URL, t.serverURL)
}

// maxRedirects bounds the redirects of one request (as net/http does).
const maxRedirects = 10

// serverClient is the HTTP client of an http or sse server's connection:
// rt adds its headers and token, to its url's origin only, and a redirect
// to another origin fails with a message that says so.
func serverClient(rt *httpRoundTripper, serverURL string) *http.Client {
	rt.serverURL = serverURL
	origin := originOfURL(serverURL)
	return &http.Client{Transport: rt, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if originOf(req.URL) != origin {
			return otherOriginError(true, req.URL, serverURL)
		}
		if req.URL.User != nil {
			// net/http would log in with the URL's user information in
			// place of the configured headers.
			return fmt.Errorf("the server redirected to %s, a URL with user information: mcpcode does not follow it", redactURL(req.URL))
		}
		if len(via) >= maxRedirects {
			return fmt.Errorf("stopped after %d redirects", maxRedirects)
		}
		return nil
	}}
}
