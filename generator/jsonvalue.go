package generator

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
)

// jsonKind is the kind of a decoded JSON value.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

// value is a decoded JSON value that keeps the order of object members, so
// generated types list properties in the order the server wrote them.
type value struct {
	kind    jsonKind
	boolean bool
	text    string // string value, or the number exactly as written
	items   []*value
	members []member
	index   map[string]int // key → position in members, for large objects
}

// member is one key/value pair of a JSON object.
type member struct {
	key string
	val *value
}

// indexThreshold is the object size from which lookups use a map.
const indexThreshold = 16

// decodeValue parses one JSON document into an order-preserving value.
// Duplicate keys keep the position of the first and the value of the last,
// like JSON.parse. Strings and numbers read as encoding/json reads them
// (numbers as written; invalid UTF-8 and lone surrogates become U+FFFD).
func decodeValue(data []byte) (*value, error) {
	if !json.Valid(data) {
		var probe any
		if err := json.Unmarshal(data, &probe); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("invalid JSON")
	}
	return decodeValid(data), nil
}

// decodeValid is decodeValue for data known to be valid JSON (json.Valid):
// one pass over the bytes, no tokens, the nodes allocated in blocks and
// every string that needs no unescaping a substring of one copy of data.
func decodeValid(data []byte) *value {
	d := valueDecoder{data: data, text: string(data)}
	d.space()
	return d.value()
}

// valueDecoder reads valid JSON; it does not check what json.Valid checked.
type valueDecoder struct {
	data  []byte
	text  string // data as a string, for substrings
	pos   int
	block []value
}

func (d *valueDecoder) node(kind jsonKind) *value {
	if len(d.block) == 0 {
		d.block = make([]value, 32)
	}
	v := &d.block[0]
	d.block = d.block[1:]
	v.kind = kind
	return v
}

func (d *valueDecoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *valueDecoder) value() *value {
	switch c := d.data[d.pos]; c {
	case '{':
		v := d.node(jsonObject)
		d.pos++
		d.space()
		if d.data[d.pos] == '}' {
			d.pos++
			return v
		}
		for {
			key := d.str()
			d.space()
			d.pos++ // ':'
			d.space()
			v.set(key, d.value())
			d.space()
			c := d.data[d.pos]
			d.pos++
			if c == '}' {
				return v
			}
			d.space() // after ','
		}
	case '[':
		v := d.node(jsonArray)
		d.pos++
		d.space()
		if d.data[d.pos] == ']' {
			d.pos++
			return v
		}
		for {
			v.items = append(v.items, d.value())
			d.space()
			c := d.data[d.pos]
			d.pos++
			if c == ']' {
				return v
			}
			d.space()
		}
	case '"':
		v := d.node(jsonString)
		v.text = d.str()
		return v
	case 't':
		d.pos += len("true")
		v := d.node(jsonBool)
		v.boolean = true
		return v
	case 'f':
		d.pos += len("false")
		return d.node(jsonBool)
	case 'n':
		d.pos += len("null")
		return d.node(jsonNull)
	default: // a number
		start := d.pos
		for d.pos < len(d.data) && isNumberByte(d.data[d.pos]) {
			d.pos++
		}
		v := d.node(jsonNumber)
		v.text = d.text[start:d.pos]
		return v
	}
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
}

// str reads the string at the position (its opening quote). A string with
// no escape and valid UTF-8 is a substring of d.text; any other is
// unquoted by encoding/json, so both read it alike.
func (d *valueDecoder) str() string {
	start := d.pos
	d.pos++
	plain := true
	for {
		c := d.data[d.pos]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			d.pos++ // the escaped byte cannot end the string
		} else if c >= utf8.RuneSelf {
			plain = false
		}
		d.pos++
	}
	d.pos++
	if plain {
		return d.text[start+1 : d.pos-1]
	}
	if inner := d.text[start+1 : d.pos-1]; !strings.Contains(inner, "\\") && utf8.ValidString(inner) {
		return inner
	}
	var s string
	_ = json.Unmarshal(d.data[start:d.pos], &s) // valid JSON: cannot fail
	return s
}

// set adds or replaces a member, keeping the first position of a key.
func (v *value) set(key string, item *value) {
	if i, ok := v.lookup(key); ok {
		v.members[i].val = item
		return
	}
	v.members = append(v.members, member{key, item})
	if v.index != nil {
		v.index[key] = len(v.members) - 1
	} else if len(v.members) >= indexThreshold {
		v.index = make(map[string]int, len(v.members)*2)
		for i, m := range v.members {
			v.index[m.key] = i
		}
	}
}

func (v *value) lookup(key string) (int, bool) {
	if v.index != nil {
		i, ok := v.index[key]
		return i, ok
	}
	for i, m := range v.members {
		if m.key == key {
			return i, true
		}
	}
	return 0, false
}

// get returns the member named key of an object, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != jsonObject {
		return nil
	}
	if i, ok := v.lookup(key); ok {
		return v.members[i].val
	}
	return nil
}

// has reports whether an object has the member key.
func (v *value) has(key string) bool { return v.get(key) != nil }

// isObject reports whether v is a JSON object.
func (v *value) isObject() bool { return v != nil && v.kind == jsonObject }

// str returns the string value of v and whether v is a string.
func (v *value) str() (string, bool) {
	if v == nil || v.kind != jsonString {
		return "", false
	}
	return v.text, true
}

// getString returns the string member key, or "" when absent or not a string.
func (v *value) getString(key string) string {
	s, _ := v.get(key).str()
	return s
}

// getBool returns the boolean member key as a pointer, nil when absent or not a boolean.
func (v *value) getBool(key string) *bool {
	b := v.get(key)
	if b == nil || b.kind != jsonBool {
		return nil
	}
	x := b.boolean
	return &x
}

// compactJSON renders v as compact JSON, cut to about max bytes (with "…")
// so a huge default or example cannot bloat a doc comment.
func compactJSON(v *value, max int) string {
	var sb strings.Builder
	writeCompact(&sb, v, max)
	s := sb.String()
	if len(s) > max {
		return cutBytes(s, max) + "…"
	}
	return s
}

func writeCompact(sb *strings.Builder, v *value, max int) {
	if sb.Len() > max {
		return
	}
	switch v.kind {
	case jsonNull:
		sb.WriteString("null")
	case jsonBool:
		if v.boolean {
			sb.WriteString("true")
		} else {
			sb.WriteString("false")
		}
	case jsonNumber:
		sb.WriteString(v.text)
	case jsonString:
		sb.WriteString(jsQuote(v.text))
	case jsonArray:
		sb.WriteByte('[')
		for i, item := range v.items {
			if i > 0 {
				sb.WriteByte(',')
			}
			writeCompact(sb, item, max)
			if sb.Len() > max {
				return
			}
		}
		sb.WriteByte(']')
	case jsonObject:
		sb.WriteByte('{')
		for i, m := range v.members {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(jsQuote(m.key))
			sb.WriteByte(':')
			writeCompact(sb, m.val, max)
			if sb.Len() > max {
				return
			}
		}
		sb.WriteByte('}')
	}
}
