package privacy

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// fakeCaller answers each server with a fixed result and records what was
// sent.
type fakeCaller struct {
	results map[string]*mcptool.Result // by server
	mu      sync.Mutex
	sent    []string // "server.tool args"
}

func (f *fakeCaller) Tools(context.Context, string) ([]mcptool.Tool, error) { return nil, nil }

func (f *fakeCaller) CallTool(_ context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	f.mu.Lock()
	f.sent = append(f.sent, server+"."+tool+" "+string(args))
	f.mu.Unlock()
	if r, ok := f.results[server]; ok {
		return r, nil
	}
	return &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":"ok"}]`)}, nil
}

func structured(v string) *mcptool.Result {
	return &mcptool.Result{StructuredContent: json.RawMessage(v), Content: json.RawMessage(`[{"type":"text","text":` + strconvQuote(v) + `}]`)}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

const sheet = `{"rows":[
 {"orderId":"ORD-100001","name":"Maya Okafor","email":"maya.okafor@harborview.example","phone":"(206) 555-0142"},
 {"orderId":"ORD-100002","name":"Jonas Lindqvist","email":"jonas@northgate.example","phone":"+1 312 555 0199"}],
 "channel":{"name":"general"}, "account":{"Name":"Harborview Analytics","Industry":"Tech"}}`

func newFake() *fakeCaller {
	return &fakeCaller{results: map[string]*mcptool.Result{"google-drive": structured(sheet)}}
}

func mustSession(t *testing.T, st *Store, cfg Config) *Session {
	t.Helper()
	s, err := NewSession(st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// finish tokenizes texts with the session and returns them.
func finish(t *testing.T, s *Session, texts ...string) []string {
	t.Helper()
	out := make([]string, len(texts))
	if err := s.Finish(func(r *Redactor) {
		for i, x := range texts {
			out[i] = r.Text(x)
		}
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestTokenizeLearnedValues(t *testing.T) {
	st := NewStore(t.TempDir(), 0)
	fake := newFake()
	s := mustSession(t, st, Config{Tokenize: true})
	c := s.Caller(fake)
	if _, err := c.CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	out := finish(t, s,
		"first: Maya Okafor <maya.okafor@harborview.example> (206) 555-0142",
		"MAYA OKAFOR again, then jonas@northgate.example, 206.555.0142",
		"channel general; Harborview Analytics; ORD-100001")
	want := []string{
		"first: [NAME_1] <[EMAIL_1]> [PHONE_1]",
		"[NAME_1] again, then [EMAIL_2], [PHONE_1]",
		"channel general; Harborview Analytics; ORD-100001",
	}
	for i := range want {
		if out[i] != want[i] {
			t.Errorf("text %d = %q, want %q", i, out[i], want[i])
		}
	}
	// The same values in a later run get the same tokens.
	s2 := mustSession(t, st, Config{Tokenize: true})
	if got := finish(t, s2, "jonas@northgate.example / Maya Okafor / +1 206 555 0142")[0]; got != "[EMAIL_2] / [NAME_1] / [PHONE_1]" {
		t.Errorf("second run: %q, want the first run's tokens", got)
	}
}

func TestRedactJSON(t *testing.T) {
	st := NewStore(t.TempDir(), 0)
	s := mustSession(t, st, Config{Tokenize: true})
	var out json.RawMessage
	if err := s.Finish(func(r *Redactor) {
		out = r.JSON(json.RawMessage(`{"a@b.example": [1, "call (206) 555-0142\n", {"k": "x\u0040y.example"}], "n": 2}`))
	}); err != nil {
		t.Fatal(err)
	}
	want := `{"[EMAIL_1]": [1, "call [PHONE_1]\n", {"k": "[EMAIL_2]"}], "n": 2}`
	if string(out) != want {
		t.Errorf("JSON = %s\nwant   %s", out, want)
	}
	if !json.Valid(out) {
		t.Errorf("not JSON: %s", out)
	}
}

func TestDetokenizeArguments(t *testing.T) {
	st := NewStore(t.TempDir(), 0)
	fake := newFake()
	s := mustSession(t, st, Config{Tokenize: true})
	if _, err := s.Caller(fake).CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	finish(t, s, "maya.okafor@harborview.example Maya Okafor")

	// A later program writes the tokens it was shown.
	fake2 := newFake()
	s2 := mustSession(t, st, Config{Tokenize: true})
	_, err := s2.Caller(fake2).CallTool(context.Background(), "salesforce", "query",
		json.RawMessage(`{"q":"SELECT Id FROM Lead WHERE Email = '[EMAIL_1]'","who":"[NAME_1]","note":"[TODO_1] stays"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := `salesforce.query {"q":"SELECT Id FROM Lead WHERE Email = 'maya.okafor@harborview.example'","who":"Maya Okafor","note":"[TODO_1] stays"}`
	if len(fake2.sent) != 1 || fake2.sent[0] != want {
		t.Errorf("sent %q\nwant %q", fake2.sent, want)
	}

	// An unknown token sends nothing.
	_, err = s2.Caller(fake2).CallTool(context.Background(), "salesforce", "query", json.RawMessage(`{"q":"[EMAIL_99]"}`))
	if !errors.Is(err, mcptool.ErrPolicy) || !strings.Contains(err.Error(), "[EMAIL_99] is not in this workspace's token store") {
		t.Errorf("unknown token: %v", err)
	}
	if len(fake2.sent) != 1 {
		t.Errorf("a call with an unknown token was sent: %q", fake2.sent)
	}
	// Without tokenizing, tokens are text.
	s3 := mustSession(t, nil, Config{Flows: []Flow{{From: "x", To: nil}}})
	if _, err := s3.Caller(fake2).CallTool(context.Background(), "salesforce", "query", json.RawMessage(`{"q":"[EMAIL_1]"}`)); err != nil || !strings.HasSuffix(fake2.sent[1], `{"q":"[EMAIL_1]"}`) {
		t.Errorf("privacy off: %v, sent %q", err, fake2.sent)
	}
}

func TestFlows(t *testing.T) {
	flows := []Flow{{From: "google-drive", To: []string{"salesforce"}}}
	for _, c := range []struct {
		name, server, args, wantErr string
	}{
		{"to an allowed server", "salesforce", `{"data":{"Email":"maya.okafor@harborview.example","Name":"Maya Okafor"}}`, ""},
		{"back to its own server", "google-drive", `{"q":"maya.okafor@harborview.example"}`, ""},
		{"a whole value to slack", "slack", `{"text":"maya.okafor@harborview.example"}`,
			`slack.postMessage was not called: the argument text is an EMAIL that came from google-drive, and the flow rule {"from": "google-drive", "to": ["salesforce"]}`},
		{"inside a longer message", "slack", `{"channel":"C1","text":"New lead: Maya Okafor, call her"}`,
			"the argument text holds a NAME that came from google-drive"},
		{"a phone spelled otherwise", "slack", `{"blocks":[{"text":"206.555.0142"}]}`, "the argument blocks[0].text is a PHONE"},
		{"values from nowhere", "slack", `{"text":"someone@else.example, ORD-100001, general"}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fake := newFake()
			s := mustSession(t, nil, Config{Flows: flows})
			caller := s.Caller(fake)
			if _, err := caller.CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
				t.Fatal(err)
			}
			_, err := caller.CallTool(context.Background(), c.server, "postMessage", json.RawMessage(c.args))
			if c.wantErr == "" {
				if err != nil || len(fake.sent) != 2 {
					t.Fatalf("refused: %v (sent %q)", err, fake.sent)
				}
				return
			}
			if !errors.Is(err, mcptool.ErrPolicy) || !strings.Contains(err.Error(), c.wantErr) || !strings.HasSuffix(err.Error(), "nothing was sent") {
				t.Fatalf("error %v, want ErrPolicy with %q", err, c.wantErr)
			}
			if len(fake.sent) != 1 {
				t.Errorf("the refused call was sent: %q", fake.sent)
			}
		})
	}
}

// A value that came from a restricted server in an earlier run stays
// restricted when a later run sends it by its token.
func TestFlowsAcrossRuns(t *testing.T) {
	st := NewStore(t.TempDir(), 0)
	flows := []Flow{{From: "google-drive", To: []string{"salesforce"}}}
	s := mustSession(t, st, Config{Tokenize: true, Flows: flows})
	if _, err := s.Caller(newFake()).CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := finish(t, s, "maya.okafor@harborview.example")[0]; got != "[EMAIL_1]" {
		t.Fatalf("token %q", got)
	}
	s2 := mustSession(t, st, Config{Tokenize: true, Flows: flows})
	fake := newFake()
	_, err := s2.Caller(fake).CallTool(context.Background(), "slack", "postMessage", json.RawMessage(`{"text":"lead [EMAIL_1]"}`))
	if !errors.Is(err, mcptool.ErrPolicy) || len(fake.sent) != 0 {
		t.Fatalf("a token of a drive value went to slack: %v, sent %q", err, fake.sent)
	}
	if strings.Contains(err.Error(), "maya") {
		t.Errorf("the policy error shows the value: %v", err)
	}
	if _, err := s2.Caller(fake).CallTool(context.Background(), "salesforce", "updateRecord", json.RawMessage(`{"Email":"[EMAIL_1]"}`)); err != nil {
		t.Fatalf("to salesforce: %v", err)
	}
}

func TestStoreFileAndForget(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "privacy")
	st := NewStore(dir, 0)
	s := mustSession(t, st, Config{Tokenize: true})
	finish(t, s, "a@b.example c@d.example")
	fi, err := os.Stat(st.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("store mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("store directory mode %v, want 0700", di.Mode().Perm())
	}
	stats, err := st.Stats()
	if err != nil || stats.Entries != 2 || stats.ByKind[KindEmail] != 2 {
		t.Fatalf("stats %+v, %v", stats, err)
	}
	if raw, _ := json.Marshal(stats); strings.Contains(string(raw), "@") {
		t.Errorf("stats show a value: %s", raw)
	}
	if err := st.Forget(); err != nil {
		t.Fatal(err)
	}
	// Forgotten tokens do not resolve, and their numbers are not reused.
	s2 := mustSession(t, st, Config{Tokenize: true})
	if _, err := s2.Caller(newFake()).CallTool(context.Background(), "x", "y", json.RawMessage(`{"e":"[EMAIL_1]"}`)); !errors.Is(err, mcptool.ErrPolicy) {
		t.Errorf("a forgotten token resolved: %v", err)
	}
	if got := finish(t, s2, "e@f.example")[0]; got != "[EMAIL_3]" {
		t.Errorf("after forget: %q, want [EMAIL_3] (numbers 1 and 2 are never reused)", got)
	}
}

func TestStoreBound(t *testing.T) {
	st := NewStore(t.TempDir(), 3)
	for i, text := range []string{"a@x.example", "b@x.example", "c@x.example", "a@x.example", "d@x.example"} {
		s := mustSession(t, st, Config{Tokenize: true})
		finish(t, s, text)
		_ = i
	}
	stats, _ := st.Stats()
	if stats.Entries != 3 {
		t.Fatalf("%d entries, want the bound 3", stats.Entries)
	}
	// b was used least recently: it is gone; a (used again) stays.
	s := mustSession(t, st, Config{Tokenize: true})
	c := s.Caller(newFake())
	if _, err := c.CallTool(context.Background(), "x", "y", json.RawMessage(`{"e":"[EMAIL_2]"}`)); !errors.Is(err, mcptool.ErrPolicy) {
		t.Errorf("the least recently used token still resolves: %v", err)
	}
	if _, err := c.CallTool(context.Background(), "x", "y", json.RawMessage(`{"e":"[EMAIL_1]"}`)); err != nil {
		t.Errorf("a recently used token was dropped: %v", err)
	}
}

func TestDamagedStore(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, storeFile), []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := NewSession(NewStore(dir, 0), Config{Tokenize: true})
	if err == nil || !strings.Contains(err.Error(), "mcpcode privacy forget") {
		t.Fatalf("err %v, want advice to forget", err)
	}
	if strings.Contains(err.Error(), "not json") {
		t.Errorf("the error shows the store's content: %v", err)
	}
}

// Values a run saw but did not print are remembered: a later run that
// prints them from elsewhere (a file the first run wrote) shows tokens, and
// their origin still restricts where they may go.
func TestValuesRememberedAcrossRuns(t *testing.T) {
	st := NewStore(t.TempDir(), 0)
	flows := []Flow{{From: "google-drive", To: []string{"salesforce"}}}
	s := mustSession(t, st, Config{Tokenize: true, Flows: flows})
	if _, err := s.Caller(newFake()).CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	finish(t, s, "Updated 2 leads")

	s2 := mustSession(t, st, Config{Tokenize: true, Flows: flows})
	fake := newFake()
	_, err := s2.Caller(fake).CallTool(context.Background(), "slack", "postMessage", json.RawMessage(`{"text":"Jonas Lindqvist signed"}`))
	if !errors.Is(err, mcptool.ErrPolicy) || len(fake.sent) != 0 {
		t.Errorf("a drive name went to slack in a later run: %v, sent %q", err, fake.sent)
	}
	if got := finish(t, s2, "from the CSV: Jonas Lindqvist, Maya Okafor")[0]; !regexp.MustCompile(`^from the CSV: \[NAME_\d+\], \[NAME_\d+\]$`).MatchString(got) {
		t.Errorf("names seen in an earlier run are shown: %q", got)
	}
}
