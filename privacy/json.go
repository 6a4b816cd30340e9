package privacy

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// rewriteStrings returns raw JSON with every string (keys included) passed
// through fn; everything else is kept byte for byte. raw must be valid JSON.
func rewriteStrings(raw []byte, fn func(string) (string, error)) ([]byte, error) {
	var out []byte
	last := 0
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		j, escaped := i+1, false
		for j < len(raw) && raw[j] != '"' {
			if raw[j] == '\\' {
				escaped = true
				j++
			}
			j++
		}
		if j >= len(raw) {
			break
		}
		var s string
		if escaped {
			if err := json.Unmarshal(raw[i:j+1], &s); err != nil {
				return nil, err
			}
		} else {
			s = string(raw[i+1 : j])
		}
		t, err := fn(s)
		if err != nil {
			return nil, err
		}
		if t != s {
			out = append(out, raw[last:i]...)
			out = appendJSONString(out, t)
			last = j + 1
		}
		i = j
	}
	if out == nil {
		return raw, nil
	}
	return append(out, raw[last:]...), nil
}

// appendJSONString appends s as a JSON string without HTML escaping.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < 0x80 {
			b = append(b, c)
			i++
			continue
		}
		if c < 0x80 {
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, `\u00`...)
				b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' {
			b = append(b, `\u`...)
			b = strconv.AppendInt(b, int64(r), 16)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// fieldKey normalizes a key for comparison with the name fields: lower
// case, without '_' and '-'.
func fieldKey(k string) string {
	plain := true
	for i := 0; i < len(k); i++ {
		if c := k[i]; c == '_' || c == '-' || (c >= 'A' && c <= 'Z') || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return k
	}
	b := make([]byte, 0, len(k))
	for _, c := range []byte(strings.ToLower(k)) {
		if c != '_' && c != '-' {
			b = append(b, c)
		}
	}
	return string(b)
}

// personKeys are sibling keys that make a generic "name" a person's.
var personKeys = map[string]bool{
	"email": true, "emailaddress": true, "mail": true, "phone": true, "phonenumber": true,
	"mobile": true, "mobilephone": true, "firstname": true, "lastname": true, "telephone": true,
}

// walkValue calls str for every string of v (keys excluded) and name for
// every string under a name field.
func walkValue(v any, fields map[string]bool, str func(string), name func(value string, minWords int)) {
	switch x := v.(type) {
	case string:
		str(x)
	case []any:
		for _, e := range x {
			walkValue(e, fields, str, name)
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		person := false
		for k := range x {
			keys = append(keys, k)
			person = person || personKeys[fieldKey(k)]
		}
		slices.Sort(keys) // values are learned, and numbered, in a stable order
		for _, k := range keys {
			e := x[k]
			fk := fieldKey(k)
			if s, ok := e.(string); ok && fields[fk] {
				if fk != "name" {
					name(s, 1)
				} else if person {
					name(s, 2)
				}
			}
			walkValue(e, fields, str, name)
		}
	}
}

// looksJSON reports whether text may be a JSON object or array.
func looksJSON(text string) bool {
	t := strings.TrimSpace(text)
	return len(t) > 1 && (t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']')
}

// decodeJSON decodes raw into any, keeping numbers as json.Number.
func decodeJSON(raw []byte) (any, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}
