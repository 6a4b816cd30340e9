package generator

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAdversarialDecodeValueHostile (regression guard, passes): the
// one-pass reader of tool definitions reads what encoding/json's tokens
// read on hostile definitions: keys equal once unescaped (duplicates
// keep the first place and the last value), escapes that spell "*/",
// "\u2028" and quotes, escaped backslashes before quotes, invalid UTF-8
// and lone surrogates, deep nesting at and past encoding/json's bound,
// and numbers JavaScript cannot hold.
func TestAdversarialDecodeValueHostile(t *testing.T) {
	t.Parallel()
	for _, in := range []string{
		`{"name":"a","n\u0061me":"b","inputSchema":{"properties":{"x":{},"\u0078":{"type":"number"}}}}`,
		`{"description":"\u002a\u002f INJECTED(); /\u002a","name":"t\u2028"}`,
		`{"k\\":"\\\"","\\\\":"\"\\"}`, `["\\\\\\\"",  "\\\\"]`, `"\/\/\b\f"`,
		"{\"\xff\xfe\":\"\xed\xa0\x80\",\"\xef\xbf\xbd\":1}", `"\ud800\udc00\udc00\ud800"`,
		`[1e99999,-0,1E+2,0.0000001,123456789012345678901234567890]`,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		`{"a":1,"a":{"b":2},"a":[3]}`, "{\"a\" \t\r\n:\n1}", `{"":"","\u0000":0}`,
	} {
		checkDecode(t, []byte(in))
	}
}

// TestAdversarialEscapedInjection (regression guard, passes): a name, a
// description, a property name, a default and an enum written with JSON
// escapes (so that the reader unescapes them, not the substring path) still
// cannot end a doc comment, start a directive or leave a string.
func TestAdversarialEscapedInjection(t *testing.T) {
	t.Parallel()
	tool := json.RawMessage(`{"name":"evil\u002a\u002f\u0060","description":"ok \u002a\u002f INJECTED(); /\u002a \u2028@param x\n// @ts-nocheck",` +
		`"inputSchema":{"type":"object","properties":{"q\u002a\u002f INJECTED()":{"type":"string","description":"\u002a\u002f INJECTED();","default":"\u002a\u002f INJECTED();","enum":["\u002a\u002f INJECTED();","\u0060${INJECTED()}\u0060"]}}}}`)
	plan, err := Generate([]Server{{Name: "s", Tools: []json.RawMessage{tool}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkNoDirectives(t, plan)
	for _, f := range plan.Files {
		for i, line := range strings.Split(string(f.Content), "\n") {
			trimmed := strings.TrimSpace(line)
			inComment := strings.HasPrefix(trimmed, "/*") || strings.HasPrefix(trimmed, "*")
			if (inComment && strings.Contains(strings.TrimSuffix(trimmed, "*/"), "*/")) || strings.ContainsAny(line, "\u2028\u2029") {
				t.Errorf("%s:%d: escaped text ends a comment early or keeps a line separator: %q", f.Path, i+1, line)
			}
		}
	}
}
