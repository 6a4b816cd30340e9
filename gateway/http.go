package gateway

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"io"
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
	// balancer. Hosts on protocol 2026-07-28 are asked through
	// input_required rounds, which any replica of the workspace can resume;
	// older hosts cannot be sent requests there, so ConfirmAsk refuses
	// their writes.
	Stateless bool
	// MaxBodyBytes bounds a request's body (default 4 MiB).
	MaxBodyBytes int64
}

// HTTPHandler serves the gateway over streamable HTTP at any path. It
// refuses requests without the token (when one is set), requests whose
// Origin is another site (a browser page cannot drive it), and bodies over
// the limit; go-sdk rejects loopback requests with a foreign Host header
// (DNS rebinding).
//
// Protocol 2026-07-28 is stateless (no initialize, no session): go-sdk
// serves it only on a stateless handler. So without Stateless, requests of
// that revision (by their MCP-Protocol-Version header, or the protocol
// version in their _meta) go to a stateless handler of the same server,
// and older hosts keep their sessions.
func (g *Gateway) HTTPHandler(o HTTPOptions) http.Handler {
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 4 << 20
	}
	if o.Stateless {
		g.stateless.Store(true)
	}
	getServer := func(*http.Request) *mcp.Server { return g.server }
	modern := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		MaxRequestBodyBytes: o.MaxBodyBytes,
	})
	h := modern
	if !o.Stateless {
		h = mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{MaxRequestBodyBytes: o.MaxBodyBytes})
	}
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
		if h != modern && isModern(w, r) {
			modern.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// isModern reports whether a request speaks protocol 2026-07-28 or later:
// by its MCP-Protocol-Version header, or, for a POST without one, by the
// protocol version in its _meta (go-sdk then answers that the header is
// missing). The body it reads is put back for the handler.
func isModern(w http.ResponseWriter, r *http.Request) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
		return v >= modernVersion
	}
	if r.Method != http.MethodPost || r.Body == nil {
		return false
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// The handler reports the body's problem (too large: 413).
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), failingReader{err}))
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Params struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	var v string
	_ = json.Unmarshal(msg.Params.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	return v >= modernVersion
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

// failingReader returns its error.
type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }
