package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// TestWireRawResults: a reply's tool result crosses the pipe as the bytes
// it arrived as (newlines and all), between ordinary lines, from
// concurrent senders, and reads back unchanged.
func TestWireRawResults(t *testing.T) {
	t.Parallel()
	results := []*mcptool.Result{
		{Content: json.RawMessage(`[{"type":"text","text":"a\nb"}]`), StructuredContent: json.RawMessage("{\n  \"rows\": [1, 2]\n}")},
		{Content: json.RawMessage(`[]`)},
		{Content: json.RawMessage(`[{"type":"text","text":"failed"}]`), StructuredContent: json.RawMessage(`{}`), IsError: true},
		{Content: json.RawMessage(`[]`), StructuredContent: json.RawMessage(`"` + strings.Repeat("x", 300<<10) + `"`)},
		{StructuredContent: json.RawMessage(`{"left out":"the content"}`)},
	}
	var buf bytes.Buffer
	w := newWireWriter(&buf)
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				_ = w.send(&wireMessage{Type: "reply", ID: int64(i), ToolResult: results[i/2%len(results)]})
			} else {
				_ = w.send(&wireMessage{Type: "reply", ID: int64(i), Error: fmt.Sprintf("error %d", i)})
			}
		}()
	}
	wg.Wait()
	rd := newWireReader(&buf, maxParentMessage)
	seen := map[int64]bool{}
	for {
		m, err := rd.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[m.ID] = true
		if m.RawResult != nil {
			t.Errorf("message %d: the raw header is left in the message", m.ID)
		}
		if m.ID%2 == 1 {
			if m.ToolResult != nil || m.Error != fmt.Sprintf("error %d", m.ID) {
				t.Errorf("message %d: %+v", m.ID, m)
			}
			continue
		}
		want := results[m.ID/2%int64(len(results))]
		got := m.ToolResult
		if got == nil || string(got.Content) != string(want.Content) || string(got.StructuredContent) != string(want.StructuredContent) ||
			(got.StructuredContent == nil) != (want.StructuredContent == nil) || got.IsError != want.IsError {
			t.Errorf("message %d: result %+v, want %+v", m.ID, got, want)
		}
	}
	if len(seen) != 40 {
		t.Errorf("%d messages read, want 40", len(seen))
	}
}

// TestWireReaderRejectsBadFrames: a header that announces bytes that never
// come, or a negative size, is an error, not a hang or a panic.
func TestWireReaderRejectsBadFrames(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"type":"reply","id":1,"rawResult":{"content":10,"structured":-1}}` + "\n" + `[]`,
		`{"type":"reply","id":1,"rawResult":{"content":2,"structured":5}}` + "\n" + `[]{}`,
		`{"type":"reply","id":1,"rawResult":{"content":-1,"structured":-1}}` + "\n",
		`{"type":"reply","id":1,"rawResult":{"content":0,"structured":-2}}` + "\n",
	} {
		if m, err := newWireReader(strings.NewReader(in), maxParentMessage).next(); err == nil {
			t.Errorf("%q: read %+v, want an error", in, m)
		}
	}
}

// resultCaller returns res for every call.
type resultCaller struct{ res mcptool.Result }

func (c resultCaller) Tools(context.Context, string) ([]mcptool.Tool, error) { return nil, nil }

func (c resultCaller) CallTool(context.Context, string, string, json.RawMessage) (*mcptool.Result, error) {
	r := c.res
	return &r, nil
}

// TestReplyLeavesOutTextCopy: the parent leaves a result's content out of
// its reply only when the call said the program uses the structured
// content alone and that content suffices (not an error, not absent or
// null); the bytes received are counted whole either way.
func TestReplyLeavesOutTextCopy(t *testing.T) {
	t.Parallel()
	content := json.RawMessage(`[{"type":"text","text":"{\"rows\":[1,2]}"}]`)
	structured := json.RawMessage(`{"rows":[1,2]}`)
	tests := []struct {
		name           string
		structuredOnly bool
		res            mcptool.Result
		dropped        bool
	}{
		{"asked, structured content", true, mcptool.Result{Content: content, StructuredContent: structured}, true},
		{"not asked", false, mcptool.Result{Content: content, StructuredContent: structured}, false},
		{"asked, a tool error", true, mcptool.Result{Content: content, StructuredContent: structured, IsError: true}, false},
		{"asked, no structured content", true, mcptool.Result{Content: content}, false},
		{"asked, null structured content", true, mcptool.Result{Content: content, StructuredContent: json.RawMessage(" null")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			s := &session{out: newWireWriter(&buf), caller: resultCaller{tt.res}, lim: runtime.Limits{}.WithDefaults(), calls: &callLog{}}
			s.serve(context.Background(), &wireMessage{Type: "call", ID: 7, Server: "s", Tool: "t", Args: json.RawMessage(`{}`), StructuredOnly: tt.structuredOnly})
			m, err := newWireReader(&buf, maxParentMessage).next()
			if err != nil {
				t.Fatal(err)
			}
			got := m.ToolResult
			if m.ID != 7 || got == nil {
				t.Fatalf("reply %+v", m)
			}
			wantContent := string(tt.res.Content)
			if tt.dropped {
				wantContent = ""
			}
			if string(got.Content) != wantContent || (got.Content == nil) != tt.dropped ||
				string(got.StructuredContent) != string(tt.res.StructuredContent) || got.IsError != tt.res.IsError {
				t.Errorf("reply's result: content %q structured %q isError %v; want content %q", got.Content, got.StructuredContent, got.IsError, wantContent)
			}
			if _, n := s.calls.snapshot(); n != int64(len(tt.res.Content)+len(tt.res.StructuredContent)) {
				t.Errorf("bytes counted %d, want the whole result's %d", n, len(tt.res.Content)+len(tt.res.StructuredContent))
			}
		})
	}
}
