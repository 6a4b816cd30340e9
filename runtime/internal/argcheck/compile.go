package argcheck

import (
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// This file and validate.go are a JSON Schema validator of the keywords
// tool input schemas use (draft-04 to 2020-12): the package replaced
// santhosh-tekuri/jsonschema/v6, whose package init compiles every draft's
// meta-schema, 3.5 to 6 ms at the start of every mcpcode process (worker
// processes included), whether or not a tool is ever called. Compiling a
// schema here costs only that schema.
//
// What a schema says is checked as JSON Schema specifies, except that
// formats, content keywords and remote references assert nothing (a
// schema with a $ref outside itself checks nothing at all), and a keyword
// with a value of the wrong shape makes the schema uncompilable, as a
// meta-schema check would: such a schema checks nothing.

// errUncompilable marks a schema that checks nothing.
var errUncompilable = errors.New("uncompilable schema")

// node is one compiled (sub)schema.
type node struct {
	// always is the value of a boolean schema (true accepts everything,
	// false nothing); nil for an object schema.
	always *bool
	// refOnly: in drafts before 2019-09 a $ref replaces its siblings.
	refOnly bool
	ref     *node

	types    []string // as declared, in santhosh's order for messages
	typeSet  map[string]bool
	hasEnum  bool
	enum     []any
	hasConst bool
	constV   any

	props         map[string]*node
	declared      []string // sorted names of props
	patternProps  []patternProp
	additional    *node // nil: absent
	required      []string
	minProps      *int
	maxProps      *int
	depRequired   map[string][]string
	depSchemas    map[string]*node
	propertyNames *node
	unevalProps   *node

	items       *node   // every item (after prefix, if any)
	prefix      []*node // prefixItems, or items as an array (drafts before 2020-12)
	additionalI *node   // additionalItems, with a prefix from items as an array
	minItems    *int
	maxItems    *int
	unique      bool
	contains    *node
	minContains *int
	maxContains *int
	unevalItems *node

	minLength *int
	maxLength *int
	pattern   *anyRegexp

	minimum, maximum, exclMin, exclMax, multipleOf *big.Rat

	allOf, anyOf, oneOf []*node
	not, ifN, thenN     *node
	elseN               *node
}

type patternProp struct {
	re anyRegexp
	n  *node
}

// compiler compiles one document.
type compiler struct {
	root    any
	legacy  bool // draft-04/06/07: $ref replaces its siblings
	draft4  bool // exclusiveMinimum/exclusiveMaximum are booleans
	base    string
	byPtr   map[string]*node
	anchors map[string]string // anchor name → JSON pointer
}

// compileDoc compiles a decoded schema document (numbers as json.Number).
func compileDoc(doc any) (n *node, err error) {
	c := &compiler{root: doc, byPtr: map[string]*node{}, anchors: map[string]string{}}
	if m, ok := doc.(map[string]any); ok {
		if s, ok := m["$schema"]; ok {
			str, isStr := s.(string)
			if !isStr {
				return nil, errUncompilable
			}
			legacy, known := knownDraft(str)
			c.draft4 = strings.Contains(str, "draft-04")
			if !known {
				// A meta-schema mcpcode does not know would have to be
				// loaded: the schema checks nothing.
				return nil, errUncompilable
			}
			c.legacy = legacy
		}
		if id, ok := m["$id"].(string); ok {
			c.base, _, _ = strings.Cut(id, "#")
		} else if id, ok := m["id"].(string); ok && c.legacy {
			c.base, _, _ = strings.Cut(id, "#")
		}
	}
	c.collectAnchors(doc, "", 0)
	defer func() {
		if r := recover(); r != nil {
			if r == errUncompilable {
				n, err = nil, errUncompilable
				return
			}
			panic(r)
		}
	}()
	n = c.compile(doc, "", 0)
	return n, nil
}

// knownDraft reports whether url names a JSON Schema draft, and whether
// that draft is older than 2019-09.
func knownDraft(u string) (legacy, known bool) {
	u = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(u, "https://"), "http://"), "#")
	switch u {
	case "json-schema.org/draft-04/schema", "json-schema.org/draft-06/schema", "json-schema.org/draft-07/schema", "json-schema.org/schema":
		return true, true
	case "json-schema.org/draft/2019-09/schema", "json-schema.org/draft/2020-12/schema":
		return false, true
	}
	return false, false
}

// maxSchemaDepth bounds the nesting of a schema document.
const maxSchemaDepth = 200

func (c *compiler) collectAnchors(v any, ptr string, depth int) {
	if depth > maxSchemaDepth {
		panic(errUncompilable)
	}
	switch t := v.(type) {
	case map[string]any:
		if a, ok := t["$anchor"].(string); ok {
			c.anchors[a] = ptr
		}
		for _, key := range []string{"$id", "id"} {
			if id, ok := t[key].(string); ok && strings.HasPrefix(id, "#") && len(id) > 1 {
				c.anchors[id[1:]] = ptr
			}
		}
		for k, sub := range t {
			if k == "enum" || k == "const" || k == "default" || k == "examples" {
				continue
			}
			c.collectAnchors(sub, ptr+"/"+escapePointer(k), depth+1)
		}
	case []any:
		for i, sub := range t {
			c.collectAnchors(sub, ptr+"/"+strconv.Itoa(i), depth+1)
		}
	}
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// compile compiles the schema at ptr (a JSON pointer into the document).
func (c *compiler) compile(v any, ptr string, depth int) *node {
	if n, ok := c.byPtr[ptr]; ok {
		return n
	}
	if depth > maxSchemaDepth {
		panic(errUncompilable)
	}
	n := &node{}
	c.byPtr[ptr] = n
	switch t := v.(type) {
	case bool:
		b := t
		n.always = &b
		return n
	case map[string]any:
		c.fill(n, t, ptr, depth)
		return n
	}
	panic(errUncompilable)
}

func (c *compiler) sub(m map[string]any, key, ptr string, depth int) *node {
	v, ok := m[key]
	if !ok {
		return nil
	}
	return c.compile(v, ptr+"/"+escapePointer(key), depth+1)
}

func (c *compiler) subList(m map[string]any, key, ptr string, depth int) []*node {
	v, ok := m[key]
	if !ok {
		return nil
	}
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		panic(errUncompilable)
	}
	out := make([]*node, len(arr))
	for i, s := range arr {
		out[i] = c.compile(s, ptr+"/"+escapePointer(key)+"/"+strconv.Itoa(i), depth+1)
	}
	return out
}

func (c *compiler) subMap(m map[string]any, key, ptr string, depth int) map[string]*node {
	v, ok := m[key]
	if !ok {
		return nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		panic(errUncompilable)
	}
	out := make(map[string]*node, len(obj))
	for k, s := range obj {
		out[k] = c.compile(s, ptr+"/"+escapePointer(key)+"/"+escapePointer(k), depth+1)
	}
	return out
}

func nonNegative(m map[string]any, key string) *int {
	v, ok := m[key]
	if !ok {
		return nil
	}
	r := number(v)
	if r == nil || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		panic(errUncompilable)
	}
	i := int(r.Num().Int64())
	return &i
}

func numberKeyword(m map[string]any, key string) *big.Rat {
	v, ok := m[key]
	if !ok {
		return nil
	}
	r := number(v)
	if r == nil {
		panic(errUncompilable)
	}
	return r
}

// number is a JSON number as an exact rational, nil when v is not one.
func number(v any) *big.Rat {
	n, ok := v.(json.Number)
	if !ok {
		return nil
	}
	r, ok := new(big.Rat).SetString(string(n))
	if !ok {
		return nil
	}
	return r
}

func stringList(v any) []string {
	arr, ok := v.([]any)
	if !ok {
		panic(errUncompilable)
	}
	out := make([]string, len(arr))
	for i, s := range arr {
		str, ok := s.(string)
		if !ok {
			panic(errUncompilable)
		}
		out[i] = str
	}
	return out
}

var typeOrder = []string{"null", "boolean", "number", "integer", "string", "array", "object"}

func (c *compiler) fill(n *node, m map[string]any, ptr string, depth int) {
	if r, ok := m["$ref"]; ok {
		ref, isStr := r.(string)
		if !isStr {
			panic(errUncompilable)
		}
		n.refOnly = c.legacy
		n.ref = c.resolve(ref, depth)
		if n.refOnly {
			return
		}
	}
	if _, ok := m["$dynamicRef"]; ok {
		panic(errUncompilable) // not supported: check nothing rather than guess
	}
	if _, ok := m["$recursiveRef"]; ok {
		panic(errUncompilable)
	}
	if t, ok := m["type"]; ok {
		var names []string
		switch tv := t.(type) {
		case string:
			names = []string{tv}
		case []any:
			names = stringList(tv)
		default:
			panic(errUncompilable)
		}
		n.typeSet = map[string]bool{}
		for _, name := range names {
			if !isTypeName(name) {
				panic(errUncompilable)
			}
			n.typeSet[name] = true
		}
		for _, name := range typeOrder {
			if n.typeSet[name] {
				n.types = append(n.types, name)
			}
		}
	}
	if e, ok := m["enum"]; ok {
		arr, isArr := e.([]any)
		if !isArr {
			panic(errUncompilable)
		}
		n.hasEnum, n.enum = true, arr
	}
	if cv, ok := m["const"]; ok {
		n.hasConst, n.constV = true, cv
	}

	n.props = c.subMap(m, "properties", ptr, depth)
	for name := range n.props {
		n.declared = append(n.declared, name)
	}
	sort.Strings(n.declared)
	if pp := c.subMap(m, "patternProperties", ptr, depth); pp != nil {
		pats := make([]string, 0, len(pp))
		for p := range pp {
			pats = append(pats, p)
		}
		sort.Strings(pats)
		for _, p := range pats {
			n.patternProps = append(n.patternProps, patternProp{re: lenientRegexp(p), n: pp[p]})
		}
	}
	n.additional = c.sub(m, "additionalProperties", ptr, depth)
	if r, ok := m["required"]; ok {
		if b, isBool := r.(bool); isBool {
			_ = b // draft-03's boolean required: not a keyword of the drafts checked
		} else {
			n.required = withoutDefaults(stringList(r), m["properties"])
		}
	}
	n.minProps = nonNegative(m, "minProperties")
	n.maxProps = nonNegative(m, "maxProperties")
	if dr, ok := m["dependentRequired"]; ok {
		obj, isObj := dr.(map[string]any)
		if !isObj {
			panic(errUncompilable)
		}
		n.depRequired = map[string][]string{}
		for k, v := range obj {
			n.depRequired[k] = stringList(v)
		}
	}
	n.depSchemas = c.subMap(m, "dependentSchemas", ptr, depth)
	if d, ok := m["dependencies"]; ok {
		obj, isObj := d.(map[string]any)
		if !isObj {
			panic(errUncompilable)
		}
		for k, v := range obj {
			if _, isArr := v.([]any); isArr {
				if n.depRequired == nil {
					n.depRequired = map[string][]string{}
				}
				n.depRequired[k] = append(n.depRequired[k], stringList(v)...)
				continue
			}
			if n.depSchemas == nil {
				n.depSchemas = map[string]*node{}
			}
			n.depSchemas[k] = c.compile(v, ptr+"/dependencies/"+escapePointer(k), depth+1)
		}
	}
	n.propertyNames = c.sub(m, "propertyNames", ptr, depth)
	n.unevalProps = c.sub(m, "unevaluatedProperties", ptr, depth)

	if it, ok := m["items"]; ok {
		if _, isArr := it.([]any); isArr {
			n.prefix = c.subList(m, "items", ptr, depth)
			n.additionalI = c.sub(m, "additionalItems", ptr, depth)
		} else {
			n.items = c.sub(m, "items", ptr, depth)
		}
	}
	if _, ok := m["prefixItems"]; ok {
		if n.prefix != nil {
			panic(errUncompilable)
		}
		n.prefix = c.subList(m, "prefixItems", ptr, depth)
	}
	n.minItems = nonNegative(m, "minItems")
	n.maxItems = nonNegative(m, "maxItems")
	if u, ok := m["uniqueItems"]; ok {
		b, isBool := u.(bool)
		if !isBool {
			panic(errUncompilable)
		}
		n.unique = b
	}
	n.contains = c.sub(m, "contains", ptr, depth)
	n.minContains = nonNegative(m, "minContains")
	n.maxContains = nonNegative(m, "maxContains")
	n.unevalItems = c.sub(m, "unevaluatedItems", ptr, depth)

	n.minLength = nonNegative(m, "minLength")
	n.maxLength = nonNegative(m, "maxLength")
	if p, ok := m["pattern"]; ok {
		s, isStr := p.(string)
		if !isStr {
			panic(errUncompilable)
		}
		re := lenientRegexp(s)
		n.pattern = &re
	}

	n.minimum = numberKeyword(m, "minimum")
	n.maximum = numberKeyword(m, "maximum")
	for _, kw := range []struct {
		key    string
		bound  **big.Rat
		target **big.Rat
	}{{"exclusiveMinimum", &n.minimum, &n.exclMin}, {"exclusiveMaximum", &n.maximum, &n.exclMax}} {
		v, ok := m[kw.key]
		if !ok {
			continue
		}
		if b, isBool := v.(bool); isBool && c.draft4 {
			// draft-04: a boolean that makes minimum/maximum exclusive.
			if b && *kw.bound != nil {
				*kw.target, *kw.bound = *kw.bound, nil
			}
			continue
		}
		*kw.target = numberKeyword(m, kw.key)
	}
	n.multipleOf = numberKeyword(m, "multipleOf")
	if n.multipleOf != nil && n.multipleOf.Sign() <= 0 {
		panic(errUncompilable)
	}

	n.allOf = c.subList(m, "allOf", ptr, depth)
	n.anyOf = c.subList(m, "anyOf", ptr, depth)
	n.oneOf = c.subList(m, "oneOf", ptr, depth)
	n.not = c.sub(m, "not", ptr, depth)
	n.ifN = c.sub(m, "if", ptr, depth)
	n.thenN = c.sub(m, "then", ptr, depth)
	n.elseN = c.sub(m, "else", ptr, depth)
}

func isTypeName(s string) bool {
	for _, t := range typeOrder {
		if s == t {
			return true
		}
	}
	return false
}

// resolve compiles the target of a $ref: a JSON pointer or an anchor in
// this document. Anything else would have to be loaded: uncompilable.
func (c *compiler) resolve(ref string, depth int) *node {
	if c.base != "" && strings.HasPrefix(ref, c.base) {
		ref = ref[len(c.base):]
	}
	if !strings.HasPrefix(ref, "#") {
		panic(errUncompilable)
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		panic(errUncompilable)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		p, ok := c.anchors[frag]
		if !ok {
			panic(errUncompilable)
		}
		frag = p
	}
	target, ok := lookupPointer(c.root, frag)
	if !ok {
		panic(errUncompilable)
	}
	return c.compile(target, frag, depth+1)
}

// lookupPointer follows a JSON pointer ("" is the whole document).
func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	node := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch t := node.(type) {
		case map[string]any:
			v, ok := t[tok]
			if !ok {
				return nil, false
			}
			node = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			node = t[i]
		default:
			return nil, false
		}
	}
	return node, true
}

// anyRegexp is a pattern; nil matches everything (ECMAScript patterns Go
// cannot compile match everything rather than failing the schema).
type anyRegexp struct{ re *regexp.Regexp }

func (r anyRegexp) MatchString(s string) bool { return r.re == nil || r.re.MatchString(s) }
func (r anyRegexp) String() string {
	if r.re == nil {
		return ""
	}
	return r.re.String()
}

func lenientRegexp(s string) anyRegexp {
	re, err := regexp.Compile(s)
	if err != nil {
		return anyRegexp{}
	}
	return anyRegexp{re}
}

// withoutDefaults drops from required the properties whose schema has a
// "default": the server fills them in when they are left out, and the
// generated input types make them optional, so leaving one out is no
// mistake to refuse.
func withoutDefaults(required []string, properties any) []string {
	props, _ := properties.(map[string]any)
	out := required[:0:0]
	for _, name := range required {
		if sub, ok := props[name].(map[string]any); ok {
			if _, hasDefault := sub["default"]; hasDefault {
				continue
			}
		}
		out = append(out, name)
	}
	return out
}
