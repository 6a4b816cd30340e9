package runtime

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// maxJSONDepth bounds how deeply a tool's result may nest (encoding/json's
// own bound): deeper, the call fails instead of the worker's stack
// growing without end.
const maxJSONDepth = 10000

// errJSONTooDeep reports a value nested deeper than maxJSONDepth.
var errJSONTooDeep = fmt.Errorf("it nests more than %d levels deep", maxJSONDepth)

// jsonToValue builds the JS value of JSON text in one pass, as JSON.parse
// would build it (without a reviver), but straight from the bytes: goja's
// JSON.parse goes through encoding/json's token API and takes about three
// times as long and twice the memory for a large tool result.
//
// What the program gets is what JSON.parse gives: properties in the order
// of the text (a repeated key keeps its first place and its last value),
// each an own data property defined as JSON.parse defines it, so that a
// "__proto__" key is data, not the prototype, and no setter a program put
// on Object.prototype runs; numbers as float64 (integers beyond 2^53 round
// as in JS); invalid UTF-8 and lone surrogate escapes become U+FFFD, as
// goja's JSON.parse makes them.
func jsonToValue(vm *goja.Runtime, data []byte) (goja.Value, error) {
	b := jsonBuilder{vm: vm, data: data, keys: map[string]jsonKey{}, strs: map[string]goja.Value{}}
	// Object.prototype is the prototype of every object built here (the
	// program may have added to it, but cannot replace it).
	b.inherited = map[string]bool{}
	for _, name := range vm.NewObject().Prototype().GetOwnPropertyNames() {
		b.inherited[name] = true
	}
	b.skipSpace()
	v, err := b.value(0)
	if err != nil {
		return nil, err
	}
	b.skipSpace()
	if b.pos != len(b.data) {
		return nil, b.errorf("unexpected %s after the JSON value", b.describe())
	}
	return v, nil
}

type jsonBuilder struct {
	vm   *goja.Runtime
	data []byte
	pos  int
	// keys interns property names: the rows of a table repeat them.
	keys map[string]jsonKey
	// inherited are the names of Object.prototype's own properties.
	inherited map[string]bool
	// strs interns short plain strings: a table's columns of statuses,
	// products or dates repeat them (a JS string is a value: sharing it is
	// not observable).
	strs map[string]goja.Value
	buf  []byte
}

// jsonKey is an interned property name; plain says that Object.prototype
// has no property of that name, so that assigning it (goja's Set: no
// descriptor is allocated) creates an own data property exactly as
// defining it would. Any other name is defined, as JSON.parse defines it:
// "__proto__" stays data and no setter runs.
type jsonKey struct {
	name  string
	plain bool
}

// maxInterned bounds each intern table of one build.
const maxInterned = 4096

// maxInternedString is the longest string value interned.
const maxInternedString = 32

func (b *jsonBuilder) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", b.pos, fmt.Sprintf(format, args...))
}

func (b *jsonBuilder) describe() string {
	if b.pos >= len(b.data) {
		return "end of input"
	}
	return strconv.QuoteRune(rune(b.data[b.pos]))
}

func (b *jsonBuilder) skipSpace() {
	for b.pos < len(b.data) {
		switch b.data[b.pos] {
		case ' ', '\t', '\n', '\r':
			b.pos++
		default:
			return
		}
	}
}

func (b *jsonBuilder) value(depth int) (goja.Value, error) {
	if b.pos >= len(b.data) {
		return nil, b.errorf("unexpected end of input")
	}
	switch c := b.data[b.pos]; {
	case c == '{':
		if depth >= maxJSONDepth {
			return nil, errJSONTooDeep
		}
		return b.object(depth + 1)
	case c == '[':
		if depth >= maxJSONDepth {
			return nil, errJSONTooDeep
		}
		return b.array(depth + 1)
	case c == '"':
		return b.strValue()
	case c == '-' || (c >= '0' && c <= '9'):
		return b.number()
	case c == 't':
		return b.literal("true", goja.Value(b.vm.ToValue(true)))
	case c == 'f':
		return b.literal("false", goja.Value(b.vm.ToValue(false)))
	case c == 'n':
		return b.literal("null", goja.Null())
	}
	return nil, b.errorf("unexpected %s", b.describe())
}

func (b *jsonBuilder) literal(word string, v goja.Value) (goja.Value, error) {
	if len(b.data)-b.pos < len(word) || string(b.data[b.pos:b.pos+len(word)]) != word {
		return nil, b.errorf("unexpected %s", b.describe())
	}
	b.pos += len(word)
	return v, nil
}

func (b *jsonBuilder) object(depth int) (goja.Value, error) {
	obj := b.vm.NewObject()
	b.pos++ // {
	b.skipSpace()
	if b.pos < len(b.data) && b.data[b.pos] == '}' {
		b.pos++
		return obj, nil
	}
	for {
		if b.pos >= len(b.data) || b.data[b.pos] != '"' {
			return nil, b.errorf("expected a property name, found %s", b.describe())
		}
		key, err := b.key()
		if err != nil {
			return nil, err
		}
		b.skipSpace()
		if b.pos >= len(b.data) || b.data[b.pos] != ':' {
			return nil, b.errorf("expected ':' after a property name, found %s", b.describe())
		}
		b.pos++
		b.skipSpace()
		v, err := b.value(depth)
		if err != nil {
			return nil, err
		}
		// CreateDataProperty, as JSON.parse does (jsonKey).
		if key.plain {
			err = obj.Set(key.name, v)
		} else {
			err = obj.DefineDataProperty(key.name, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE)
		}
		if err != nil {
			return nil, err
		}
		b.skipSpace()
		if b.pos >= len(b.data) {
			return nil, b.errorf("unexpected end of input in an object")
		}
		switch b.data[b.pos] {
		case ',':
			b.pos++
			b.skipSpace()
		case '}':
			b.pos++
			return obj, nil
		default:
			return nil, b.errorf("expected ',' or '}' in an object, found %s", b.describe())
		}
	}
}

func (b *jsonBuilder) array(depth int) (goja.Value, error) {
	b.pos++ // [
	b.skipSpace()
	var items []any
	if b.pos < len(b.data) && b.data[b.pos] == ']' {
		b.pos++
		return b.vm.NewArray(), nil
	}
	for {
		v, err := b.value(depth)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		b.skipSpace()
		if b.pos >= len(b.data) {
			return nil, b.errorf("unexpected end of input in an array")
		}
		switch b.data[b.pos] {
		case ',':
			b.pos++
			b.skipSpace()
		case ']':
			b.pos++
			return b.vm.NewArray(items...), nil
		default:
			return nil, b.errorf("expected ',' or ']' in an array, found %s", b.describe())
		}
	}
}

// strValue reads a string literal as a value; a short plain one is
// interned.
func (b *jsonBuilder) strValue() (goja.Value, error) {
	if raw, end, ok := b.plainLiteral(maxInternedString); ok {
		b.pos = end
		v, ok := b.strs[string(raw)]
		if !ok {
			v = b.vm.ToValue(string(raw))
			if len(b.strs) < maxInterned {
				b.strs[string(raw)] = v
			}
		}
		return v, nil
	}
	s, err := b.str()
	if err != nil {
		return nil, err
	}
	return b.vm.ToValue(s), nil
}

// key reads a property name, interned.
func (b *jsonBuilder) key() (jsonKey, error) {
	if raw, end, ok := b.plainLiteral(len(b.data)); ok {
		if k, ok := b.keys[string(raw)]; ok {
			b.pos = end
			return k, nil
		}
	}
	name, err := b.str() // checks and decodes any other
	if err != nil {
		return jsonKey{}, err
	}
	k := jsonKey{name: name, plain: !b.inherited[name]}
	if len(b.keys) < maxInterned {
		b.keys[name] = k
	}
	return k, nil
}

// plainLiteral looks at the string literal at b.pos: when it is at most
// most bytes of ASCII without escapes or control characters, it returns
// them (its value as it is) and the position after its closing quote.
func (b *jsonBuilder) plainLiteral(most int) (raw []byte, end int, ok bool) {
	start := b.pos + 1
	for i := start; i < len(b.data) && i-start <= most; i++ {
		switch c := b.data[i]; {
		case c == '"':
			return b.data[start:i], i + 1, true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, 0, false
		}
	}
	return nil, 0, false
}

// str reads a string literal.
func (b *jsonBuilder) str() (string, error) {
	b.pos++ // "
	start := b.pos
	// The fast path: plain ASCII without escapes.
	for b.pos < len(b.data) {
		c := b.data[b.pos]
		if c == '"' {
			s := string(b.data[start:b.pos])
			b.pos++
			return s, nil
		}
		if c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			break
		}
		b.pos++
	}
	buf := append(b.buf[:0], b.data[start:b.pos]...)
	for {
		if b.pos >= len(b.data) {
			return "", b.errorf("unexpected end of input in a string")
		}
		c := b.data[b.pos]
		switch {
		case c == '"':
			b.pos++
			b.buf = buf
			return string(buf), nil
		case c < 0x20:
			return "", b.errorf("a control character in a string")
		case c == '\\':
			if b.pos+1 >= len(b.data) {
				return "", b.errorf("unexpected end of input in a string")
			}
			e := b.data[b.pos+1]
			b.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := b.hex4()
				if !ok {
					return "", b.errorf("an invalid \\u escape in a string")
				}
				if utf16.IsSurrogate(r) {
					// A pair makes one character; a lone half is U+FFFD.
					r2 := rune(-1)
					if b.pos+1 < len(b.data) && b.data[b.pos] == '\\' && b.data[b.pos+1] == 'u' {
						save := b.pos
						b.pos += 2
						if x, ok := b.hex4(); ok {
							r2 = x
						} else {
							return "", b.errorf("an invalid \\u escape in a string")
						}
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							buf = utf8.AppendRune(buf, d)
							continue
						}
						b.pos = save // the second escape stands on its own
					}
					r = utf8.RuneError
				}
				buf = utf8.AppendRune(buf, r)
			default:
				return "", b.errorf("an invalid escape in a string")
			}
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			b.pos++
		default:
			r, size := utf8.DecodeRune(b.data[b.pos:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, b.data[b.pos:b.pos+size]...)
			}
			b.pos += size
		}
	}
}

func (b *jsonBuilder) hex4() (rune, bool) {
	if len(b.data)-b.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b.data[b.pos : b.pos+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	b.pos += 4
	return r, true
}

var errBadNumber = errors.New("an invalid number")

// number reads a number as JSON's grammar has it.
func (b *jsonBuilder) number() (goja.Value, error) {
	start := b.pos
	d := b.data
	i := b.pos
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	default:
		b.pos = i
		return nil, b.errorf("%v", errBadNumber)
	}
	integer := true
	if i < len(d) && d[i] == '.' {
		integer = false
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			b.pos = i
			return nil, b.errorf("%v", errBadNumber)
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		integer = false
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			b.pos = i
			return nil, b.errorf("%v", errBadNumber)
		}
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
	}
	b.pos = i
	text := d[start:i]
	if integer && len(text) <= 15 && string(text) != "-0" {
		// Exact in a float64: no need for the general conversion.
		var n int64
		neg := text[0] == '-'
		digits := text
		if neg {
			digits = text[1:]
		}
		for _, c := range digits {
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return b.vm.ToValue(n), nil
	}
	f, err := strconv.ParseFloat(string(text), 64)
	if err != nil {
		// Out of range: ±Inf, as JSON.parse gives.
		var ne *strconv.NumError
		if !errors.As(err, &ne) || !errors.Is(ne.Err, strconv.ErrRange) {
			return nil, b.errorf("%v", errBadNumber)
		}
	}
	return b.vm.ToValue(f), nil
}
