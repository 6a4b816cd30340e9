package audit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// scripted answers each tool as its name says.
type scripted struct{}

func (scripted) Tools(context.Context, string) ([]mcptool.Tool, error) { return nil, nil }

func (scripted) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	switch tool {
	case "ok":
		return &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":"fine"}]`), StructuredContent: json.RawMessage(`{"a":1}`)}, nil
	case "fails":
		return &mcptool.Result{Content: json.RawMessage(`[]`), IsError: true}, nil
	case "down":
		return nil, errors.New("connection refused")
	case "denied":
		return nil, fmt.Errorf("%w: the user said no", mcptool.ErrDenied)
	case "policy":
		return nil, fmt.Errorf("%w: flows", mcptool.ErrPolicy)
	case "slow":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return nil, errors.New("unknown")
}

func TestRecorder(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	r := NewRecorder(scripted{}, key, time.Now())
	ctx := context.Background()
	for _, tool := range []string{"ok", "fails", "down", "denied", "policy"} {
		r.CallTool(ctx, "srv", tool, json.RawMessage(`{"x": 1}`))
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	r.CallTool(cctx, "srv", "slow", json.RawMessage(`{}`))
	calls := r.Calls()
	want := []string{OutcomeOK, OutcomeToolError, OutcomeTransport, OutcomeDenied, OutcomePolicy, OutcomeCanceled}
	if len(calls) != len(want) {
		t.Fatalf("%d calls", len(calls))
	}
	for i, c := range calls {
		if c.Outcome != want[i] {
			t.Errorf("call %s: outcome %q, want %q", c.Tool, c.Outcome, want[i])
		}
	}
	if calls[0].Bytes != int64(len(`[{"type":"text","text":"fine"}]`)+len(`{"a":1}`)) || calls[0].ArgBytes != len(`{"x": 1}`) {
		t.Errorf("sizes %+v", calls[0])
	}
	// Digests: keyed, equal for equal calls, different across tools and keys.
	d1 := r.Digest("srv", "ok", json.RawMessage(`{"x": 1}`))
	if calls[0].Args != d1 || len(d1) != 16 || d1 == r.Digest("srv", "ok2", json.RawMessage(`{"x": 1}`)) {
		t.Errorf("digests %q %q", calls[0].Args, d1)
	}
	other := NewRecorder(scripted{}, []byte("another key another key another"), time.Now())
	if other.Digest("srv", "ok", json.RawMessage(`{"x": 1}`)) == d1 {
		t.Error("the digest does not depend on the key")
	}
}

func TestLogAppendRead(t *testing.T) {
	l := Log{Dir: filepath.Join(t.TempDir(), "audit")}
	day1 := time.Date(2026, 11, 29, 23, 59, 0, 0, time.UTC)
	day2 := day1.Add(2 * time.Minute)
	recs := []Record{
		{ID: "a", Time: day1, Who: Who{Face: FaceCLI}, Program: Program{Entry: "x.ts"}, Calls: []Call{}},
		{ID: "b", Time: day2, Who: Who{Face: FaceServe, Client: "claude", Session: "s1"}, Program: Program{Skill: "lead-sync"}, Calls: []Call{{Server: "s", Tool: "t", Outcome: OutcomeOK}}},
		{ID: "c", Time: day2.Add(time.Minute), Program: Program{Skill: "other"}},
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"2026-11-29.jsonl", "2026-11-30.jsonl"} {
		fi, err := os.Stat(filepath.Join(l.Dir, name))
		if err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v", name, fi, err)
		}
	}
	// A damaged line (a write cut short) is skipped and counted.
	f, _ := os.OpenFile(filepath.Join(l.Dir, "2026-11-30.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"id":"cut`)
	f.Close()

	got, skipped, err := l.Read(Query{})
	if err != nil || len(skipped) != 1 || skipped[0].Line != 3 || len(got) != 3 || got[0].ID != "a" || got[2].ID != "c" || got[1].Who.Client != "claude" {
		t.Fatalf("read: %+v, skipped %v, %v", got, skipped, err)
	}
	got, _, _ = l.Read(Query{Since: day2})
	if len(got) != 2 || got[0].ID != "b" {
		t.Errorf("since: %+v", got)
	}
	got, _, _ = l.Read(Query{Skill: "lead-sync"})
	if len(got) != 1 || got[0].ID != "b" {
		t.Errorf("skill: %+v", got)
	}
	got, _, err = Log{Dir: filepath.Join(t.TempDir(), "none")}.Read(Query{})
	if err != nil || got != nil {
		t.Errorf("no log: %v %v", got, err)
	}
}

// Concurrent appenders (serve's runs, several CLIs) never interleave lines.
func TestLogConcurrentAppends(t *testing.T) {
	l := Log{Dir: t.TempDir()}
	now := time.Now()
	calls := make([]Call, 2000) // a long line
	for i := range calls {
		calls[i] = Call{Server: "srv", Tool: strings.Repeat("t", 20), Outcome: OutcomeOK}
	}
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if err := l.Append(Record{ID: fmt.Sprint(i), Time: now, Calls: calls}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, skipped, err := l.Read(Query{})
	if err != nil || len(skipped) != 0 || len(got) != 16 {
		t.Fatalf("%d records, damaged %v, %v", len(got), skipped, err)
	}
}

func TestKey(t *testing.T) {
	l := Log{Dir: filepath.Join(t.TempDir(), "audit")}
	k1, err := l.Key()
	if err != nil || len(k1) != 32 {
		t.Fatal(k1, err)
	}
	k2, _ := l.Key()
	if string(k1) != string(k2) {
		t.Error("the key changed between runs")
	}
	if fi, _ := os.Stat(filepath.Join(l.Dir, keyFile)); fi.Mode().Perm() != 0o600 {
		t.Errorf("key mode %v", fi.Mode().Perm())
	}
}

func TestNewID(t *testing.T) {
	now := time.Date(2026, 11, 30, 16, 5, 4, 0, time.UTC)
	a, b := NewID(now), NewID(now)
	if a == b || !strings.HasPrefix(a, "20261130T160504-") || len(a) != len("20261130T160504-")+12 {
		t.Errorf("ids %q %q", a, b)
	}
}
