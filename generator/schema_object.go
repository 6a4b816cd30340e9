package generator

// object converts properties, required and the index signature. An index
// signature must accept every property's type, so when the schema's
// additional-property type is narrower it is widened by the property types
// (or to unknown when that union gets long).
func (c *converter) object(s *value, depth int) tsType {
	required := map[string]bool{}
	var requiredOrder []string
	if r := s.get("required"); r != nil && r.kind == jsonArray {
		for _, item := range r.items {
			if name, ok := item.str(); ok && !required[name] {
				required[name] = true
				requiredOrder = append(requiredOrder, name)
			}
		}
	}
	var o tsObject
	seen := map[string]bool{}
	if props := s.get("properties"); props != nil {
		if props.kind != jsonObject {
			c.warn("\"properties\" is a JSON %s, not an object; ignored", kindName(props.kind))
		} else {
			for _, m := range props.members {
				t, doc := c.property(m.val, m.key, depth)
				seen[m.key] = true
				optional := !required[m.key]
				if !optional && c.input && m.val.isObject() && m.val.has("default") {
					// The server fills in the default (its @default is in
					// the doc), so a caller may leave the property out.
					optional = true
				}
				t, doc = protoSafe(m.key, optional, t, doc)
				o.props = append(o.props, tsProp{name: m.key, optional: optional, typ: t, doc: doc})
			}
		}
	}
	for _, name := range requiredOrder {
		if !seen[name] {
			o.props = append(o.props, tsProp{name: name, typ: tsUnknown})
		}
	}

	var index []tsType
	if pp := s.get("patternProperties"); pp != nil && pp.kind == jsonObject {
		for _, m := range pp.members {
			index = append(index, c.element(m.val, depth))
		}
	}
	explicitOpen := false
	switch ap := s.get("additionalProperties"); {
	case ap == nil:
	case ap.kind == jsonBool && ap.boolean:
		explicitOpen = true
	case ap.kind == jsonBool:
		if len(o.props) == 0 && len(index) == 0 {
			o.index = tsNever
			return o
		}
	default:
		index = append(index, c.element(ap, depth))
	}
	switch {
	case explicitOpen:
		o.index = tsUnknown
	case len(index) > 0:
		o.index = widenIndex(unionOf(index...), o.props)
	case len(o.props) == 0:
		o.index = tsUnknown
	}
	return o
}

// widenIndex makes an index signature type accept every property type.
func widenIndex(index tsType, props []tsProp) tsType {
	if isName(index, "unknown") || len(props) == 0 {
		return index
	}
	members := []tsType{index}
	for _, p := range props {
		members = append(members, stripDocs(p.typ))
		if p.optional {
			members = append(members, tsName{"undefined"})
		}
	}
	wide := unionOf(members...)
	if _, ok := flatType(wide, maxIndexUnion); !ok {
		return tsUnknown
	}
	return wide
}

// property converts the schema of an object property and returns its type
// and doc comment lines. Properties are positions where TypeScript allows a
// type to refer to itself (see ref).
func (c *converter) property(s *value, key string, depth int) (tsType, []string) {
	c.guard++
	c.pushFrame()
	t := c.convert(s, depth+1)
	notes := c.popFrame()
	c.guard--
	return t, append(schemaDoc(s, key), notes...)
}

// element converts an array element, rest or index-signature schema; its
// notes go to the enclosing doc comment.
func (c *converter) element(s *value, depth int) tsType {
	c.guard++
	t := c.convert(s, depth+1)
	c.guard--
	return t
}

// array converts items, prefixItems (tuple, items as rest) and the draft-07
// tuple form (items array, additionalItems as rest). Tuple elements past
// minItems are optional; extra elements are allowed only when the rest is
// given as a schema or true.
func (c *converter) array(s *value, depth int) tsType {
	items, prefix := s.get("items"), s.get("prefixItems")
	var elems []*value
	var rest *value
	switch {
	case prefix != nil && prefix.kind == jsonArray:
		elems, rest = prefix.items, items
	case items != nil && items.kind == jsonArray:
		elems, rest = items.items, s.get("additionalItems")
	case items != nil:
		return tsArray{c.element(items, depth)}
	default:
		return tsArray{tsUnknown}
	}
	tuple := tsTuple{required: len(elems)}
	if n, ok := intValue(s.get("minItems")); ok && n < len(elems) {
		tuple.required = max(n, 0)
	}
	for _, e := range elems {
		tuple.elems = append(tuple.elems, c.element(e, depth))
	}
	if rest != nil && !(rest.kind == jsonBool && !rest.boolean) {
		tuple.rest = c.element(rest, depth)
	}
	return tuple
}

// objectMembers are the members every object inherits from Object.prototype
// that TypeScript's Object interface declares. An optional property with one
// of these names would make "{}" (and every object literal without it)
// unassignable: the literal's inherited member is checked against the
// property's type.
var objectMembers = map[string]bool{
	"constructor": true, "toString": true, "toLocaleString": true, "valueOf": true,
	"hasOwnProperty": true, "isPrototypeOf": true, "propertyIsEnumerable": true,
}

// protoSafe types a property whose name is an Object.prototype member so
// that it is sound and callers can still omit it: when optional, its type
// also admits the inherited member (Object["constructor"], …), which is what
// reading it gives when the object lacks it. A property named __proto__
// keeps its type and gets a note: a plain __proto__ key in an object
// literal sets the prototype instead of creating the property.
func protoSafe(name string, optional bool, t tsType, doc []string) (tsType, []string) {
	switch {
	case name == "__proto__":
		doc = append(doc, `Note: write it as a computed key, ["__proto__"]: value; a plain __proto__ key sets the prototype and is not sent.`)
	case optional && objectMembers[name]:
		t = unionOf(t, tsName{"Object[" + jsQuote(name) + "]"})
		doc = append(doc, "Also Object["+jsQuote(name)+"]: an object without this property inherits that member.")
	}
	return t, doc
}
