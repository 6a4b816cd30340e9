package mcptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ParseResult reads the fields of a tools/call result that mcpcode acts on
// (content, structuredContent, isError) in one pass over raw, checking on
// the way that raw is JSON as json.Valid would (it may come straight from a
// server's line). Content and StructuredContent are slices of raw, not
// copies: a 10,000-row result is scanned once and never copied here.
// Content that is absent or null becomes [], structured content that is
// null is nil, and a repeated key counts with its last value, as
// encoding/json decodes them (keys matched case-insensitively, as it
// does). The error says why raw is not a result (not JSON, not an object,
// isError not a boolean).
func ParseResult(raw []byte) (*Result, error) {
	s := &resultScanner{data: raw}
	r, err := s.result()
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// end checks that nothing but white space follows the value read.
func (s *resultScanner) end() error {
	s.space()
	if s.pos != len(s.data) {
		return errors.New("not valid JSON: more after the value")
	}
	return nil
}

// result reads a result at the scanner's position and moves past it.
func (s *resultScanner) result() (*Result, error) {
	s.space()
	if s.pos+4 <= len(s.data) && string(s.data[s.pos:s.pos+4]) == "null" {
		s.pos += 4
		return &Result{Content: json.RawMessage(`[]`)}, nil // as encoding/json reads it
	}
	r := &Result{}
	err := s.object(func(key string, value []byte) error {
		// Keys match as encoding/json matches them: case-insensitively.
		switch {
		case strings.EqualFold(key, "content"):
			r.Content = value
		case strings.EqualFold(key, "structuredContent"):
			r.StructuredContent = value
		case strings.EqualFold(key, "isError"):
			switch string(value) {
			case "true":
				r.IsError = true
			case "false", "null":
				r.IsError = false
			default:
				return fmt.Errorf("the result's isError is %s, not a boolean", clip(value))
			}
		case key == "resultType" && string(value) == `"input_required"`,
			key == "inputRequests" && string(value) != "null":
			// As go-sdk's client tells an interim result (mrtr.go).
			r.InputRequired = true
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	if len(r.Content) == 0 || string(r.Content) == "null" {
		r.Content = json.RawMessage(`[]`)
	}
	if string(r.StructuredContent) == "null" {
		r.StructuredContent = nil
	}
	return r, nil
}

// ParseCallResponse reads a JSON-RPC response to tools/call in one pass:
// its id (the raw token) and its result as ParseResult reads it. ok is
// false, with no error, when line is another message: a request or a
// notification (it has a method), an error response, or one without an
// id or result; it is false with an error when line is not JSON (checked
// as ParseResult checks its input), which no message is.
func ParseCallResponse(line []byte) (id json.RawMessage, res *Result, ok bool, err error) {
	s := &resultScanner{data: line}
	other := false
	err = s.object(func(key string, value []byte) error {
		switch key {
		case "id":
			id = value
		case "method", "error":
			other = true
		}
		return nil
	}, func(key string) (bool, error) {
		if key != "result" || bytes.HasPrefix(s.data[s.pos:], []byte("null")) {
			return false, nil // a null result is not a call's answer
		}
		var err error
		res, err = s.result()
		return true, err
	})
	if err == nil {
		err = s.end()
	}
	if err != nil || other || id == nil || res == nil {
		return nil, nil, false, err
	}
	return id, res, true, nil
}

// ScanObject calls fn with each member of the JSON object raw, in order:
// its key (unescaped) and its value's bytes (a slice of raw, not decoded
// or copied). raw is checked to be JSON as ParseResult checks its input,
// as far as the scan goes: fn may have been called with the members
// before one that is not. An error of fn stops the scan and is returned.
func ScanObject(raw []byte, fn func(key string, value []byte) error) error {
	s := &resultScanner{data: raw}
	if err := s.object(fn, nil); err != nil {
		return err
	}
	return s.end()
}

// ScanArray calls fn with the bytes of each element of the JSON array raw
// (slices of raw), in order; raw is checked as for ScanObject.
func ScanArray(raw []byte, fn func(elem []byte) error) error {
	s := &resultScanner{data: raw, depth: 1}
	s.space()
	if !s.consume('[') {
		return errors.New("not a JSON array")
	}
	s.space()
	if s.consume(']') {
		return s.end()
	}
	for {
		s.space()
		start := s.pos
		if err := s.skipValue(); err != nil {
			return err
		}
		if err := fn(s.data[start:s.pos:s.pos]); err != nil {
			return err
		}
		s.space()
		if s.consume(']') {
			return s.end()
		}
		if !s.consume(',') {
			return errors.New("not valid JSON")
		}
	}
}

// object walks the object at the scanner's position. For each member,
// read (when set) may read the value itself and report that it did;
// otherwise the value is skipped and handed to fn.
func (s *resultScanner) object(fn func(key string, value []byte) error, read func(key string) (bool, error)) error {
	s.space()
	if !s.consume('{') {
		return errors.New("not a JSON object")
	}
	s.depth++
	defer func() { s.depth-- }()
	s.space()
	if s.consume('}') {
		return nil
	}
	for {
		s.space()
		key, err := s.key()
		if err != nil {
			return err
		}
		s.space()
		if !s.consume(':') {
			return errors.New("not valid JSON")
		}
		s.space()
		done := false
		if read != nil {
			if done, err = read(key); err != nil {
				return err
			}
		}
		if !done {
			start := s.pos
			if err := s.skipValue(); err != nil {
				return err
			}
			if err := fn(key, s.data[start:s.pos:s.pos]); err != nil {
				return err
			}
		}
		s.space()
		if s.consume('}') {
			return nil
		}
		if !s.consume(',') {
			return errors.New("not valid JSON")
		}
	}
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// resultScanner skips over JSON values without decoding them, checking
// their syntax as it goes (the bytes come from a server's line that
// nothing checked before).
type resultScanner struct {
	data  []byte
	pos   int
	depth int // of the value being skipped
}

func (s *resultScanner) space() {
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *resultScanner) consume(c byte) bool {
	if s.pos < len(s.data) && s.data[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

// key reads an object key (escapes decoded, which real keys rarely need).
func (s *resultScanner) key() (string, error) {
	start := s.pos
	escaped, err := s.skipString()
	if err != nil {
		return "", err
	}
	raw := s.data[start+1 : s.pos-1]
	if !escaped {
		return string(raw), nil
	}
	var k string
	if err := json.Unmarshal(s.data[start:s.pos], &k); err != nil {
		return "", errors.New("not valid JSON")
	}
	return k, nil
}

// maxDepth bounds how deeply a value may nest: encoding/json's bound, past
// which it reports a syntax error too.
const maxDepth = 10000

var errInvalid = errors.New("not valid JSON")

// skipString moves past a string literal, checking it as encoding/json
// does (no control characters, only JSON's escapes; other bytes, valid
// UTF-8 or not, pass), and reports whether it had escapes.
func (s *resultScanner) skipString() (bool, error) {
	if !s.consume('"') {
		return false, errInvalid
	}
	d := s.data
	i := s.pos
	escaped := false
	for {
		for i < len(d) && plain[d[i]] {
			i++
		}
		if i >= len(d) {
			return false, errors.New("not valid JSON: a string does not end")
		}
		switch c := d[i]; {
		case c == '"':
			s.pos = i + 1
			return escaped, nil
		case c == '\\':
			escaped = true
			if i+1 >= len(d) {
				return false, errors.New("not valid JSON: a string does not end")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) || !isHex(d[i+2]) || !isHex(d[i+3]) || !isHex(d[i+4]) || !isHex(d[i+5]) {
					return false, errors.New("not valid JSON: an invalid \\u escape")
				}
				i += 6
			default:
				return false, errors.New("not valid JSON: an invalid escape")
			}
		case c < 0x20:
			return false, errors.New("not valid JSON: a control character in a string")
		default:
			i++
		}
	}
}

// plain marks the bytes a string's scan passes over: all but a quote, a
// backslash and those below 0x20.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// skipValue moves past one value, checking it as encoding/json does: its
// structure, strings (skipString), numbers and literals, and a nesting of
// at most maxDepth.
func (s *resultScanner) skipValue() error {
	if s.pos >= len(s.data) {
		return errInvalid
	}
	switch c := s.data[s.pos]; {
	case c == '"':
		_, err := s.skipString()
		return err
	case c == '{' || c == '[':
		s.depth++
		if s.depth > maxDepth {
			return fmt.Errorf("not valid JSON: it nests more than %d levels deep", maxDepth)
		}
		var err error
		if c == '{' {
			err = s.skipObject()
		} else {
			err = s.skipArray()
		}
		s.depth--
		return err
	case c == '-' || '0' <= c && c <= '9':
		return s.skipNumber()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return errInvalid
}

func (s *resultScanner) literal(word string) error {
	if !bytes.HasPrefix(s.data[s.pos:], []byte(word)) {
		return errInvalid
	}
	s.pos += len(word)
	return nil
}

// skipObject moves past an object, at its '{'.
func (s *resultScanner) skipObject() error {
	s.pos++
	s.space()
	if s.consume('}') {
		return nil
	}
	for {
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return errInvalid
		}
		if _, err := s.skipString(); err != nil {
			return err
		}
		s.space()
		if !s.consume(':') {
			return errInvalid
		}
		s.space()
		if err := s.skipValue(); err != nil {
			return err
		}
		s.space()
		if s.consume('}') {
			return nil
		}
		if !s.consume(',') {
			return errInvalid
		}
		s.space()
	}
}

// skipArray moves past an array, at its '['.
func (s *resultScanner) skipArray() error {
	s.pos++
	s.space()
	if s.consume(']') {
		return nil
	}
	for {
		if err := s.skipValue(); err != nil {
			return err
		}
		s.space()
		if s.consume(']') {
			return nil
		}
		if !s.consume(',') {
			return errInvalid
		}
		s.space()
	}
}

// skipNumber moves past a number as JSON's grammar has it.
func (s *resultScanner) skipNumber() error {
	d, i := s.data, s.pos
	digits := func() bool {
		start := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return errInvalid
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return errInvalid
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return errInvalid
		}
	}
	s.pos = i
	return nil
}
