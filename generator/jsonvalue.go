package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
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
// like JSON.parse.
func decodeValue(data []byte) (*value, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeNext(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("unexpected data after the JSON value")
	}
	return v, nil
}

func decodeNext(dec *json.Decoder) (*value, error) {
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
				item, err := decodeNext(dec)
				if err != nil {
					return nil, err
				}
				v.items = append(v.items, item)
			}
			_, err := dec.Token() // ']'
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
				item, err := decodeNext(dec)
				if err != nil {
					return nil, err
				}
				v.set(key, item)
			}
			_, err := dec.Token() // '}'
			return v, err
		}
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
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
