package gateway

import (
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions configure the streamable HTTP face.
type HTTPOptions struct {
	// Token, when set, is the bearer token every request must carry
	// (Authorization: Bearer TOKEN).
	Token string
	// Stateless serves each request on its own: for replicas behind a load
	// balancer. Server-to-client requests (elicitation) are impossible
	// there, so ConfirmAsk refuses writes.
	Stateless bool
	// MaxBodyBytes bounds a request's body (default 4 MiB).
	MaxBodyBytes int64
}

// HTTPHandler serves the gateway over streamable HTTP at any path. It
// refuses requests without the token (when one is set), requests whose
// Origin is another site (a browser page cannot drive it), and bodies over
// the limit; go-sdk rejects loopback requests with a foreign Host header
// (DNS rebinding).
func (g *Gateway) HTTPHandler(o HTTPOptions) http.Handler {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.Stateless {
		g.stateless.Store(true)
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return g.server }, &mcp.StreamableHTTPOptions{
		Stateless:           o.Stateless,
		MaxRequestBodyBytes: o.MaxBodyBytes,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o.Token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(o.Token)) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="mcpcode"`)
				http.Error(w, "missing or wrong bearer token", http.StatusUnauthorized)
				return
			}
		}
		if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
			http.Error(w, "cross-origin requests are refused", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, o.MaxBodyBytes)
		h.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether an Origin header names the host the request
// was sent to, or a loopback host.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	return IsLoopback(u.Hostname())
}

// IsLoopback reports whether a host name or address is this machine's
// loopback ("localhost", 127.0.0.0/8, ::1).
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
