package servers

import (
	"encoding/base64"
	"net/http"
	"strings"
)

// encodeNameHeader puts the Mcp-Name header go-sdk sets on a 2026-07-28
// request (the tool or prompt name, the resource URI) in the form the
// revision requires: a value that is not plain visible ASCII (a non-ASCII
// or control character, a leading or trailing space or tab), or that
// looks like the sentinel itself, travels Base64-encoded as
// "=?base64?…?=". go-sdk v1.8.0 encodes Mcp-Param-* values so but sets
// Mcp-Name as it is, which a server or proxy then refuses (or net/http, for
// a control character).
func encodeNameHeader(h http.Header) {
	v := h.Get("Mcp-Name")
	if v == "" || !needsBase64(v) {
		return
	}
	h.Set("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte(v))+"?=")
}

// needsBase64 is the revision's rule for a header value that cannot be
// sent as it is.
func needsBase64(s string) bool {
	if s[0] == ' ' || s[0] == '\t' || s[len(s)-1] == ' ' || s[len(s)-1] == '\t' {
		return true
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return true
		}
	}
	return strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?=")
}
