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
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is a compiled input schema. A schema that cannot be compiled
// checks nothing: a sloppy server schema never blocks calls. Nothing is ever
// loaded from the network or disk: $refs that point outside the schema make
// it uncompilable. A Schema is safe for concurrent use.
type Schema struct {
	compiled *jsonschema.Schema
	doc      any
}

const inputSchemaURL = "mcpcode:///input-schema.json"

// Compile compiles raw, first as JSON Schema 2020-12 unless it says
// otherwise, then as draft-07 (which allows tuple-style items). It never
// fails: an empty, invalid or uncompilable schema gives a Schema that
// accepts everything.
func Compile(raw json.RawMessage) *Schema {
	s := &Schema{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return s
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return s
	}
	s.doc = doc
	for _, draft := range []*jsonschema.Draft{jsonschema.Draft2020, jsonschema.Draft7} {
		c := newSchemaCompiler(draft)
		if err := c.AddResource(inputSchemaURL, doc); err != nil {
			return s
		}
		if sch, err := c.Compile(inputSchemaURL); err == nil {
			s.compiled = sch
			return s
		}
	}
	return s
}

// newSchemaCompiler is a compiler that loads nothing, asserts no formats
// (servers know their formats better than a generic checker) and accepts
// any regular expression (ECMAScript patterns Go cannot compile match
// everything rather than failing the schema).
func newSchemaCompiler(draft *jsonschema.Draft) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(draft)
	c.UseLoader(refusingLoader{})
	c.UseRegexpEngine(lenientRegexp)
	for _, name := range []string{
		"json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
		"hostname", "email", "idn-email", "idn-hostname", "date", "time", "date-time", "uri", "iri",
		"uri-reference", "iri-reference", "uri-template", "semver",
	} {
		c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
	}
	return c
}

type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, errors.New("mcpcode never loads schemas: " + url)
}

type anyRegexp struct{ re *regexp.Regexp }

func (r anyRegexp) MatchString(s string) bool { return r.re == nil || r.re.MatchString(s) }
func (r anyRegexp) String() string {
	if r.re == nil {
		return ""
	}
	return r.re.String()
}

func lenientRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp.Compile(s)
	if err != nil {
		return anyRegexp{}, nil
	}
	return anyRegexp{re}, nil
}

// Problems lists what is wrong with args, one "path: message" per problem
// (the path a JSON pointer into args, "/" for the whole), sorted by path;
// none when args are fine or the schema checks nothing. args should be a
// JSON object; text that is not JSON is one problem at "/".
func (s *Schema) Problems(args json.RawMessage) []string {
	if s.compiled == nil {
		return nil // an unusable schema checks nothing, not even typos
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
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
	var ve *jsonschema.ValidationError
	if err := s.compiled.Validate(inst); errors.As(err, &ve) {
		for _, p := range flattenValidation(ve, s.doc) {
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
