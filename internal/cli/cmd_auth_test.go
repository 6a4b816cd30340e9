package cli

import (
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
)

// TestLoginSummaryEscapesScopes: the scopes of a login come from the
// authorization server's token response ("scope"); a hostile one must not
// reach the terminal with control characters (an OSC title, a cursor move,
// a bidi override hiding what was granted).
func TestLoginSummaryEscapesScopes(t *testing.T) {
	hostile := []string{"tools", "\x1b]0;pwned\x07", "\x1b[2K\rLogged-in-as-admin", "\u202eslc\u009b31m"}
	for _, status := range []string{app.LoginDone, app.LoginAlready} {
		out := loginSummary(&app.LoginReport{Server: "secure", Status: status, Scopes: hostile, DPoP: true, Tools: 1, TokenDir: "/t"})
		for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e", "\u009b"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: the summary carries %q from the authorization server's scopes: %q", status, bad, out)
			}
		}
		if !strings.Contains(out, `\u001b]0;pwned\u0007`) || !strings.Contains(out, "with a DPoP-bound token") {
			t.Errorf("%s: the scopes are not shown escaped: %q", status, out)
		}
	}
}
