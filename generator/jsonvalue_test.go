package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"testing"
)

// decodeTokens is the decoder decodeValue replaced (encoding/json's
// tokens), the reference it is checked against.
func decodeTokens(data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeTokensNext(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeTokensNext(dec *json.Decoder) (*value, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &value{kind: jsonNull}, nil
	case bool:
		return &value{kind: jsonBool, boolean: t}, nil
	case json.Number:
		return &value{kind: jsonNumber, text: string(t)}, nil
	case string:
		return &value{kind: jsonString, text: t}, nil
	case json.Delim:
		switch t {
		case '[':
			v := &value{kind: jsonArray}
			for dec.More() {
				item, err := decodeTokensNext(dec)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, item)
			}
			_, err := dec.Token()
			return v, err
		case '{':
			v := &value{kind: jsonObject}
			for dec.More() {
				keyTok, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := keyTok.(string)
				if !ok {
					return nil, fmt.Errorf("object key is not a string")
				}
				item, err := decodeTokensNext(dec)
				if err != nil {
					return nil, err
				}
				v.set(key, item)
			}
			_, err := dec.Token()
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// sameValue reports where two decoded values differ ("" when they do not).
func sameValue(a, b *value, at string) string {
	if a.kind != b.kind || a.boolean != b.boolean || a.text != b.text || len(a.items) != len(b.items) || len(a.members) != len(b.members) {
		return fmt.Sprintf("%s: %+v != %+v", at, *a, *b)
	}
	for i := range a.items {
		if d := sameValue(a.items[i], b.items[i], fmt.Sprintf("%s/%d", at, i)); d != "" {
			return d
		}
	}
	for i := range a.members {
		if a.members[i].key != b.members[i].key {
			return fmt.Sprintf("%s: key %q != %q", at, a.members[i].key, b.members[i].key)
		}
		if d := sameValue(a.members[i].val, b.members[i].val, at+"/"+a.members[i].key); d != "" {
			return d
		}
	}
	for i, m := range a.members {
		if j, ok := a.lookup(m.key); !ok || j != i {
			return fmt.Sprintf("%s: lookup(%q) = %d, %v", at, m.key, j, ok)
		}
	}
	return ""
}

var decodeSeeds = []string{
	`{"a":1,"b":[true,false,null,-1.5e+3,0,"x"],"c":{}}`,
	` [ ] `, `{ }`, `"\u00e9\ud83d\ude00\n\"\\\/"`, `"\ud800"`, `"\udc00\ud800x"`, "\"\xff\xfe ok \xe2\x82\"", "\"caf\xc3\xa9\"",
	`{"a":1,"a":{"b":2},"c":3,"a":[4]}`, `{"k\u0000":"v\t"}`, `1E-7`, `-0`, `{"x":"\u2028\u2029<>&"}`,
	`{"0":0,"1":1,"2":2,"3":3,"4":4,"5":5,"6":6,"7":7,"8":8,"9":9,"10":10,"11":11,"12":12,"13":13,"14":14,"15":15,"16":16,"3":"again","17":17}`,
	"\t{\n\"a\" :\r[ 1 , 2 ] }\n",
}

// TestDecodeValueAsTokens checks the decoder against encoding/json's
// tokens on the corpus and on odd inputs (escapes, invalid UTF-8, lone
// surrogates, duplicate keys, whitespace).
func TestDecodeValueAsTokens(t *testing.T) {
	t.Parallel()
	inputs := append([]string(nil), decodeSeeds...)
	for _, s := range corpusServers(t) {
		for _, tool := range s.Tools {
			inputs = append(inputs, string(tool))
		}
	}
	for _, in := range inputs {
		checkDecode(t, []byte(in))
	}
}

func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	want, wantErr := decodeTokens(data)
	got, err := decodeValue(data)
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("%q: error %v, encoding/json's tokens: %v", data, err, wantErr)
	}
	if err != nil {
		return
	}
	if d := sameValue(got, want, ""); d != "" {
		t.Fatalf("%q: %s", data, d)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	if c, ok := compactValid(data); (ok && !bytes.Equal(c, compact.Bytes())) || (!ok && !bytes.Equal(data, compact.Bytes())) {
		t.Fatalf("compactValid(%q) = %q, %v; json.Compact: %q", data, c, ok, compact.Bytes())
	}
}

// FuzzDecodeValue: decodeValue reads what encoding/json's tokens read,
// and refuses what they refuse; compactValid compacts as json.Compact.
func FuzzDecodeValue(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
	})
}

func BenchmarkDecodeValue10kTools(b *testing.B) {
	tools := tools10k(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, raw := range tools {
			if _, err := decodeValue(raw); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestCompactHashAsCompact: compactValid compacts as json.Compact does.
func TestCompactHashAsCompact(t *testing.T) {
	t.Parallel()
	inputs := append([]string{` { "a" : [ 1 , "x y\" \\" ] }` + "\n\t", `{"a":1}`, "\"\\\\\"", ` "a b" `}, decodeSeeds...)
	for _, s := range corpusServers(t) {
		for _, tool := range s.Tools {
			inputs = append(inputs, string(tool))
			var indented bytes.Buffer
			_ = json.Indent(&indented, tool, " ", "\t")
			inputs = append(inputs, indented.String())
		}
	}
	for _, in := range inputs {
		var want bytes.Buffer
		if err := json.Compact(&want, []byte(in)); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		got, ok := compactValid([]byte(in))
		if !ok {
			got = []byte(in)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("compactValid(%q) = %q, json.Compact: %q", in, got, want.Bytes())
		}
	}
}
