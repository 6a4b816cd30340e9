package worker

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
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
