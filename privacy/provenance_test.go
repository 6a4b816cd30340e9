package privacy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// TestTokenKeepsItsSourceWhereverItGoes: with a rule that lets
// google-drive's values go only to salesforce, a program that never read
// google-drive in this run uses the tokens an earlier run showed it, glued
// to other characters, nested, as an object key or inside a JSON text:
// mcpcode rebuilds the value itself, so it applies the rule to the
// token's source, not to what a detector finds in the joined string.
func TestTokenKeepsItsSourceWhereverItGoes(t *testing.T) {
	st := NewStore(t.TempDir(), 0)
	flows := []Flow{{From: "google-drive", To: []string{"salesforce"}}}
	s := mustSession(t, st, Config{Tokenize: true, Flows: flows})
	if _, err := s.Caller(newFake()).CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	got := finish(t, s, "maya.okafor@harborview.example", "Maya Okafor")
	if got[0] != "[EMAIL_1]" || got[1] != "[NAME_1]" {
		t.Fatalf("tokens %q", got)
	}
	for _, args := range []string{
		`{"text":"[EMAIL_1]x"}`,
		`{"text":"[NAME_1]-team"}`,
		`{"text":"Mr[NAME_1]"}`,
		`{"text":"x[EMAIL_1]"}`,
		`{"text":"[EMAIL_1].example"}`,
		`{"text":"[NAME_1][NAME_1]"}`,
		`{"blocks":[{"elements":[["[NAME_1]-team"]]}]}`,
		`{"to":{"[EMAIL_1]x":true}}`,
		`{"json":"{\"to\":\"[EMAIL_1]x\"}"}`,
		`{"text":"\u005bNAME_1\u005d-team"}`,
		`{"text":"[EMAIL_1]x","text":"ok"}`, // a repeated key: the bytes sent hold both
		`["[NAME_1]-team"]`,
		`{"deep":[[[[[[[[[[{"a":"[NAME_1]-team"}]]]]]]]]]]}`,
	} {
		fake := newFake()
		s2 := mustSession(t, st, Config{Tokenize: true, Flows: flows})
		_, err := s2.Caller(fake).CallTool(context.Background(), "slack", "postMessage", json.RawMessage(args))
		if !errors.Is(err, mcptool.ErrPolicy) || len(fake.sent) != 0 {
			t.Errorf("%s went to slack: err %v, sent %q", args, err, fake.sent)
			continue
		}
		if strings.Contains(err.Error(), "maya") || strings.Contains(err.Error(), "Maya") {
			t.Errorf("%s: the policy error shows the value: %v", args, err)
		}
		// The rule's own destination still gets it.
		if _, err := s2.Caller(fake).CallTool(context.Background(), "salesforce", "updateRecord", json.RawMessage(args)); err != nil {
			t.Errorf("%s to salesforce: %v", args, err)
		}
	}
	// What is not a token stays as written: nothing is rebuilt.
	for _, args := range []string{`{"text":"[email_1]x"}`, `{"text":"[Name_1]"}`, `{"text":"[NAME_01]"}`} {
		fake := newFake()
		s2 := mustSession(t, st, Config{Tokenize: true, Flows: flows})
		if _, err := s2.Caller(fake).CallTool(context.Background(), "slack", "postMessage", json.RawMessage(args)); err != nil {
			t.Errorf("%s: %v", args, err)
		}
		if sent := strings.Join(fake.sent, " "); strings.Contains(strings.ToLower(sent), "maya") {
			t.Errorf("%s: a value was rebuilt from what is not a token: %s", args, sent)
		}
	}
}

// TestFlowsCheckObjectKeys: a value a program read is refused in an
// object key as it is in a value.
func TestFlowsCheckObjectKeys(t *testing.T) {
	flows := []Flow{{From: "google-drive", To: []string{"salesforce"}}}
	s := mustSession(t, nil, Config{Flows: flows})
	fake := newFake()
	caller := s.Caller(fake)
	if _, err := caller.CallTool(context.Background(), "google-drive", "getSheet", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	_, err := caller.CallTool(context.Background(), "slack", "postMessage", json.RawMessage(`{"seen":{"maya.okafor@harborview.example":1}}`))
	if !errors.Is(err, mcptool.ErrPolicy) || len(fake.sent) != 1 {
		t.Errorf("a drive value in a key went to slack: err %v, sent %q", err, fake.sent)
	}
}
