package argcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	// The validator this package replaced, kept as the reference the
	// differential test compares with. Test-only: it is not linked into
	// mcpcode, whose start-up its package init slowed.
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// referenceCompile compiles raw as the package did before it had its own
// validator: 2020-12 first, then draft-07; nil when uncompilable. Like this
// package, it does not require a property that has a default (the one
// deliberate difference from the JSON Schema specification).
func referenceCompile(t testing.TB, raw []byte) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	dropDefaultedRequired(doc)
	for _, draft := range []*jsonschema.Draft{jsonschema.Draft2020, jsonschema.Draft7} {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(draft)
		c.UseLoader(refusing{})
		c.UseRegexpEngine(func(s string) (jsonschema.Regexp, error) { return lenientRegexp(s), nil })
		for _, name := range []string{"json-pointer", "relative-json-pointer", "uuid", "duration", "period", "ipv4", "ipv6",
			"hostname", "email", "idn-email", "idn-hostname", "date", "time", "date-time", "uri", "iri",
			"uri-reference", "iri-reference", "uri-template", "semver"} {
			c.RegisterFormat(&jsonschema.Format{Name: name, Validate: func(any) error { return nil }})
		}
		if err := c.AddResource("mcpcode:///input-schema.json", doc); err != nil {
			return nil
		}
		if s, err := c.Compile("mcpcode:///input-schema.json"); err == nil {
			return s
		}
	}
	return nil
}

// dropDefaultedRequired removes, in every object schema of doc, the
// required names whose property schema has a default.
func dropDefaultedRequired(doc any) {
	switch v := doc.(type) {
	case map[string]any:
		if req, ok := v["required"].([]any); ok {
			names := make([]string, 0, len(req))
			for _, r := range req {
				if s, ok := r.(string); ok {
					names = append(names, s)
				}
			}
			if len(names) == len(req) {
				kept := withoutDefaults(names, v["properties"])
				out := make([]any, len(kept))
				for i, k := range kept {
					out[i] = k
				}
				v["required"] = out
			}
		}
		for _, sub := range v {
			dropDefaultedRequired(sub)
		}
	case []any:
		for _, sub := range v {
			dropDefaultedRequired(sub)
		}
	}
}

type refusing struct{}

func (refusing) Load(url string) (any, error) { return nil, fmt.Errorf("no loading: %s", url) }

// differentialSchemas are the input schemas of the captured real servers,
// the generator's schema cases and schemas written for keywords the others
// lack.
func differentialSchemas(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	files, _ := filepath.Glob("../../../generator/testdata/corpus/*.json")
	more, _ := filepath.Glob("../../../generator/testdata/schemas/*.json")
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("no schema files found")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		if err := json.Unmarshal(data, &tools); err != nil {
			var one struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			}
			if json.Unmarshal(data, &one) != nil {
				continue
			}
			tools = append(tools, one)
		}
		for _, tool := range tools {
			if len(tool.InputSchema) > 0 {
				out[filepath.Base(f)+":"+tool.Name] = tool.InputSchema
			}
		}
	}
	for i, s := range keywordSchemas {
		out[fmt.Sprintf("keywords:%d", i)] = []byte(s)
	}
	return out
}

// keywordSchemas exercise keywords the real schemas rarely use.
var keywordSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"integer","minimum":1,"maximum":5,"multipleOf":2}},"required":["a"]}`,
	`{"type":"object","properties":{"n":{"exclusiveMinimum":0,"exclusiveMaximum":10}}}`,
	`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"number","minimum":0,"exclusiveMinimum":true}}}`,
	`{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":4,"pattern":"^[a-z]+$"}}}`,
	`{"type":"object","properties":{"l":{"type":"array","minItems":1,"maxItems":3,"uniqueItems":true,"items":{"type":["string","number"]}}}}`,
	`{"type":"object","properties":{"t":{"type":"array","prefixItems":[{"type":"string"},{"type":"integer"}],"items":false}}}`,
	`{"type":"object","properties":{"t":{"type":"array","items":[{"type":"string"},{"type":"integer"}],"additionalItems":false}}}`,
	`{"type":"object","properties":{"c":{"type":"array","contains":{"const":1},"minContains":2,"maxContains":3}}}`,
	`{"type":"object","minProperties":1,"maxProperties":2,"propertyNames":{"pattern":"^[a-z]"}}`,
	`{"type":"object","dependentRequired":{"a":["b"]},"dependentSchemas":{"c":{"required":["d"]}}}`,
	`{"type":"object","dependencies":{"a":["b"],"c":{"properties":{"d":{"type":"string"}}}}}`,
	`{"type":"object","properties":{"x":{"not":{"type":"string"}}}}`,
	`{"type":"object","if":{"properties":{"k":{"const":"a"}}},"then":{"required":["a"]},"else":{"required":["b"]}}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"properties":{"b":{"type":"integer"}}}],"unevaluatedProperties":false}`,
	`{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}]}`,
	`{"type":"object","anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"a":{"type":"number"}}}],"unevaluatedProperties":{"type":"boolean"}}`,
	`{"$defs":{"node":{"type":"object","properties":{"v":{"type":"integer"},"next":{"$ref":"#/$defs/node"}}}},"$ref":"#/$defs/node"}`,
	`{"definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/definitions/s","minLength":3}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"type":"object","properties":{"a":{"$ref":"#/definitions/s","minLength":3}}}`,
	`{"type":"object","patternProperties":{"^x-":{"type":"string"}},"additionalProperties":{"type":"integer"}}`,
	`{"type":"object","properties":{"e":{"enum":[1,"1",null,[1,2],{"a":1}]},"k":{"const":{"a":[1,2.0]}}}}`,
	`{"type":"object","properties":{"a":{"$anchor":"A","type":"string"},"b":{"$ref":"#A"}}}`,
	`{"type":"array","items":{"type":"object"},"unevaluatedItems":false,"prefixItems":[{"type":"string"}]}`,
	`{"type":"object","required":"x"}`,
	`{"type":"object","properties":{"x":{"$ref":"https://example.com/remote.json"}}}`,
	`{"type":"object","properties":{"x":{"multipleOf":0}}}`,
	`{"type":"object","properties":{"x":{"type":"strin"}}}`,
	`{"type":"object","properties":{"x":{"minLength":-1}}}`,
	`{"$ref":"#"}`,
}

// TestAgainstReference compares the package's validator with the library
// it replaced, on every schema above and instances generated from each
// (valid ones, and ones broken in random places): both must agree on
// whether the schema can be used and on whether each instance is valid.
func TestAgainstReference(t *testing.T) {
	t.Parallel()
	schemas := differentialSchemas(t)
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	perSchema := 300
	if testing.Short() {
		perSchema = 30
	}
	instances, compiled, invalid := 0, 0, 0
	for _, name := range names {
		raw := schemas[name]
		ref := referenceCompile(t, raw)
		mine := Compile(raw)
		if (ref == nil) != (mine.compiled == nil) {
			t.Errorf("%s: reference compiles: %v, this package: %v\n%s", name, ref != nil, mine.compiled != nil, raw)
			continue
		}
		if ref == nil {
			continue
		}
		compiled++
		rng := rand.New(rand.NewPCG(uint64(len(name)), uint64(len(raw))))
		g := &instanceGen{rng: rng, doc: mine.doc}
		for i := 0; i < perSchema; i++ {
			g.mutate = i%3 != 0
			inst := g.value(mine.doc, 0)
			text, err := json.Marshal(inst)
			if err != nil {
				t.Fatal(err)
			}
			refInst, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
			if err != nil {
				t.Fatal(err)
			}
			refOK := ref.Validate(refInst) == nil
			if !refOK {
				invalid++
			}
			myInst, _ := decodeJSON(text)
			myErr, _ := (&validator{}).check(mine.compiled, myInst, nil, nil)
			if refOK != (myErr == nil) {
				t.Errorf("%s: instance %s: reference valid: %v, this package: %v (%q)", name, text, refOK, myErr == nil, mine.Problems(text))
			}
			instances++
		}
	}
	t.Logf("%d schemas, %d compiled, %d instances compared, %d of them invalid", len(names), compiled, instances, invalid)
	if instances > 0 && (invalid < instances/10 || invalid > instances*9/10) {
		t.Errorf("%d of %d instances invalid: the generator no longer makes both kinds", invalid, instances)
	}
}

// instanceGen makes instances that mostly follow a schema; with mutate set
// it breaks them now and then.
type instanceGen struct {
	rng    *rand.Rand
	doc    any
	mutate bool
}

func (g *instanceGen) chance(p float64) bool { return g.mutate && g.rng.Float64() < p }

func (g *instanceGen) random(depth int) any {
	switch g.rng.IntN(8) {
	case 0:
		return nil
	case 1:
		return g.rng.IntN(2) == 0
	case 2:
		return json.Number(fmt.Sprint(g.rng.IntN(20) - 5))
	case 3:
		return json.Number(fmt.Sprintf("%.2f", g.rng.Float64()*10))
	case 4:
		return strings.Repeat("ab", g.rng.IntN(4))
	case 5:
		if depth > 3 {
			return "x"
		}
		return []any{g.random(depth + 1), g.random(depth + 1)}
	case 6:
		if depth > 3 {
			return "y"
		}
		return map[string]any{"a": g.random(depth + 1)}
	}
	return "Status"
}

func (g *instanceGen) value(s any, depth int) any {
	if depth > 6 {
		return nil
	}
	if g.chance(0.08) {
		return g.random(depth)
	}
	m, ok := s.(map[string]any)
	if !ok {
		return g.random(depth)
	}
	if ref, ok := m["$ref"].(string); ok && strings.HasPrefix(ref, "#") {
		if target, ok := lookupPointer(g.doc, strings.TrimPrefix(ref, "#")); ok && g.rng.IntN(2) == 0 {
			return g.value(target, depth+1)
		}
	}
	if c, ok := m["const"]; ok && !g.chance(0.3) {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 && !g.chance(0.3) {
		return e[g.rng.IntN(len(e))]
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if alts, ok := m[kw].([]any); ok && len(alts) > 0 && g.rng.IntN(2) == 0 {
			return g.value(alts[g.rng.IntN(len(alts))], depth+1)
		}
	}
	typ := ""
	switch t := m["type"].(type) {
	case string:
		typ = t
	case []any:
		if len(t) > 0 {
			typ, _ = t[g.rng.IntN(len(t))].(string)
		}
	}
	if typ == "" {
		switch {
		case m["properties"] != nil:
			typ = "object"
		case m["items"] != nil || m["prefixItems"] != nil:
			typ = "array"
		default:
			return g.random(depth)
		}
	}
	switch typ {
	case "object":
		obj := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		req := map[string]bool{}
		if r, ok := m["required"].([]any); ok {
			for _, x := range r {
				if s, ok := x.(string); ok {
					req[s] = true
				}
			}
		}
		for name, ps := range props {
			if (req[name] && !g.chance(0.1)) || g.rng.IntN(3) == 0 {
				key := name
				if g.chance(0.05) && len(name) > 3 {
					key = name[:len(name)-1]
				}
				obj[key] = g.value(ps, depth+1)
			}
		}
		if g.chance(0.1) {
			obj["extra"] = g.random(depth + 1)
		}
		return obj
	case "array":
		n := g.rng.IntN(4)
		for _, kw := range []string{"minItems", "maxItems"} {
			if b, ok := m[kw].(json.Number); ok && g.rng.IntN(2) == 0 {
				l, _ := b.Int64()
				n = int(max(l+int64(g.rng.IntN(3)-1), 0))
			}
		}
		if p, ok := m["prefixItems"].([]any); ok && g.rng.IntN(2) == 0 {
			n = len(p) + g.rng.IntN(2)
		} else if p, ok := m["items"].([]any); ok && g.rng.IntN(2) == 0 {
			n = len(p) + g.rng.IntN(2)
		}
		arr := make([]any, 0, n)
		var prefix []any
		if p, ok := m["prefixItems"].([]any); ok {
			prefix = p
		} else if p, ok := m["items"].([]any); ok {
			prefix = p
		}
		for i := 0; i < n; i++ {
			var sch any = true
			if i < len(prefix) {
				sch = prefix[i]
			} else if it, ok := m["items"]; ok {
				if _, isArr := it.([]any); !isArr {
					sch = it
				}
			}
			arr = append(arr, g.value(sch, depth+1))
		}
		return arr
	case "string":
		if g.chance(0.2) {
			return ""
		}
		for _, kw := range []string{"minLength", "maxLength"} {
			if n, ok := m[kw].(json.Number); ok && g.rng.IntN(2) == 0 {
				l, _ := n.Int64()
				l += int64(g.rng.IntN(3) - 1)
				return strings.Repeat("é", int(max(l, 0)))
			}
		}
		return strings.Repeat("abc", 1+g.rng.IntN(3))
	case "integer", "number":
		// Near a bound half of the time: on it, or one step either side.
		var bounds []json.Number
		for _, kw := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
			if n, ok := m[kw].(json.Number); ok {
				bounds = append(bounds, n)
			}
		}
		if len(bounds) > 0 && g.rng.IntN(2) == 0 {
			b, _ := bounds[g.rng.IntN(len(bounds))].Float64()
			steps := []float64{-1, -0.5, 0, 0.5, 1, 2 * b, 3 * b}
			if typ == "integer" {
				steps = []float64{-1, 0, 1, 2 * b, 3 * b}
			}
			x := b + steps[g.rng.IntN(len(steps))]
			if typ == "integer" || g.rng.IntN(2) == 0 {
				return json.Number(fmt.Sprint(int64(x)))
			}
			return json.Number(fmt.Sprint(x))
		}
		if typ == "integer" || g.rng.IntN(2) == 0 {
			if g.rng.IntN(5) == 0 {
				return json.Number(fmt.Sprintf("%d.0", g.rng.IntN(200)-50))
			}
			return json.Number(fmt.Sprint(g.rng.IntN(200) - 50))
		}
		return json.Number(fmt.Sprintf("%.3f", g.rng.Float64()*100-20))
	case "boolean":
		return g.rng.IntN(2) == 0
	case "null":
		return nil
	}
	return g.random(depth)
}

// TestKeywords pins each keyword's boundaries: the expected validity, which
// the reference library must share.
func TestKeywords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		schema string
		valid  []string
		broken []string
	}{
		{`{"minimum":1}`, []string{`1`, `1.5`, `"x"`}, []string{`0.99`, `0`}},
		{`{"maximum":1}`, []string{`1`, `-3`}, []string{`1.01`}},
		{`{"exclusiveMinimum":1}`, []string{`1.001`}, []string{`1`, `0`}},
		{`{"exclusiveMaximum":1}`, []string{`0.999`}, []string{`1`, `2`}},
		{`{"$schema":"http://json-schema.org/draft-04/schema#","minimum":1,"exclusiveMinimum":true}`, []string{`1.5`}, []string{`1`}},
		{`{"multipleOf":0.5}`, []string{`1`, `1.5`, `0`}, []string{`1.25`}},
		{`{"multipleOf":3}`, []string{`9`, `9.0`}, []string{`10`}},
		{`{"type":"integer"}`, []string{`1`, `1.0`, `1e2`}, []string{`1.5`, `"1"`}},
		{`{"minLength":2,"maxLength":3}`, []string{`"éé"`, `"abc"`, `1`}, []string{`"é"`, `"abcd"`}},
		{`{"pattern":"^a"}`, []string{`"ab"`}, []string{`"ba"`}},
		{`{"minItems":1,"maxItems":2}`, []string{`[1]`, `[1,2]`}, []string{`[]`, `[1,2,3]`}},
		{`{"uniqueItems":true}`, []string{`[1,2]`, `[{"a":1},{"a":2}]`}, []string{`[1,1.0]`, `[{"a":1,"b":2},{"b":2,"a":1}]`}},
		{`{"items":[{"type":"string"}],"additionalItems":false}`, []string{`["a"]`, `[]`}, []string{`["a",1]`, `[1]`}},
		{`{"prefixItems":[{"type":"string"}],"items":false}`, []string{`["a"]`}, []string{`["a",1]`}},
		{`{"prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`, []string{`["a",1,2]`}, []string{`["a","b"]`}},
		{`{"contains":{"const":1}}`, []string{`[0,1]`}, []string{`[0,2]`, `[]`}},
		{`{"contains":{"const":1},"minContains":2,"maxContains":2}`, []string{`[1,1,0]`}, []string{`[1,0]`, `[1,1,1]`}},
		{`{"const":{"a":[1,2]}}`, []string{`{"a":[1,2.0]}`}, []string{`{"a":[2,1]}`}},
		{`{"enum":[1,"1",null]}`, []string{`1.0`, `"1"`, `null`}, []string{`2`, `false`}},
		{`{"required":["a"],"properties":{"a":{"type":"string"}}}`, []string{`{"a":"x"}`, `[]`}, []string{`{}`, `{"a":1}`}},
		{`{"additionalProperties":false,"properties":{"a":{}},"patternProperties":{"^x":{}}}`, []string{`{"a":1,"xy":2}`}, []string{`{"b":1}`}},
		{`{"additionalProperties":{"type":"integer"},"properties":{"a":{}}}`, []string{`{"a":"s","b":1}`}, []string{`{"b":"s"}`}},
		{`{"minProperties":1,"maxProperties":1}`, []string{`{"a":1}`}, []string{`{}`, `{"a":1,"b":2}`}},
		{`{"propertyNames":{"maxLength":2}}`, []string{`{"ab":1}`}, []string{`{"abc":1}`}},
		{`{"dependentRequired":{"a":["b"]}}`, []string{`{"b":1}`, `{"a":1,"b":2}`}, []string{`{"a":1}`}},
		{`{"dependentSchemas":{"a":{"required":["b"]}}}`, []string{`{"a":1,"b":2}`}, []string{`{"a":1}`}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","dependencies":{"a":["b"],"c":{"required":["d"]}}}`, []string{`{"a":1,"b":1}`, `{"c":1,"d":1}`}, []string{`{"a":1}`, `{"c":1}`}},
		{`{"not":{"type":"string"}}`, []string{`1`}, []string{`"s"`}},
		{`{"allOf":[{"minimum":1},{"maximum":2}]}`, []string{`1.5`}, []string{`3`, `0`}},
		{`{"anyOf":[{"type":"string"},{"minimum":5}]}`, []string{`"s"`, `6`}, []string{`4`}},
		{`{"oneOf":[{"type":"integer"},{"minimum":5}]}`, []string{`1`, `5.5`}, []string{`6`, `2.5`}},
		{`{"if":{"minimum":5},"then":{"multipleOf":2},"else":{"multipleOf":3}}`, []string{`6`, `3`}, []string{`7`, `4`}},
		{`{"properties":{"a":{}},"allOf":[{"properties":{"b":{}}}],"unevaluatedProperties":false}`, []string{`{"a":1,"b":2}`}, []string{`{"c":1}`}},
		{`{"anyOf":[{"properties":{"a":{"type":"string"}}},{"properties":{"b":{}}}],"unevaluatedProperties":false}`, []string{`{"a":"s","b":1}`}, []string{`{"a":1}`, `{"c":1}`}},
		{`{"if":{"properties":{"a":{"const":1}}},"unevaluatedProperties":false}`, []string{`{"a":1}`}, []string{`{"a":2}`}},
		{`{"prefixItems":[{}],"unevaluatedItems":false}`, []string{`[1]`}, []string{`[1,2]`}},
		{`{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s","minLength":2}}}`, []string{`{"a":"ab"}`}, []string{`{"a":"a"}`, `{"a":1}`}},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/s","minLength":2}}}`, []string{`{"a":"a"}`}, []string{`{"a":1}`}},
		{`{"properties":{"a":{"$anchor":"A","type":"string"},"b":{"$ref":"#A"}}}`, []string{`{"b":"s"}`}, []string{`{"b":1}`}},
		{`{"properties":{"a~b/c":{"type":"string"},"r":{"$ref":"#/properties/a~0b~1c"}}}`, []string{`{"r":"s"}`}, []string{`{"r":1}`}},
		{`{"$ref":"#"}`, nil, []string{`1`}},
		{`{"allOf":[{"$ref":"#"}]}`, nil, []string{`{}`}},
		{`false`, nil, []string{`{}`}},
		{`{"properties":{"x":false}}`, []string{`{}`}, []string{`{"x":1}`}},
	}
	for _, tt := range tests {
		ref := referenceCompile(t, []byte(tt.schema))
		mine := Compile(json.RawMessage(tt.schema))
		if ref == nil || mine.compiled == nil {
			t.Errorf("%s: compiles: reference %v, this package %v", tt.schema, ref != nil, mine.compiled != nil)
			continue
		}
		for _, want := range []bool{true, false} {
			cases := tt.valid
			if !want {
				cases = tt.broken
			}
			for _, inst := range cases {
				v, _ := jsonschema.UnmarshalJSON(strings.NewReader(inst))
				if got := ref.Validate(v) == nil; got != want {
					t.Errorf("%s on %s: the reference says valid=%v, the table %v", tt.schema, inst, got, want)
				}
				d, err := decodeJSON([]byte(inst))
				if err != nil {
					t.Fatal(err)
				}
				e, _ := (&validator{}).check(mine.compiled, d, nil, nil)
				if got := e == nil; got != want {
					t.Errorf("%s on %s: valid=%v, want %v", tt.schema, inst, got, want)
				}
				if problems := mine.Problems(json.RawMessage(inst)); len(problems) > 0 == want && (typeOf(d) == "object") {
					t.Errorf("%s on %s: problems %q", tt.schema, inst, problems)
				}
			}
		}
	}
}

// BenchmarkCompileAndCheck compiles a real tool's input schema and checks
// one call's arguments, as the first call of a tool in a run does: with
// this package's validator and with the library it replaced (whose
// package init, not measured here, cost every process 3.5 to 6 ms).
func BenchmarkCompileAndCheck(b *testing.B) {
	raw := json.RawMessage(sheetSchema)
	args := json.RawMessage(`{"sheetId":"s","limit":5,"rows":[{"status":"x"}]}`)
	b.Run("mcpcode", func(b *testing.B) {
		for b.Loop() {
			if p := Compile(raw).Problems(args); len(p) != 0 {
				b.Fatal(p)
			}
		}
	})
	b.Run("reference", func(b *testing.B) {
		for b.Loop() {
			s := referenceCompile(b, raw)
			v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(args))
			if err := s.Validate(v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
