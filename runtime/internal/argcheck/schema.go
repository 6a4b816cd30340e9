// Package argcheck checks a tool call's arguments against the tool's input
// schema before anything is sent, and words what is wrong the way a person
// fixing the call needs it: one "path: message" per problem, with "did you
// mean" suggestions for misspelled property and tool names.
//
// It never loads anything from the network or disk, and a schema it cannot
// compile checks nothing: a sloppy server schema never blocks calls.
package argcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"slices"
	"sort"
	"strings"
)

// Schema is a compiled input schema. A schema that cannot be compiled
// checks nothing: a sloppy server schema never blocks calls. Nothing is ever
// loaded from the network or disk: $refs that point outside the schema make
// it uncompilable. A Schema is safe for concurrent use.
type Schema struct {
	compiled *node
	doc      any
}

// Compile compiles raw as JSON Schema: 2020-12 unless its $schema names an
// older draft (draft-04, -06 and -07 are understood; items as an array is
// a tuple in any draft). It never fails: an empty, invalid or uncompilable
// schema gives a Schema that accepts everything.
func Compile(raw json.RawMessage) *Schema {
	s := &Schema{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return s
	}
	doc, err := decodeJSON(raw)
	if err != nil {
		return s
	}
	s.doc = doc
	if n, err := compileDoc(doc); err == nil {
		s.compiled = n
	}
	return s
}

// decodeJSON decodes one JSON value, numbers as json.Number; trailing data
// is an error.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

// Problems lists what is wrong with args, one "path: message" per problem
// (the path a JSON pointer into args, "/" for the whole), sorted by path;
// none when args are fine or the schema checks nothing. args should be a
// JSON object; text that is not JSON is one problem at "/".
func (s *Schema) Problems(args json.RawMessage) []string {
	if s.compiled == nil {
		return nil // an unusable schema checks nothing, not even typos
	}
	inst, err := decodeJSON(args)
	if err != nil {
		return []string{"/: arguments are not valid JSON"}
	}
	seen := map[string]bool{}
	var out []problem
	add := func(p problem) {
		key := p.path + "\x00" + p.msg
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	typos := map[string]bool{}
	if root, ok := s.doc.(map[string]any); ok {
		w := typoWalker{root: root, add: func(p problem) { typos[p.path] = true; add(p) }}
		w.walk(root, inst, nil, 0)
	}
	if ve, _ := (&validator{}).check(s.compiled, inst, nil, nil); ve != nil {
		for _, p := range flattenValidation(ve) {
			if typos[p.path] && strings.HasPrefix(p.msg, "unknown property") {
				continue
			}
			add(p)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].path < out[j].path })
	lines := make([]string, len(out))
	for i, p := range out {
		lines[i] = p.path + ": " + p.msg
	}
	return lines
}

type problem struct{ path, msg string }

func pointer(loc []string) string {
	if len(loc) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, s := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

func child(loc []string, name string) []string {
	return append(slices.Clip(loc), name)
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func ratText(r *big.Rat) string {
	if r == nil {
		return "?"
	}
	if r.IsInt() {
		return r.Num().String()
	}
	f, _ := r.Float64()
	return fmt.Sprint(f)
}
