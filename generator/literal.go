package generator

import (
	"math"
	"strconv"
)

// intValue returns a JSON number as an int when it is a whole number of
// reasonable size.
func intValue(v *value) (int, bool) {
	if v == nil || v.kind != jsonNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.text, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e9 {
		return 0, false
	}
	return int(f), true
}

// enumUsable reports whether an enum can become a literal union; when not
// (not an array, or too long), the other keywords decide the type.
func (c *converter) enumUsable(e *value) bool {
	if e.kind != jsonArray {
		c.warn("\"enum\" is not an array; ignored")
		return false
	}
	if len(e.items) > maxEnumValues {
		c.note("Note: one of %d values (not listed).", len(e.items))
		c.warn("enum has %d values, more than %d; not listed", len(e.items), maxEnumValues)
		return false
	}
	return true
}

// enum converts a usable enum to a union of literal types.
func (c *converter) enum(e *value) tsType {
	c.nodes += len(e.items)
	members := make([]tsType, len(e.items))
	for i, item := range e.items {
		members[i] = c.literal(item, 0)
	}
	return unionOf(members...)
}

// literal returns the literal type of a JSON value: strings, numbers,
// booleans and null exactly; objects and arrays structurally (unknown when
// too large or deep).
func (c *converter) literal(v *value, depth int) tsType {
	switch v.kind {
	case jsonNull:
		return tsNull
	case jsonBool:
		return tsName{strconv.FormatBool(v.boolean)}
	case jsonNumber:
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return tsName{"number"}
		}
		return tsName{v.text}
	case jsonString:
		return tsName{jsQuote(v.text)}
	}
	if depth >= maxLiteralDepth || len(v.items)+len(v.members) > maxLiteralSize {
		return tsUnknown
	}
	if v.kind == jsonArray {
		t := tsTuple{required: len(v.items)}
		for _, item := range v.items {
			t.elems = append(t.elems, c.literal(item, depth+1))
		}
		return t
	}
	var o tsObject
	for _, m := range v.members {
		o.props = append(o.props, tsProp{name: m.key, typ: c.literal(m.val, depth+1)})
	}
	if len(o.props) == 0 {
		o.index = tsNever
	}
	return o
}
