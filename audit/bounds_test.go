package audit

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// maxLineForTest is the bound on one line of the log the tests hold the
// writer to (MaxLine).
const maxLineForTest = 1 << 20

// TestAppendBoundsWhatARecordCarries: a tool name of 100,000 characters
// called 500 times (and a client name as long) makes one line of at most a
// mebibyte, the names cut with a marker; the record still says how many
// calls there were.
func TestAppendBoundsWhatARecordCarries(t *testing.T) {
	l := Log{Dir: t.TempDir()}
	long := strings.Repeat("x", 100_000)
	r := NewRecorder(scripted{}, []byte("0123456789abcdef0123456789abcdef"), time.Now())
	for range 500 {
		r.CallTool(context.Background(), "srv", long, json.RawMessage(`{}`))
	}
	now := time.Now()
	if err := l.Append(Record{ID: "big", Time: now, Who: Who{Face: FaceServe, Client: long}, Program: Program{Entry: long}, Calls: r.Calls()}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(l.fileOf(now))
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > maxLineForTest {
		t.Fatalf("one record wrote a line of %d bytes, over %d", len(data), maxLineForTest)
	}
	recs, skipped, err := l.Read(Query{})
	if err != nil || len(skipped) != 0 || len(recs) != 1 {
		t.Fatalf("read back: %d records, skipped %v, %v", len(recs), skipped, err)
	}
	got := recs[0]
	if len(got.Who.Client) > 1000 || !strings.Contains(got.Who.Client, "more bytes") || !strings.Contains(got.Program.Entry, "more bytes") {
		t.Errorf("names not cut with a marker: client %d bytes, entry %d bytes", len(got.Who.Client), len(got.Program.Entry))
	}
	if n := len(got.Calls); n == 0 || len(got.Calls[0].Tool) > 1000 || !strings.Contains(got.Calls[0].Tool, "more bytes") {
		t.Errorf("calls: %d, first tool name %d bytes", n, len(got.Calls[0].Tool))
	}
}

// TestReadSkipsAnOversizedLine: a line far longer than any record (the
// 300 MB line of an older version, or a damaged file) is skipped and
// reported; the day's other runs are read.
func TestReadSkipsAnOversizedLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 260 MiB file: runs in make test, not with -short")
	}
	l := Log{Dir: t.TempDir()}
	now := time.Now()
	if err := l.Append(Record{ID: "before", Time: now}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.fileOf(now), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(`{"id":"huge","calls":[{"tool":"`)
	chunk := strings.Repeat("x", 1<<20)
	for range 260 {
		w.WriteString(chunk)
	}
	w.WriteString("\"}]}\n")
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := l.Append(Record{ID: "after", Time: now.Add(time.Second)}); err != nil {
		t.Fatal(err)
	}
	recs, skipped, err := l.Read(Query{})
	if err != nil || len(skipped) != 1 || skipped[0].Line != 2 || len(recs) != 2 || recs[0].ID != "before" || recs[1].ID != "after" {
		t.Fatalf("read: %d records, skipped %v, %v", len(recs), skipped, err)
	}
}

// watching is a Caller that, when called, reads the audit log: the call's
// intent must be on record before anything is sent.
type watching struct {
	l    Log
	t    *testing.T
	seen []string
}

func (w *watching) Tools(context.Context, string) ([]mcptool.Tool, error) { return nil, nil }

func (w *watching) CallTool(_ context.Context, server, tool string, _ json.RawMessage) (*mcptool.Result, error) {
	data, _ := os.ReadFile(w.l.fileOf(time.Now()))
	w.seen = append(w.seen, string(data))
	return &mcptool.Result{Content: json.RawMessage(`[]`)}, nil
}

// TestRecorderJournalsACallBeforeSendingIt: a call's intent is in the log
// before the call is sent, so a run killed during or after it still shows
// it; its outcome follows once it is known.
func TestRecorderJournalsACallBeforeSendingIt(t *testing.T) {
	dir := t.TempDir()
	l := Log{Dir: dir}
	w := &watching{l: l, t: t}
	start := time.Now()
	r := NewRecorder(w, []byte("0123456789abcdef0123456789abcdef"), start)
	r.Journal(l, Record{ID: "run1", Time: start.UTC(), Who: Who{Face: FaceCLI}, Program: Program{Entry: "p.ts"}})
	r.CallTool(context.Background(), "crm", "deleteLead", json.RawMessage(`{"id":1}`))
	if len(w.seen) != 1 || !strings.Contains(w.seen[0], `"deleteLead"`) {
		t.Fatalf("when the call was sent, the log held:\n%q", w.seen)
	}
	// The run ends without its record (killed): the log still shows the
	// run and its call.
	recs, _, err := l.Read(Query{})
	if err != nil || len(recs) != 1 || recs[0].ID != "run1" || len(recs[0].Calls) != 1 || recs[0].Calls[0].Tool != "deleteLead" || recs[0].Calls[0].Outcome != OutcomeOK {
		t.Fatalf("a run without its record: %+v %v", recs, err)
	}
}

// TestReadPrefersTheRecordToTheJournal: a run that ended has its record,
// not a second one rebuilt from its journal; a run of many calls keeps as
// many as fit in a line and counts the rest; a line over MaxLine is
// skipped with its number.
func TestReadPrefersTheRecordToTheJournal(t *testing.T) {
	l := Log{Dir: t.TempDir()}
	start := time.Now()
	r := NewRecorder(scripted{}, []byte("0123456789abcdef0123456789abcdef"), start)
	head := Record{ID: "run2", Time: start.UTC(), Who: Who{Face: FaceCLI}, Program: Program{Entry: "p.ts"}}
	r.Journal(l, head)
	for range 12000 { // more than a mebibyte of calls
		r.CallTool(context.Background(), "srv", "ok", json.RawMessage(`{}`))
	}
	r.CallTool(context.Background(), "srv", "fails", json.RawMessage(`{}`))
	head.Calls, head.OK = r.Calls(), true
	if err := l.Append(head); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(l.fileOf(start), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(strings.Repeat("y", MaxLine+10) + "\n" + `{"id":"cut`)
	f.Close()
	recs, skipped, err := l.Read(Query{})
	if err != nil || len(recs) != 1 || recs[0].Incomplete || !recs[0].OK {
		t.Fatalf("read: %+v, %v", recs, err)
	}
	if got := len(recs[0].Calls) + recs[0].CallsOmitted; got != 12001 || recs[0].CallsOmitted == 0 {
		t.Errorf("%d calls kept and %d omitted, want 12001 in all with some omitted", len(recs[0].Calls), recs[0].CallsOmitted)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0].Reason, "longer than") || !strings.Contains(skipped[1].Reason, "damaged") || skipped[1].Line != skipped[0].Line+1 {
		t.Errorf("skipped: %v", skipped)
	}
}
