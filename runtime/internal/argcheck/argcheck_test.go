package argcheck

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

const docSchema = `{"type":"object","properties":{"documentId":{"type":"string"},"fields":{"type":"string"}},"required":["documentId"],"additionalProperties":false}`

const sheetSchema = `{"type":"object","properties":{"sheetId":{"type":"string"},"limit":{"type":"integer","minimum":1},"mode":{"enum":["a","b"]},"rows":{"type":"array","items":{"type":"object","properties":{"status":{"type":"string"}}}}},"required":["sheetId"]}`

func TestProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, schema, args string
		want               []string
	}{
		{name: "valid", schema: docSchema, args: `{"documentId":"x"}`},
		{name: "missing required", schema: docSchema, args: `{}`, want: []string{"/documentId: required property missing"}},
		{name: "closed schema typo", schema: docSchema, args: `{"documentID":"x"}`,
			want: []string{`/documentID: unknown property "documentID" (did you mean "documentId"?)`, "/documentId: required property missing"}},
		{name: "closed schema unknown property", schema: docSchema, args: `{"documentId":"x","zzz":1}`, want: []string{`/zzz: unknown property "zzz"`}},
		{name: "open schema typo", schema: sheetSchema, args: `{"sheetId":"s","limt":5}`, want: []string{`/limt: unknown property "limt" (did you mean "limit"?)`}},
		{name: "open schema unknown property is fine", schema: sheetSchema, args: `{"sheetId":"s","other":5}`},
		{name: "several problems sorted by path", schema: sheetSchema, args: `{"limit":0}`, want: []string{"/limit: must be at least 1, got 0", "/sheetId: required property missing"}},
		{name: "wrong type", schema: docSchema, args: `{"documentId":7}`, want: []string{"/documentId: expected string, got number"}},
		// playwright's browser_take_screenshot lists "type" and "scale" as
		// required with defaults: the server fills them in.
		{name: "required with a default may be left out", schema: `{"type":"object","properties":{"type":{"type":"string","default":"png"},"scale":{"type":"string","default":"css"},"filename":{"type":"string"}},"required":["type","scale","filename"]}`,
			args: `{}`, want: []string{"/filename: required property missing"}},
		{name: "enum", schema: sheetSchema, args: `{"sheetId":"s","mode":"c"}`, want: []string{`/mode: must be one of "a", "b", got "c"`}},
		{name: "typo inside array items", schema: sheetSchema, args: `{"sheetId":"s","rows":[{"Status":"x"}]}`, want: []string{`/rows/0/Status: unknown property "Status" (did you mean "status"?)`}},
		{name: "not JSON", schema: docSchema, args: `{`, want: []string{"/: arguments are not valid JSON"}},
		{name: "empty schema checks nothing", schema: ``, args: `{"anything":1}`},
		{name: "uncompilable schema checks nothing", schema: `{"type":"object","properties":{"x":{"$ref":"https://example.com/remote.json"}},"required":"x"}`, args: `{}`},
		{name: "pattern Go cannot compile matches everything", schema: `{"type":"object","properties":{"x":{"type":"string","pattern":"(?<=a)b"}}}`, args: `{"x":"zzz"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Compile(json.RawMessage(tt.schema)).Problems(json.RawMessage(tt.args))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Problems = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	names := []string{"getDocument", "getSheet", "search", "updateDocument"}
	tests := []struct {
		name string
		want []string
	}{
		{"getDocment", []string{"getDocument"}},
		{"GETSHEET", []string{"getSheet"}},
		{"Document", []string{"getDocument", "updateDocument"}},
		{"zzzzzz", []string{}},
	}
	for _, tt := range tests {
		if got := Closest(tt.name, names, 3); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := Closest("getDocment", nil, 3); len(got) != 0 {
		t.Errorf("Closest with no candidates = %q", got)
	}
}

func TestLikelyTypo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		got, want string
		typo      bool
	}{
		{"limt", "limit", true},
		{"Query", "query", true},
		{"id", "ix", false}, // too short for a distance to mean anything
		{"fields", "fields", false},
		{"documentIdentifier", "documentId", false},
	}
	for _, tt := range tests {
		if got := likelyTypo(tt.got, tt.want); got != tt.typo {
			t.Errorf("likelyTypo(%q, %q) = %v, want %v", tt.got, tt.want, got, tt.typo)
		}
	}
}

// FuzzProblems feeds arbitrary arguments to a few schemas: Problems never
// panics, and every problem it reports is a "path: message" line, sorted by
// path, with a path that is a JSON pointer.
func FuzzProblems(f *testing.F) {
	for _, seed := range []string{`{}`, `{"documentId":"x"}`, `{"documentID":1,"limit":-1}`, `{"rows":[{"Status":1},{}]}`, `[1,2]`, `"x"`, `{`, `{"a":{"b":{"c":[[[[]]]]}}}`} {
		f.Add(seed)
	}
	schemas := []*Schema{Compile(json.RawMessage(docSchema)), Compile(json.RawMessage(sheetSchema)), Compile(nil)}
	f.Fuzz(func(t *testing.T, args string) {
		for _, s := range schemas {
			problems := s.Problems(json.RawMessage(args))
			paths := make([]string, len(problems))
			// A property name may itself contain ": "; then the path
			// cannot be told from the message, and order is not checked.
			clear := true
			for i, p := range problems {
				path, msg, ok := strings.Cut(p, ": ")
				if !ok || !strings.HasPrefix(path, "/") || msg == "" {
					t.Fatalf("problem %q is not a \"path: message\" line", p)
				}
				paths[i] = path
				clear = clear && strings.Count(p, ": ") == 1
			}
			if clear && !slices.IsSorted(paths) {
				t.Fatalf("problems are not sorted by path: %q", problems)
			}
		}
	})
}
