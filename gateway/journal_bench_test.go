package gateway

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// BenchmarkJournalEntry measures what journaling costs a call of a modern
// host's run: recording a 1 MiB structured result (the runtime parses the
// same result anyway).
func BenchmarkJournalEntry(b *testing.B) {
	var rows []string
	for i := 0; len(strings.Join(rows, ",")) < 1<<20; i++ {
		rows = append(rows, fmt.Sprintf(`{"orderId":"ORD-%06d","status":"pending","amount":%d.5}`, i, i))
	}
	structured := json.RawMessage(`{"rows":[` + strings.Join(rows, ",") + `]}`)
	res := &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":"see structured content"}]`), StructuredContent: structured}
	args := json.RawMessage(`{"sheetId":"abc123"}`)
	b.SetBytes(int64(len(structured)))
	b.ResetTimer()
	for range b.N {
		callEntry("google-drive", "getSheet", args, res, nil)
	}
}

// TestEncodeResult: the journal's encoding of a result reads back as the
// result.
func TestEncodeResult(t *testing.T) {
	for _, res := range []*mcptool.Result{
		{},
		{Content: json.RawMessage(`[{"type":"text","text":"a"}]`)},
		{StructuredContent: json.RawMessage(`{"x":[1,2]}`), IsError: true},
		{Content: json.RawMessage(`[]`), StructuredContent: json.RawMessage(`"s"`), IsError: true},
	} {
		var back mcptool.Result
		if err := json.Unmarshal(encodeResult(res), &back); err != nil {
			t.Fatalf("%s: %v", encodeResult(res), err)
		}
		want, _ := json.Marshal(res)
		got, _ := json.Marshal(&back)
		if string(got) != string(want) {
			t.Errorf("encoded %s, read back %s, want %s", encodeResult(res), got, want)
		}
	}
}
