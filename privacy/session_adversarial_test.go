package privacy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// TestAdversarialCaseVariantTextKey: what privacy learns from a result must
// cover what the program gets from it. The runtime reads a content block's
// text as encoding/json reads a struct (runtime.contentText,
// mcptool.Result.Text): keys match case-insensitively and a repeated key
// keeps its last value, so for {"type":"text","text":"ok","Text":EMAIL}
// the program's text is EMAIL. Privacy must learn EMAIL as coming from the
// server, so that a flow rule restricting that server's values stops the
// program from sending it elsewhere (a map's b["text"] alone is "ok").
func TestAdversarialCaseVariantTextKey(t *testing.T) {
	const email = "maya.okafor@harborview.example"
	res := &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":"ok","Text":"` + email + `"}]`)}
	if got := res.Text(); got != email {
		t.Fatalf("precondition: the program's text of the block is %q, want %q", got, email)
	}
	fake := &fakeCaller{results: map[string]*mcptool.Result{"google-drive": res}}
	s := mustSession(t, nil, Config{Flows: []Flow{{From: "google-drive", To: []string{"salesforce"}}}})
	caller := s.Caller(fake)
	if _, err := caller.CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	_, err := caller.CallTool(context.Background(), "slack", "postMessage", json.RawMessage(`{"text":"`+email+`"}`))
	if !errors.Is(err, mcptool.ErrPolicy) {
		t.Errorf("the program got %q from google-drive (restricted to salesforce) and sent it to slack: err = %v, sent %q",
			email, err, strings.Join(fake.sent, " | "))
	}
}
