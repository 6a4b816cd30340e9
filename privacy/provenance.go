package privacy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
)

// Flow rules by provenance. A token in a tool call's arguments stands for
// a value mcpcode itself puts there (detokenize): the value's source is
// known, wherever the token is (inside a longer string such as
// "[NAME_1]-team" or "Mr[NAME_1]", in an array, an object key, a JSON text
// inside a string, a key repeated in the same object), so the flow rules
// are applied to the sources of every token the arguments hold, before
// anything is replaced. Detecting values in the arguments (checkFlows)
// still covers the values a program got without a token; it cannot
// recognise a value glued to other characters, which is why tokens are
// not left to it.

// checkTokenFlows refuses arguments holding a token whose value came from
// a server whose rules do not allow sending it to server.
func (s *Session) checkTokenFlows(server, tool string, args json.RawMessage) error {
	if !s.cfg.Tokenize || len(s.allow) == 0 || !bytes.Contains(args, []byte("_")) {
		return nil
	}
	var err error
	walkErr := eachString(args, func(path, str string) bool {
		for _, sp := range s.findTokens(str) {
			e, ok, lerr := s.store.lookupToken(str[sp[0]:sp[1]])
			if lerr != nil || !ok {
				continue // detokenize refuses it, saying why
			}
			from := s.origins(e.Key)
			for _, f := range e.From {
				if !contains(from, f) {
					from = append(from, f)
				}
			}
			for _, f := range from {
				if f == server {
					continue
				}
				if allowed, restricted := s.allow[f]; restricted && !allowed[server] {
					err = s.flowError(server, tool, path, sp[0] == 0 && sp[1] == len(str), e.Kind, f)
					return false
				}
			}
		}
		return true
	})
	if err == nil && walkErr != nil {
		return nil // not JSON: nothing is detokenized either
	}
	return err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// eachString calls fn with every string of the JSON text raw, object keys
// included and every occurrence of a repeated key (as the bytes sent hold
// them), with its path ("data.to", "rows[3]", "data (an object key)" for a
// key of data); fn returns false to stop. It reports raw that is not JSON.
func eachString(raw []byte, fn func(path, s string) bool) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		array     bool
		index     int
		key       string
		expectKey bool
	}
	var stack []frame
	path := func(leaf string) string {
		var b []byte
		for _, f := range stack {
			switch {
			case f.array:
				b = append(b, '[')
				b = strconv.AppendInt(b, int64(f.index), 10)
				b = append(b, ']')
			case f.key != "":
				if len(b) > 0 {
					b = append(b, '.')
				}
				b = append(b, f.key...)
			}
		}
		if leaf != "" {
			if len(b) > 0 {
				b = append(b, '.')
			}
			b = append(b, leaf...)
		}
		return string(b)
	}
	// next moves past a value in the innermost container.
	next := func() {
		if n := len(stack); n > 0 {
			if stack[n-1].array {
				stack[n-1].index++
			} else {
				stack[n-1].expectKey = true
			}
		}
	}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, frame{expectKey: true})
			case '[':
				stack = append(stack, frame{array: true})
			default:
				stack = stack[:len(stack)-1]
				next()
			}
			continue
		case string:
			if n := len(stack); n > 0 && !stack[n-1].array && stack[n-1].expectKey {
				// A key's path names the object, not the key: the key may be
				// the very value a policy error must not show.
				stack[n-1].key, stack[n-1].expectKey = "", false
				p := path("") + " (an object key)"
				if p == " (an object key)" {
					p = "(an object key)"
				}
				stack[n-1].key = t
				if !fn(p, t) {
					return nil
				}
				continue
			}
			if !fn(path(""), t) {
				return nil
			}
		}
		next()
	}
}
