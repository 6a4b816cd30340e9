package servers

import (
	"net/url"
	"strings"
	"testing"
)

// TestRedirectsToSpellingsOfAnotherHost: a redirect to a host that is
// written to look like the server's (a trailing dot, an IPv6 or
// IPv4-mapped form of the loopback address, a percent-encoded name, a
// port with a leading zero, a backslash, a tab or a space in the host, an
// encoded "@") never gets the headers: each is either another origin
// (refused) or not a URL net/http follows. Only the same host, written in
// another case or with its default port, keeps them.
func TestRedirectsToSpellingsOfAnotherHost(t *testing.T) {
	t.Parallel()
	for _, server := range []string{"https://good.example/mcp", "http://127.0.0.1:8080/mcp"} {
		for _, to := range []string{
			"https://good.example./mcp",
			"https://good.example%2eevil.example/mcp",
			"https://evil.example%40good.example/mcp",
			"https://good.example:0443/mcp",
			"https://good.example\\@evil.example/mcp",
			"https://good.example\t.evil.example/mcp",
			"http://[::1]:8080/mcp",
			"http://[::ffff:127.0.0.1]:8080/mcp",
			"http://127.1:8080/mcp",
			"http://0x7f.0.0.1:8080/mcp",
			"http://2130706433:8080/mcp",
			"http://localhost:8080/mcp",
			"http://127.0.0.1:08080/mcp",
			"https://127.0.0.1:8080/mcp",
		} {
			f := &fakeNet{next: map[string]string{server: to}}
			c := serverClient(&httpRoundTripper{base: f, headers: map[string]string{"Authorization": "Bearer SECRET"}}, server)
			resp, err := c.Get(server)
			if resp != nil {
				resp.Body.Close()
			}
			f.mu.Lock()
			for _, s := range f.seen[1:] {
				if strings.Contains(s, "SECRET") {
					t.Errorf("%s redirected to %s: the headers went along: %s (err %v)", server, to, s, err)
				}
			}
			f.mu.Unlock()
		}
	}
	// The comparison is of parsed URLs: what net/http would connect to.
	same := func(a, b string) bool {
		ua, _ := url.Parse(a)
		ub, err := url.Parse(b)
		return err == nil && originOf(ua) == originOf(ub)
	}
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"https://good.example/x", "https://GOOD.EXAMPLE:443/y", true},
		{"http://good.example/x", "http://good.example:80/y", true},
		{"https://good.example/x", "http://good.example/x", false},
		{"http://good.example/x", "https://good.example:80/x", false},
		{"https://good.example/x", "https://good.example./x", false},
		{"https://[::1]/x", "https://[::1]:443/x", true},
		{"https://[::1]/x", "https://[0:0::1]/x", false},
	} {
		if got := same(tt.a, tt.b); got != tt.want {
			t.Errorf("same origin %s and %s: %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
