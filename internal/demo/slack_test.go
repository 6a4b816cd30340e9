package demo

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// historyOut is getChannelHistory's result: the messages, newest first.
type historyOut []slackMessage

func TestDeploymentCompletesOnThirdRead(t *testing.T) {
	const done = "deployment complete"
	tests := []struct {
		name string
		// reads of other channels before each read of C123456; they must
		// not advance the deployment
		otherReads int
	}{
		{"only the deploy channel", 0},
		{"interleaved with other channels", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := connect(t, "slack")
			steps := []struct {
				wantNewest string // text of the newest message
				complete   bool
			}{
				{"deployment started", false},
				{"running migrations", false},
				{done, true},
				{done, true},
			}
			for i, step := range steps {
				for range tt.otherReads {
					callOK(t, cs, "getChannelHistory", map[string]any{"channel": "C234567"}, nil)
				}
				res := call(t, cs, "getChannelHistory", map[string]any{"channel": "C123456"})
				text := resultText(t, res)
				if res.IsError || !sameJSON(res.StructuredContent, text) {
					t.Fatalf("read %d: IsError %v, structuredContent %.200v; want the JSON text %.200s as structured content too", i+1, res.IsError, res.StructuredContent, text)
				}
				if got := strings.Contains(text, done); got != step.complete {
					t.Errorf("read %d: contains %q = %v, want %v", i+1, done, got, step.complete)
				}
				var h historyOut
				callOKText(t, text, &h)
				if !strings.Contains(h[0].Text, step.wantNewest) {
					t.Errorf("read %d: newest message %q, want it to contain %q", i+1, h[0].Text, step.wantNewest)
				}
			}
		})
	}
}

func TestChannelHistory(t *testing.T) {
	cs := connect(t, "slack")
	tests := []struct {
		channel   string
		limit     any // nil: default
		wantID    string
		wantCount int
	}{
		{"C123456", nil, "C123456", defaultHistoryLimit},
		{"C123456", 5, "C123456", 5},
		{"#sales", 200, "C234567", 19},
		{"general", 3, "C345678", 3},
		{"c345678", 200, "C345678", 5},
	}
	for _, tt := range tests {
		t.Run(tt.channel, func(t *testing.T) {
			args := map[string]any{"channel": tt.channel}
			if tt.limit != nil {
				args["limit"] = tt.limit
			}
			var h historyOut
			callOK(t, cs, "getChannelHistory", args, &h)
			if len(h) != tt.wantCount {
				t.Fatalf("%d messages, want %d", len(h), tt.wantCount)
			}
			if tt.channel != tt.wantID {
				// A name reads the same channel as its id.
				byID := map[string]any{"channel": tt.wantID, "limit": 200}
				if tt.limit != nil {
					byID["limit"] = tt.limit
				}
				var want historyOut
				callOK(t, cs, "getChannelHistory", byID, &want)
				if !slices.Equal(h, want) {
					t.Errorf("%q reads %v, want the messages of %s %v", tt.channel, h, tt.wantID, want)
				}
			}
			if !slices.IsSortedFunc(h, func(a, b slackMessage) int { return strings.Compare(b.TS, a.TS) }) {
				t.Errorf("messages are not newest first: %v", h)
			}
			for _, m := range h {
				if m.TS == "" || m.User == "" || m.Text == "" {
					t.Errorf("incomplete message %+v", m)
				}
			}
		})
	}
}

func TestPostMessage(t *testing.T) {
	cs := connect(t, "slack")
	tests := []struct{ channel, text, wantID string }{
		{"C123456", "shipping v2.14.0 after lunch", "C123456"},
		{"#sales", "Harborview signed, thanks all", "C234567"},
		{"C123456", "second message", "C123456"},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			res := call(t, cs, "postMessage", map[string]any{"channel": tt.channel, "text": tt.text})
			if res.StructuredContent != nil {
				t.Errorf("postMessage returned structuredContent; it declares no output schema and answers with JSON text only")
			}
			var posted struct {
				OK      bool   `json:"ok"`
				Channel string `json:"channel"`
				TS      string `json:"ts"`
			}
			callOKText(t, resultText(t, res), &posted)
			if !posted.OK || posted.Channel != tt.wantID || posted.TS == "" {
				t.Fatalf("postMessage = %+v, want ok in %s with a ts", posted, tt.wantID)
			}
			// Reading C123456 also advances its deployment, whose messages
			// then come after the post: look the post up by ts.
			var h historyOut
			callOK(t, cs, "getChannelHistory", map[string]any{"channel": tt.wantID}, &h)
			i := slices.IndexFunc(h, func(m slackMessage) bool { return m.TS == posted.TS })
			if i < 0 || h[i].Text != tt.text || h[i].User == "" {
				t.Errorf("history %v lacks the posted message (ts %s)", h[:3], posted.TS)
			}
		})
	}
}

func TestSlackErrors(t *testing.T) {
	cs := connect(t, "slack")
	tests := []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"getChannelHistory", map[string]any{"channel": "C999999"}, []string{`no channel "C999999"`, "C123456 (#deployments)"}},
		{"getChannelHistory", map[string]any{}, []string{"channel is required"}},
		{"getChannelHistory", map[string]any{"channel": "C123456", "limit": 0}, []string{"limit 0 is out of range", "1 to 200"}},
		{"getChannelHistory", map[string]any{"channel": "C123456", "limit": 500}, []string{"limit 500 is out of range"}},
		{"getChannelHistory", map[string]any{"channel": "C123456", "limit": "ten"}, []string{"invalid arguments for getChannelHistory"}},
		{"getChannelHistory", map[string]any{"channel": "C123456", "cursor": "x"}, []string{"invalid arguments", "cursor"}},
		{"postMessage", map[string]any{"channel": "C123456", "text": "  "}, []string{"text is empty"}},
		{"postMessage", map[string]any{"channel": "#random", "text": "hi"}, []string{`no channel "#random"`}},
	}
	for _, tt := range tests {
		t.Run(tt.tool+"/"+strings.Join(tt.want, ","), func(t *testing.T) {
			callErr(t, cs, tt.tool, tt.args, tt.want...)
		})
	}
}

// sameJSON reports whether structured content (as the client decoded it)
// is the same JSON value as text.
func sameJSON(structured any, text string) bool {
	if structured == nil {
		return false
	}
	a, err := json.Marshal(structured)
	if err != nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal([]byte(text), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
