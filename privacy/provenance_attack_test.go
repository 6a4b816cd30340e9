package privacy

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// TestTokenSpellingsNeverCarryAValuePastItsRule: with a rule that keeps
// google-drive's values for salesforce, a program that knows only the
// tokens tries spellings that a detector would not see as the value:
// a token with its "_" written as a JSON escape (with and without another
// "_" in the arguments, which decides whether they are looked at), a
// token split across two arguments (to be joined by the server), a token
// in fullwidth brackets, in base64, in a JSON text whose brackets are
// escaped, in lower case. Each call is refused, or what slack gets holds
// no value: mcpcode rebuilds a value only where it checks the rule.
func TestTokenSpellingsNeverCarryAValuePastItsRule(t *testing.T) {
	st := NewStore(t.TempDir(), 0)
	flows := []Flow{{From: "google-drive", To: []string{"salesforce"}}}
	s := mustSession(t, st, Config{Tokenize: true, Flows: flows})
	if _, err := s.Caller(newFake()).CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := finish(t, s, "maya.okafor@harborview.example", "Maya Okafor"); got[0] != "[EMAIL_1]" || got[1] != "[NAME_1]" {
		t.Fatalf("tokens %q", got)
	}
	b64 := base64.StdEncoding.EncodeToString([]byte("[EMAIL_1]"))
	for _, args := range []string{
		`{"text":"[EMAIL\u005f1]x"}`,
		`{"to_addr":"[EMAIL\u005f1]x"}`,
		`{"a":"[EMAIL","b":"_1]"}`,
		`{"a":"[NAME_","b":"1]-team"}`,
		`{"text":"［EMAIL_1］"}`,
		`{"text":"` + b64 + `"}`,
		`{"json":"{\"to\":\"\\u005bEMAIL_1\\u005d\"}"}`,
		`{"text":"[email_1]","text2":"[Email_1]"}`,
		`{"text":"[EMAIL_1 ]","t":"[ EMAIL_1]","u":"[EMAIL__1]","v":"[EMAIL_1\u0000]"}`,
	} {
		fake := newFake()
		s2 := mustSession(t, st, Config{Tokenize: true, Flows: flows})
		_, err := s2.Caller(fake).CallTool(context.Background(), "slack", "postMessage", json.RawMessage(args))
		if err != nil && !errors.Is(err, mcptool.ErrPolicy) {
			t.Errorf("%s: %v", args, err)
		}
		sent := strings.ToLower(strings.Join(fake.sent, " "))
		if strings.Contains(sent, "maya") || strings.Contains(sent, "okafor") || strings.Contains(sent, "harborview") {
			t.Errorf("%s: slack got a value: %s", args, sent)
		}
	}
}
