package servers

import (
	"net/http"
	"testing"
)

// TestEncodeNameHeader: an Mcp-Name value that cannot travel as it is
// goes in the revision's Base64 sentinel form; any other is left alone.
func TestEncodeNameHeader(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"get_weather", "get_weather"},
		{"file:///a%20b.txt", "file:///a%20b.txt"},
		{"us west 1", "us west 1"},
		{"grüße", "=?base64?Z3LDvMOfZQ==?="},
		{" padded", "=?base64?IHBhZGRlZA==?="},
		{"tab\t", "=?base64?dGFiCQ==?="},
		{"a\nb", "=?base64?YQpi?="},
		{"=?base64?abc?=", "=?base64?PT9iYXNlNjQ/YWJjPz0=?="},
	} {
		h := http.Header{}
		h.Set("Mcp-Name", tc.in)
		encodeNameHeader(h)
		if got := h.Get("Mcp-Name"); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
	h := http.Header{}
	encodeNameHeader(h)
	if _, ok := h["Mcp-Name"]; ok {
		t.Error("a request without Mcp-Name got one")
	}
}
