package app

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/skills"
)

// fullCaller has the runtime's optional interfaces.
type fullCaller struct{ mcptool.Caller }

func (fullCaller) DeliversNotices() bool { return true }
func (fullCaller) ListResources(context.Context, string) (json.RawMessage, error) {
	return json.RawMessage(`[]`), nil
}
func (fullCaller) ReadResource(context.Context, string, string) (json.RawMessage, error) {
	return json.RawMessage(`[{"uri":"x","text":"secret@example.com"}]`), nil
}

// TestUpstreamExtrasBypassNoWrapperThatChangesData: notices and resources
// reach a run only when nothing between it and the servers changes or
// records what servers send; with privacy tokenization, a replay or a
// recording they are withheld (they would bypass it).
func TestUpstreamExtrasBypassNoWrapperThatChangesData(t *testing.T) {
	t.Parallel()
	base := fullCaller{}
	ctx := context.Background()
	for _, tt := range []struct {
		name               string
		req                RunRequest
		privacy            string
		notices, resources bool
	}{
		{"plain", RunRequest{}, "", true, true},
		{"privacy tokenizes", RunRequest{}, privacyTokenizes, false, false},
		{"privacy flows", RunRequest{}, privacyFlows, false, false},
		{"replay", RunRequest{Replay: &skills.Recording{}}, "", false, false},
		{"record", RunRequest{Record: func(*skills.Recording) {}}, "", true, false},
	} {
		c := withUpstream(base, base, tt.req, tt.privacy, nil)
		if got := c.(runtime.NoticeDeliverer).DeliversNotices(); got != tt.notices {
			t.Errorf("%s: notices %v, want %v", tt.name, got, tt.notices)
		}
		data, err := c.(runtime.ResourceReader).ReadResource(ctx, "s", "x")
		if (err == nil) != tt.resources || (err == nil && !strings.Contains(string(data), "secret")) {
			t.Errorf("%s: resources %s %v, want available %v", tt.name, data, err, tt.resources)
		}
		if err != nil && !strings.Contains(err.Error(), "readResource is not available in this run: ") {
			t.Errorf("%s: %v", tt.name, err)
		}
	}
	// A base without the interfaces offers neither.
	c := withUpstream(base.Caller, base.Caller, RunRequest{}, "", nil)
	if c.(runtime.NoticeDeliverer).DeliversNotices() {
		t.Error("notices offered over a caller that does not deliver them")
	}
	if _, err := c.(runtime.ResourceReader).ListResources(ctx, "s"); err == nil {
		t.Error("resources offered over a caller that does not read them")
	}
}
