package generator

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// Limits that keep hostile schemas cheap. Whatever exceeds them is typed as
// unknown with a note, so the output stays valid TypeScript.
const (
	maxSchemaDepth  = 48     // nested schemas below one document root
	maxSchemaNodes  = 100000 // schemas converted per document
	maxEnumValues   = 10000  // literal members of one enum
	maxLiteralDepth = 6      // nesting of object/array values inside enum and const
	maxLiteralSize  = 64     // members of one object/array value inside enum and const
	maxIndexUnion   = 60     // widest index-signature union kept before widening to unknown
)

// typeScope holds the type names of one generated file, so helper types of
// the input and output schemas never clash with each other or with the
// names the file uses.
type typeScope struct {
	used   map[string]bool
	named  []*namedType // helper types in order of first reference
	byName map[string]*namedType
}

func newTypeScope(reserved ...string) *typeScope {
	s := &typeScope{used: map[string]bool{}, byName: map[string]*namedType{}}
	for _, n := range append(reserved, "ToolResult", "Promise", "Array", "Object", "integer") {
		s.used[n] = true
	}
	return s
}

// unique returns name, or name with the smallest suffix 2, 3, … not yet used.
func (s *typeScope) unique(name string) string {
	candidate := name
	for n := 2; s.used[candidate]; n++ {
		candidate = name + strconv.Itoa(n)
	}
	s.used[candidate] = true
	return candidate
}

// namedType is a type emitted once under a name: the target of a $ref, or a
// document root.
type namedType struct {
	name       string
	doc        []string
	body       tsType
	done       bool
	guardStart int // guard depth when its body started; see converter.guard
}

// converter turns one schema document (an inputSchema or outputSchema) into
// TypeScript types.
type converter struct {
	scope    *typeScope
	prefix   string // type name prefix of the tool, e.g. "GetDocument"
	input    bool   // converting an inputSchema: defaults make properties optional
	root     *value
	byNode   map[*value]*namedType
	refs     map[string]refResult
	nodes    int
	guard    int        // how many object properties / array elements enclose the current schema
	frames   [][]string // notes for the doc comment being built
	warnings []string
	warned   map[string]bool
}

type refResult struct {
	target *value
	err    error
}

func newConverter(scope *typeScope, prefix string, root *value) *converter {
	return &converter{
		scope:  scope,
		prefix: prefix,
		root:   root,
		byNode: map[*value]*namedType{},
		refs:   map[string]refResult{},
		warned: map[string]bool{},
	}
}

// convertRoot converts the document root, registered as name so "#" refs
// point back to it, and returns its type and the notes for its doc comment.
func (c *converter) convertRoot(name string) (tsType, []string) {
	nt := &namedType{name: name}
	c.byNode[c.root] = nt
	c.pushFrame()
	t := c.convert(c.root, 0)
	notes := c.popFrame()
	nt.body, nt.done = t, true
	return t, notes
}

func (c *converter) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if !c.warned[msg] {
		c.warned[msg] = true
		c.warnings = append(c.warnings, msg)
	}
}

func (c *converter) pushFrame() { c.frames = append(c.frames, nil) }

func (c *converter) popFrame() []string {
	top := c.frames[len(c.frames)-1]
	c.frames = c.frames[:len(c.frames)-1]
	return top
}

// note adds a line to the doc comment of the nearest property or type.
func (c *converter) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	top := &c.frames[len(c.frames)-1]
	for _, n := range *top {
		if n == msg {
			return
		}
	}
	*top = append(*top, msg)
}

// convert turns one schema into a type.
func (c *converter) convert(s *value, depth int) tsType {
	c.nodes++
	if c.nodes > maxSchemaNodes {
		c.note("Note: the schema is too large; the rest is typed as unknown.")
		c.warn("schema has more than %d nodes; the rest is typed as unknown", maxSchemaNodes)
		return tsUnknown
	}
	if depth > maxSchemaDepth {
		c.note("Note: the schema is nested too deeply; deeper parts are typed as unknown.")
		c.warn("schema is nested deeper than %d levels; deeper parts are typed as unknown", maxSchemaDepth)
		return tsUnknown
	}
	switch {
	case s == nil:
		return tsUnknown
	case s.kind == jsonBool:
		if s.boolean {
			return tsUnknown
		}
		return tsNever
	case s.kind != jsonObject:
		c.note("Note: the schema here is not a JSON object; typed as unknown.")
		c.warn("a schema is a JSON %s, not an object; typed as unknown", kindName(s.kind))
		return tsUnknown
	}
	var parts []tsType
	ref := s.get("$ref")
	if ref != nil {
		parts = append(parts, c.ref(ref, depth))
	}
	switch e := s.get("enum"); {
	case s.has("const"):
		parts = append(parts, c.literal(s.get("const"), 0))
	case e != nil && c.enumUsable(e):
		parts = append(parts, c.enum(e))
	case ref != nil && !s.has("properties"):
		// Draft-07 ignores the siblings of $ref; 2020-12 applies them too,
		// which only adds information when they describe properties.
	default:
		if base := c.typed(s, depth); base != nil {
			parts = append(parts, base)
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if list := c.schemaList(s, key); list != nil {
			members := make([]tsType, len(list))
			docs := make([][]string, len(list))
			parentDesc := strings.TrimSpace(s.getString("description"))
			for i, m := range list {
				members[i] = c.convert(m, depth+1)
				docs[i] = branchDoc(m, parentDesc)
			}
			u := unionWithDocs(members, docs)
			if _, ok := u.(tsUnion); !ok {
				// The branches collapsed into one type: their docs go to
				// the enclosing doc comment.
				for _, d := range docs {
					for _, line := range d {
						if line != "" {
							c.note("%s", line)
						}
					}
				}
			}
			parts = append(parts, u)
		}
	}
	for _, m := range c.schemaList(s, "allOf") {
		parts = append(parts, c.convert(m, depth+1))
	}
	return c.nullable(s, intersectionOf(parts...))
}

func kindName(k jsonKind) string {
	return [...]string{"null", "boolean", "number", "string", "array", "object"}[k]
}

// schemaList returns the array member key of s, warning when it is not an array.
func (c *converter) schemaList(s *value, key string) []*value {
	v := s.get(key)
	if v == nil {
		return nil
	}
	if v.kind != jsonArray {
		c.warn("%q is not an array; ignored", key)
		return nil
	}
	return v.items
}

// nullable adds null for OpenAPI's "nullable": true.
func (c *converter) nullable(s *value, t tsType) tsType {
	if b := s.getBool("nullable"); b != nil && *b {
		return unionOf(t, tsNull)
	}
	return t
}

// typed converts the structural keywords: "type", or, without it, the
// keywords that imply object or array. It returns nil when there are none.
func (c *converter) typed(s *value, depth int) tsType {
	var kinds []string
	switch tv := s.get("type"); {
	case tv == nil:
		switch {
		case s.has("properties") || s.has("additionalProperties") || s.has("patternProperties") || s.has("required"):
			kinds = []string{"object"}
		case s.has("items") || s.has("prefixItems") || s.has("additionalItems"):
			kinds = []string{"array"}
		default:
			return nil
		}
	case tv.kind == jsonString:
		kinds = []string{tv.text}
	case tv.kind == jsonArray:
		for _, item := range tv.items {
			if name, ok := item.str(); ok {
				kinds = append(kinds, name)
			} else {
				c.warn("an entry of \"type\" is not a string; ignored")
			}
		}
		if len(kinds) == 0 {
			return tsUnknown
		}
	default:
		c.note("Note: \"type\" is not a string or an array; typed as unknown.")
		c.warn("\"type\" is a JSON %s, not a string or array; typed as unknown", kindName(tv.kind))
		return tsUnknown
	}
	members := make([]tsType, 0, len(kinds))
	for _, k := range kinds {
		members = append(members, c.typeOfKind(s, k, depth))
	}
	return unionOf(members...)
}

func (c *converter) typeOfKind(s *value, kind string, depth int) tsType {
	switch kind {
	case "string":
		return tsName{"string"}
	case "number":
		return tsName{"number"}
	case "integer":
		// The alias integer = number, from mcpcode:runtime, keeps the
		// meaning in the type without making callers cast (see toolfile.go).
		return tsInteger
	case "boolean":
		return tsName{"boolean"}
	case "null":
		return tsNull
	case "object":
		return c.object(s, depth)
	case "array":
		return c.array(s, depth)
	}
	c.note("Note: unknown type %s; typed as unknown.", jsQuote(cutBytes(kind, 40)))
	c.warn("unknown type %q; typed as unknown", cutBytes(kind, 40))
	return tsUnknown
}

// ref converts a $ref: a local JSON pointer becomes a named type, converted
// once; recursion is allowed through object properties and array elements
// and cut (unknown) where TypeScript would reject a circular alias. Remote
// and unresolvable refs become unknown with a note; nothing is fetched.
func (c *converter) ref(refVal *value, depth int) tsType {
	ref, ok := refVal.str()
	if !ok {
		c.note("Note: $ref is not a string; typed as unknown.")
		c.warn("$ref is a JSON %s, not a string; typed as unknown", kindName(refVal.kind))
		return tsUnknown
	}
	target, err := c.resolve(ref)
	if err != nil {
		c.note("Note: %s; typed as unknown.", err)
		c.warn("%s; typed as unknown", err)
		return tsUnknown
	}
	if nt := c.byNode[target]; nt != nil {
		if nt.done || c.guard > nt.guardStart {
			return tsName{nt.name}
		}
		c.note("Note: $ref %s refers to itself without an object or array in between; typed as unknown.", jsQuote(cutBytes(ref, 200)))
		c.warn("$ref %q is circular without an object or array in between; typed as unknown", cutBytes(ref, 200))
		return tsUnknown
	}
	nt := &namedType{name: c.scope.unique(c.prefix + refTypeName(ref)), guardStart: c.guard}
	c.byNode[target] = nt
	c.scope.named = append(c.scope.named, nt)
	c.scope.byName[nt.name] = nt
	c.pushFrame()
	nt.body = c.convert(target, depth+1)
	nt.doc = append(schemaDoc(target, ""), c.popFrame()...)
	nt.done = true
	return tsName{nt.name}
}

// refTypeName derives a PascalCase name from the last pointer segments of a
// ref ("#/$defs/richText" → "RichText", "#/properties/a/anyOf/0" → "AnyOf0").
func refTypeName(ref string) string {
	frag := ref
	if i := strings.IndexByte(ref, '#'); i >= 0 {
		frag = ref[i+1:]
	}
	if decoded, err := url.PathUnescape(frag); err == nil {
		frag = decoded
	}
	segs := strings.Split(frag, "/")
	name := ""
	for i := len(segs) - 1; i >= 0 && len(name) < maxNameLen; i-- {
		seg, err := unescapePointerSegment(segs[i])
		if err != nil {
			seg = segs[i]
		}
		w := camelName(seg)
		if w == "tool" && !strings.Contains(strings.ToLower(seg), "tool") {
			continue
		}
		name = pascal(strings.TrimPrefix(w, "_")) + name
		if name != "" && !isDigit(name[0]) {
			break
		}
	}
	if name == "" || isDigit(name[0]) {
		name = "Def" + name
	}
	if len(name) > maxNameLen {
		name = name[:maxNameLen]
	}
	return name
}
