package mcptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ParseResult reads the fields of a tools/call result that mcpcode acts on
// (content, structuredContent, isError) in one pass over raw, which must
// be valid JSON (as a result is once the JSON-RPC message holding it has
// been decoded). Content and StructuredContent are slices of raw, not
// copies: a 10,000-row result is scanned once and never copied here.
// Content that is absent or null becomes [], structured content that is
// null is nil, and a repeated key counts with its last value, as
// encoding/json decodes them (keys matched case-insensitively, as it
// does). The error says why raw is not a result (not
// an object, isError not a boolean).
func ParseResult(raw []byte) (*Result, error) {
	s := &resultScanner{data: raw}
	return s.result()
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
// id or result. line must be valid JSON, as ParseResult's input.
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
	if err != nil || other || id == nil || res == nil {
		return nil, nil, false, err
	}
	return id, res, true, nil
}

// ScanObject calls fn with each member of the JSON object raw, in order:
// its key (unescaped) and its value's bytes (a slice of raw, not decoded
// or copied). raw must be valid JSON: values are skipped by their
// structure (strings, nesting), not checked. An error of fn stops the
// scan and is returned.
func ScanObject(raw []byte, fn func(key string, value []byte) error) error {
	s := &resultScanner{data: raw}
	return s.object(fn, nil)
}

// ScanArray calls fn with the bytes of each element of the JSON array raw
// (slices of raw), in order; raw must be valid JSON, as for ScanObject.
func ScanArray(raw []byte, fn func(elem []byte) error) error {
	s := &resultScanner{data: raw}
	s.space()
	if !s.consume('[') {
		return errors.New("not a JSON array")
	}
	s.space()
	if s.consume(']') {
		return nil
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
			return nil
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

// resultScanner skips over JSON values without decoding them.
type resultScanner struct {
	data []byte
	pos  int
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

// skipString moves past a string literal and reports whether it had
// escapes. A string without escapes is skipped in one jump to its closing
// quote (bytes.IndexByte); one with escapes, byte by byte from there: the
// text copy of a table has an escaped quote every few bytes, and a jump
// per escape cost twice as long.
func (s *resultScanner) skipString() (bool, error) {
	if !s.consume('"') {
		return false, errors.New("not valid JSON")
	}
	rest := s.data[s.pos:]
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return false, errors.New("not valid JSON: a string does not end")
	}
	b := bytes.IndexByte(rest[:q], '\\')
	if b < 0 {
		s.pos += q + 1
		return false, nil
	}
	for i := b; i < len(rest); i++ {
		switch rest[i] {
		case '\\':
			i++ // the character it escapes
		case '"':
			s.pos += i + 1
			return true, nil
		}
	}
	return false, errors.New("not valid JSON: a string does not end")
}

// skipValue moves past one value: strings are skipped as strings (their
// brackets do not count), objects and arrays by their nesting.
func (s *resultScanner) skipValue() error {
	if s.pos >= len(s.data) {
		return errors.New("not valid JSON")
	}
	switch s.data[s.pos] {
	case '"':
		_, err := s.skipString()
		return err
	case '{', '[':
		depth := 0
		for s.pos < len(s.data) {
			switch s.data[s.pos] {
			case '"':
				if _, err := s.skipString(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					s.pos++
					return nil
				}
			}
			s.pos++
		}
		return errors.New("not valid JSON: an object or array does not end")
	}
	// A number or a literal: up to the next delimiter.
	start := s.pos
	for s.pos < len(s.data) {
		switch s.data[s.pos] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			if s.pos == start {
				return errors.New("not valid JSON")
			}
			return nil
		}
		s.pos++
	}
	return nil
}
