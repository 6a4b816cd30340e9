package audit

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

// BenchmarkAppend is the cost of recording a run of ten tool calls.
func BenchmarkAppend(b *testing.B) {
	l := Log{Dir: b.TempDir()}
	rec := Record{ID: NewID(time.Now()), Time: time.Now(), Who: Who{Face: FaceCLI}, Program: Program{Entry: "x.ts", SHA256: HashProgram([]byte("x"))}}
	for range 10 {
		rec.Calls = append(rec.Calls, Call{Server: "salesforce", Tool: "updateRecord", Args: "0123456789abcdef", Outcome: OutcomeOK, Bytes: 40})
	}
	for b.Loop() {
		if err := l.Append(rec); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordCall is the recorder's cost per tool call (the call itself
// does nothing).
func BenchmarkRecordCall(b *testing.B) {
	r := NewRecorder(scripted{}, []byte("0123456789abcdef0123456789abcdef"), time.Now())
	args := json.RawMessage(`{"objectType":"Lead","recordId":"00Q5f000001abcXYZ","data":{"Email":"maya@x.example","Phone":"(206) 555-0142","Name":"Maya Okafor"}}`)
	ctx := context.Background()
	for b.Loop() {
		r.CallTool(ctx, "salesforce", "ok", args)
	}
}

// BenchmarkRecordCallJournaled is the recorder's cost per tool call with
// the journal on (as in every run): the call's intent and outcome are
// appended to the day file.
func BenchmarkRecordCallJournaled(b *testing.B) {
	r := NewRecorder(scripted{}, []byte("0123456789abcdef0123456789abcdef"), time.Now())
	now := time.Now()
	r.Journal(Log{Dir: b.TempDir()}, Record{ID: NewID(now), Time: now, Who: Who{Face: FaceCLI}, Program: Program{Entry: "x.ts"}})
	defer r.Close()
	args := json.RawMessage(`{"objectType":"Lead","recordId":"00Q5f000001abcXYZ","data":{"Email":"maya@x.example","Phone":"(206) 555-0142","Name":"Maya Okafor"}}`)
	ctx := context.Background()
	for b.Loop() {
		r.CallTool(ctx, "salesforce", "ok", args)
	}
}
