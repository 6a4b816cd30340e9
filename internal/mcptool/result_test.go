package mcptool

import (
	"encoding/json"
	"strings"
	"testing"
)

// referenceResult is how a result was decoded before ParseResult:
// encoding/json into Result, then the same normalization.
func referenceResult(raw []byte) (*Result, error) {
	var r Result
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	if len(r.Content) == 0 || string(r.Content) == "null" {
		r.Content = json.RawMessage(`[]`)
	}
	if string(r.StructuredContent) == "null" {
		r.StructuredContent = nil
	}
	return &r, nil
}

func sameResult(t *testing.T, raw string) {
	t.Helper()
	want, werr := referenceResult([]byte(raw))
	got, gerr := ParseResult([]byte(raw))
	if (werr != nil) != (gerr != nil) {
		t.Fatalf("%q: encoding/json error %v, ParseResult error %v", raw, werr, gerr)
	}
	if werr != nil {
		return
	}
	if string(got.Content) != string(want.Content) || string(got.StructuredContent) != string(want.StructuredContent) || got.IsError != want.IsError {
		t.Fatalf("%q:\n got %s | %s | %v\nwant %s | %s | %v", raw, got.Content, got.StructuredContent, got.IsError, want.Content, want.StructuredContent, want.IsError)
	}
}

// sameCallResponse checks ParseCallResponse against encoding/json reading
// the envelope and then the result.
func sameCallResponse(t *testing.T, line string) {
	t.Helper()
	var env struct {
		ID     json.RawMessage  `json:"id"`
		Result *json.RawMessage `json:"result"`
		Method *string          `json:"method"`
		Error  json.RawMessage  `json:"error"`
	}
	err := json.Unmarshal([]byte(line), &env)
	id, res, ok, perr := ParseCallResponse([]byte(line))
	wantOK := err == nil && env.ID != nil && env.Result != nil && env.Method == nil && env.Error == nil
	if wantOK {
		want, werr := referenceResult(*env.Result)
		if werr != nil {
			wantOK = false
		} else if !ok || string(id) != string(env.ID) || string(res.Content) != string(want.Content) || string(res.StructuredContent) != string(want.StructuredContent) || res.IsError != want.IsError {
			t.Fatalf("%q: got %s %+v %v %v, want %s %+v", line, id, res, ok, perr, env.ID, want)
		}
	}
	if !wantOK && ok {
		t.Fatalf("%q: read as a call response (%s, %+v)", line, id, res)
	}
}

func TestParseCallResponse(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"a":"\\"}}}`,
		`{"result":{"content":[{"type":"text","text":"x"}],"isError":true},"jsonrpc":"2.0","id":"abc"}`,
		`{"jsonrpc":"2.0","id":3,"result":null}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"no"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		`{"jsonrpc":"2.0","result":{}}`, `{"jsonrpc":"2.0","id":4}`, `[]`,
	} {
		sameCallResponse(t, line)
	}
}

func TestScanArray(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{`[]`, ` [ ] `, `[1]`, `[{"a":"]"},[1,[2]],"x\"]",null,true,-1.5e3]`, `[{"name":"t1"},{"name":"t2"}]`} {
		var want []json.RawMessage
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := ScanArray([]byte(raw), func(e []byte) error { got = append(got, string(e)); return nil }); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d elements, want %d", raw, len(got), len(want))
		}
		for i := range got {
			if got[i] != string(want[i]) {
				t.Errorf("%s: element %d = %s, want %s", raw, i, got[i], want[i])
			}
		}
	}
	for _, bad := range []string{`{}`, `[1,`, `[1 2]`, `"x"`} {
		if err := ScanArray([]byte(bad), func([]byte) error { return nil }); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestScannerChecksJSON: what is not JSON (as json.Valid has it) is never
// read as a result or a call's answer, whatever part of it is broken.
func TestScannerChecksJSON(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth)
	for _, raw := range []string{
		`{"structuredContent":{"a":[}]}`, `{"content":[1,]}`, `{"content":[1 2]}`, `{"a":tru}`, `{"a":nul}`, `{"a":falsey}`,
		`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":+1}`, `{"a":0x1}`,
		`{"a":"\x"}`, `{"a":"\u12"}`, `{"a":"\u12G4"}`, "{\"a\":\"tab\there\"}", "{\"a\":\"nl\nhere\"}",
		`{"a":"no end}`, `{"a" 1}`, `{"a":1 "b":2}`, `{a:1}`, `{"a":1}}`, `{"a":1} x`, `{"a":[1]]}`,
		`{"structuredContent":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}`,
	} {
		if json.Valid([]byte(raw)) {
			t.Fatalf("precondition: %q is JSON", raw)
		}
		if _, err := ParseResult([]byte(raw)); err == nil {
			t.Errorf("ParseResult(%q): no error", raw)
		}
		if _, _, ok, _ := ParseCallResponse([]byte(`{"jsonrpc":"2.0","id":5,"result":` + raw + `}`)); ok {
			t.Errorf("ParseCallResponse took %q for an answer", raw)
		}
	}
	// As deep as encoding/json allows, and strings with every escape and
	// bytes that are not ASCII: read.
	for _, raw := range []string{`{"structuredContent":` + deep[2:len(deep)-2] + `}`,
		`{"structuredContent":{"s":"\" \\ \/ \b \f \n \r \t \u00e9 é ~ 0123456789abcdef"}}`, "{\"structuredContent\":{\"s\":\"\xff\xfe\"}}"} {
		if !json.Valid([]byte(raw)) {
			t.Fatalf("precondition: %q is not JSON", raw)
		}
		if _, err := ParseResult([]byte(raw)); err != nil {
			t.Errorf("ParseResult: %v", err)
		}
	}
}

func TestParseResultMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`{}`, ` { } `, `{"content":[]}`, `{"content":null}`, `{"content":[{"type":"text","text":"a \"}] b"}]}`,
		`{"content":[],"structuredContent":{"rows":[{"a":"}"},{"b":"\\"}]},"isError":false}`,
		`{"isError":true,"content":[{"type":"text","text":"x"}]}`, `{"isError":null}`, `{"structuredContent":null}`,
		`{"content":[1],"content":[2]}`, `{"Content":[1],"ISERROR":true,"structuredcontent":{}}`,
		`{"conten\u0074":[3],"_meta":{"x":[1,{"y":"]"}]},"other":-1.5e3,"t":true,"n":null}`,
		"{\n\t\"content\" : [ ] ,\r\n \"isError\" : false\n}", `{"structuredContent":"text"}`, `{"structuredContent":42}`,
		// Not results.
		`null`, ` null `, `[]`, `"x"`, `{"isError":"yes"}`, `{"isError":1}`,
	} {
		sameResult(t, raw)
	}
}

// TestParseResultDoesNotCopy: the fields are slices of the input.
func TestParseResultDoesNotCopy(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1}}`)
	r, err := ParseResult(raw)
	if err != nil {
		t.Fatal(err)
	}
	raw[strings.Index(string(raw), `"a"`)+1] = 'b'
	if string(r.StructuredContent) != `{"b":1}` {
		t.Errorf("structured content %s is a copy", r.StructuredContent)
	}
}

func FuzzParseResult(f *testing.F) {
	for _, s := range []string{`{"content":[],"isError":true}`, `{"structuredContent":{"a":"\\\"}"}}`, `{"CONTENT":null}`, `{"a":[[[]]],"isError":false}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// Whatever the bytes (a server's line is tapped before anything
		// checks it), nothing panics, and bytes that are not JSON are
		// never taken for a result or a call's answer.
		_, perr := ParseResult([]byte(raw))
		line := `{"jsonrpc":"2.0","id":1,"result":` + raw + `}`
		_, _, ok, _ := ParseCallResponse([]byte(line))
		_, _, okRaw, _ := ParseCallResponse([]byte(raw))
		serr := ScanObject([]byte(raw), func(string, []byte) error { return nil })
		aerr := ScanArray([]byte(raw), func([]byte) error { return nil })
		if !json.Valid([]byte(raw)) {
			if perr == nil || ok || okRaw || serr == nil || aerr == nil {
				t.Errorf("%q is not JSON, yet ParseResult err %v, ParseCallResponse ok %v/%v, ScanObject err %v, ScanArray err %v", raw, perr, ok, okRaw, serr, aerr)
			}
			return // results are compared on valid JSON
		}
		sameResult(t, raw)
		sameCallResponse(t, `{"jsonrpc":"2.0","id":1,"result":`+raw+`}`)
	})
}

func BenchmarkParseResult(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"content":[{"type":"text","text":"`)
	row := `{\"orderId\":\"ORD-1\",\"name\":\"Customer\",\"Status\":\"pending\",\"amount\":12.5}`
	for i := 0; i < 10000; i++ {
		sb.WriteString(row + ",")
	}
	sb.WriteString(`"}],"structuredContent":{"rows":[`)
	for i := 0; i < 10000; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`{"orderId":"ORD-1","name":"Customer","Status":"pending","amount":12.5}`)
	}
	sb.WriteString(`]}}`)
	raw := []byte(sb.String())
	b.Run("ParseResult", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := ParseResult(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := referenceResult(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestParseResultInputRequired: an interim result of MCP 2026-07-28 is
// told from a call's answer, as go-sdk's client tells it (resultType
// "input_required", or inputRequests present).
func TestParseResultInputRequired(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		raw  string
		want bool
	}{
		{`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}},"requestState":"s"}`, true},
		{`{"inputRequests":{"a":{"method":"roots/list"}}}`, true},
		{`{"resultType":"input_required","requestState":"s"}`, true},
		{`{"resultType":"complete","content":[]}`, false},
		{`{"content":[{"type":"text","text":"\"resultType\":\"input_required\""}]}`, false},
		{`{"content":[],"inputRequests":null}`, false},
	} {
		r, err := ParseResult([]byte(tc.raw))
		if err != nil {
			t.Fatalf("%s: %v", tc.raw, err)
		}
		if r.InputRequired != tc.want {
			t.Errorf("%s: InputRequired = %v, want %v", tc.raw, r.InputRequired, tc.want)
		}
		_, r, ok, err := ParseCallResponse([]byte(`{"jsonrpc":"2.0","id":1,"result":` + tc.raw + `}`))
		if !ok || err != nil || r.InputRequired != tc.want {
			t.Errorf("ParseCallResponse of %s: %+v %v %v", tc.raw, r, ok, err)
		}
	}
}
