package audit

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestBoundsCutOnCharacters: names and error messages made only of
// characters of two, three and four bytes (and of bytes that are not
// UTF-8), just over the bounds, are cut on a character boundary: what is
// kept is a prefix of the name, never a character cut in two (which the
// JSON encoding would turn into U+FFFD), and the record stays small. A
// journal line (a killed run's) is bounded the same way.
func TestBoundsCutOnCharacters(t *testing.T) {
	l := Log{Dir: t.TempDir()}
	now := time.Now()
	for i, unit := range []string{"é", "日", "😀", "a日", "ab😀", "\xff"} {
		for j, n := range []int{MaxName - 33, MaxName - 31, MaxName + 1, MaxName * 3, MaxMessage + 1} {
			name := strings.Repeat(unit, n/len(unit)+1)
			msg := strings.Repeat(unit, MaxMessage/len(unit)+1)
			id := fmt.Sprintf("run-%d-%d", i, j)
			r := NewRecorder(scripted{}, []byte("0123456789abcdef0123456789abcdef"), now)
			r.Journal(l, Record{ID: id + "-killed", Time: now, Who: Who{Face: FaceServe, Client: name}, Program: Program{Entry: name}})
			r.CallTool(context.Background(), name, name, json.RawMessage(`{}`))
			r.Close()
			if err := l.Append(Record{ID: id, Time: now, Who: Who{Face: FaceServe, Client: name, Session: name}, Program: Program{Entry: name, Skill: name},
				Error: &Error{Kind: name, Limit: name, Message: msg}, Limits: []string{name}, Calls: r.Calls()}); err != nil {
				t.Fatal(err)
			}
		}
	}
	recs, skipped, err := l.Read(Query{})
	if err != nil || len(skipped) > 0 {
		t.Fatalf("read: %v, skipped %v", err, skipped)
	}
	// What is kept of a name is at most MaxName bytes; bytes that are not
	// UTF-8 come back as U+FFFD (three bytes each) from the JSON.
	check := func(what, got string) {
		t.Helper()
		kept, _, cut := strings.Cut(got, "…[")
		if len(kept) > MaxName && !(strings.HasPrefix(kept, "\ufffd") && len(kept) <= 3*MaxName) {
			t.Errorf("%s: %d bytes kept", what, len(kept))
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s is not UTF-8: %q", what, got)
		}
		if cut && strings.Contains(kept, "\ufffd") && !strings.HasPrefix(kept, "\ufffd") {
			t.Errorf("%s: a character was cut in two: %q", what, kept)
		}
	}
	incomplete := 0
	for _, rec := range recs {
		incomplete += map[bool]int{true: 1}[rec.Incomplete]
		for what, s := range map[string]string{"client": rec.Who.Client, "entry": rec.Program.Entry} {
			check(what, s)
		}
		if !rec.Incomplete {
			check("kind", rec.Error.Kind)
			limit := MaxMessage
			if strings.HasPrefix(rec.Error.Message, "\ufffd") {
				limit = 3 * MaxMessage
			}
			if len(rec.Error.Message) > limit+len("…") || !utf8.ValidString(rec.Error.Message) ||
				strings.Contains(rec.Error.Message, "\ufffd") && !strings.HasPrefix(rec.Error.Message, "\ufffd") {
				t.Errorf("message: %d bytes %q", len(rec.Error.Message), rec.Error.Message)
			}
		}
		for _, c := range rec.Calls {
			check("server", c.Server)
			check("tool", c.Tool)
		}
	}
	if incomplete != 30 || len(recs) != 60 {
		t.Errorf("%d records, %d of them rebuilt from a journal; want 60 and 30", len(recs), incomplete)
	}
}
