package generator

import (
	"strings"
)

// tsType is a TypeScript type expression being built from a schema.
type tsType interface{ isTSType() }

// tsName is a primitive, a literal or a reference to a named type.
type tsName struct{ text string }

// tsArray is elem[].
type tsArray struct{ elem tsType }

// tsTuple is [a, b?, ...rest[]].
type tsTuple struct {
	elems    []tsType
	required int    // elements before this index are required
	rest     tsType // nil: closed
}

// tsObject is an object type literal.
type tsObject struct {
	props []tsProp
	index tsType // value type of a string index signature, or nil
}

// tsProp is one property of an object type.
type tsProp struct {
	name     string
	optional bool
	typ      tsType
	doc      []string // JSDoc lines, already safe
}

// tsUnion is a | b.
type tsUnion struct{ members []tsType }

// tsIntersection is a & b.
type tsIntersection struct{ members []tsType }

func (tsName) isTSType()         {}
func (tsArray) isTSType()        {}
func (tsTuple) isTSType()        {}
func (tsObject) isTSType()       {}
func (tsUnion) isTSType()        {}
func (tsIntersection) isTSType() {}

var (
	tsUnknown = tsName{"unknown"}
	tsNever   = tsName{"never"}
	tsNull    = tsName{"null"}
)

func isName(t tsType, text string) bool {
	n, ok := t.(tsName)
	return ok && n.text == text
}

// unionOf builds a union: unknown absorbs everything, never disappears,
// nested unions are flattened and repeated simple members dropped.
func unionOf(members ...tsType) tsType {
	var out []tsType
	seen := map[string]bool{}
	for _, m := range members {
		if u, ok := m.(tsUnion); ok {
			for _, x := range u.members {
				out = appendUnionMember(out, seen, x)
			}
			continue
		}
		if isName(m, "unknown") {
			return tsUnknown
		}
		out = appendUnionMember(out, seen, m)
	}
	switch len(out) {
	case 0:
		return tsNever
	case 1:
		return out[0]
	}
	return tsUnion{out}
}

func appendUnionMember(out []tsType, seen map[string]bool, m tsType) []tsType {
	if isName(m, "never") {
		return out
	}
	if n, ok := m.(tsName); ok {
		if seen[n.text] {
			return out
		}
		seen[n.text] = true
	}
	return append(out, m)
}

// intersectionOf builds an intersection: unknown members disappear, never
// absorbs everything, nested intersections are flattened.
func intersectionOf(members ...tsType) tsType {
	var out []tsType
	for _, m := range members {
		switch x := m.(type) {
		case tsIntersection:
			out = append(out, x.members...)
			continue
		case tsName:
			if x.text == "unknown" {
				continue
			}
			if x.text == "never" {
				return tsNever
			}
		}
		out = append(out, m)
	}
	switch len(out) {
	case 0:
		return tsUnknown
	case 1:
		return out[0]
	}
	return tsIntersection{out}
}

// lineWidth is the width the printer tries to keep lines within.
const lineWidth = 100

// printType renders t; ind is the indentation of the line the type starts on.
// Short types without doc comments stay on one line; others break like
// prettier does. A broken union starts with a newline (callers write
// "name:" directly before it).
func printType(t tsType, ind string) string {
	if flat, ok := flatType(t, lineWidth-len(ind)-20); ok {
		return flat
	}
	var sb strings.Builder
	switch x := t.(type) {
	case tsObject:
		printObjectBody(&sb, x, ind)
	case tsUnion:
		for _, m := range x.members {
			sb.WriteString("\n" + ind + "  | ")
			sb.WriteString(printType(m, ind+"    "))
		}
	case tsIntersection:
		for i, m := range x.members {
			if i > 0 {
				sb.WriteString(" & ")
			}
			if _, ok := m.(tsUnion); ok {
				text := printType(m, ind)
				if strings.HasPrefix(text, "\n") {
					text += "\n" + ind
				}
				sb.WriteString("(" + text + ")")
			} else {
				sb.WriteString(printType(m, ind))
			}
		}
	case tsArray:
		switch x.elem.(type) {
		case tsUnion:
			sb.WriteString("Array<" + printType(x.elem, ind) + "\n" + ind + ">")
		case tsIntersection:
			sb.WriteString("Array<" + printType(x.elem, ind) + ">")
		default:
			sb.WriteString(printType(x.elem, ind) + "[]")
		}
	case tsTuple:
		sb.WriteString("[\n")
		inner := ind + "  "
		for i, e := range x.elems {
			sb.WriteString(inner + wrapCompound(e, inner, i >= x.required) + ",\n")
		}
		if x.rest != nil {
			sb.WriteString(inner + "..." + wrapCompound(x.rest, inner, false) + "[],\n")
		}
		sb.WriteString(ind + "]")
	default:
		flat, _ := flatType(t, -1)
		sb.WriteString(flat)
	}
	return sb.String()
}

// wrapCompound prints t for a position followed by "?" or "[]": a union or
// intersection goes in parentheses; optional adds the "?".
func wrapCompound(t tsType, ind string, optional bool) string {
	text := printType(t, ind)
	switch t.(type) {
	case tsUnion, tsIntersection:
		if strings.HasPrefix(text, "\n") {
			text += "\n" + ind
		}
		text = "(" + text + ")"
	}
	if optional {
		text += "?"
	}
	return text
}

// printObjectBody writes "{", one line per property and index signature, and "}".
func printObjectBody(sb *strings.Builder, o tsObject, ind string) {
	inner := ind + "  "
	sb.WriteString("{\n")
	for _, p := range o.props {
		writeDoc(sb, p.doc, inner)
		sb.WriteString(inner + propKey(p.name))
		if p.optional {
			sb.WriteByte('?')
		}
		sb.WriteByte(':')
		text := printType(p.typ, inner)
		if !strings.HasPrefix(text, "\n") {
			sb.WriteByte(' ')
		}
		sb.WriteString(text + ";\n")
	}
	if o.index != nil {
		text := printType(o.index, inner)
		sb.WriteString(inner + "[key: string]:")
		if !strings.HasPrefix(text, "\n") {
			sb.WriteByte(' ')
		}
		sb.WriteString(text + ";\n")
	}
	sb.WriteString(ind + "}")
}

// writeDoc writes a JSDoc comment: one line "/** x */" when it fits.
func writeDoc(sb *strings.Builder, doc []string, ind string) {
	switch {
	case len(doc) == 0:
	case len(doc) == 1 && len(ind)+len(doc[0]) < lineWidth-7:
		sb.WriteString(ind + "/** " + doc[0] + " */\n")
	default:
		sb.WriteString(ind + "/**\n")
		for _, l := range doc {
			if l == "" {
				sb.WriteString(ind + " *\n")
			} else {
				sb.WriteString(ind + " * " + l + "\n")
			}
		}
		sb.WriteString(ind + " */\n")
	}
}

// propKey renders a property name: bare when it is an identifier, else quoted.
func propKey(name string) string {
	if isIdentifier(name) {
		return name
	}
	return jsQuote(name)
}

// flatType renders t on one line. It fails when a property has a doc
// comment or, with max >= 0, when the text gets longer than max.
func flatType(t tsType, max int) (string, bool) {
	var sb strings.Builder
	ok := writeFlat(&sb, t, max)
	return sb.String(), ok
}

func writeFlat(sb *strings.Builder, t tsType, max int) bool {
	if max >= 0 && sb.Len() > max {
		return false
	}
	switch x := t.(type) {
	case tsName:
		sb.WriteString(x.text)
	case tsArray:
		if !writeWrapped(sb, x.elem, max) {
			return false
		}
		sb.WriteString("[]")
	case tsTuple:
		sb.WriteByte('[')
		for i, e := range x.elems {
			if i > 0 {
				sb.WriteString(", ")
			}
			if !writeWrapped(sb, e, max) {
				return false
			}
			if i >= x.required {
				sb.WriteByte('?')
			}
		}
		if x.rest != nil {
			if len(x.elems) > 0 {
				sb.WriteString(", ")
			}
			sb.WriteString("...")
			if !writeWrapped(sb, x.rest, max) {
				return false
			}
			sb.WriteString("[]")
		}
		sb.WriteByte(']')
	case tsObject:
		sb.WriteString("{ ")
		for i, p := range x.props {
			if len(p.doc) > 0 {
				return false
			}
			if i > 0 {
				sb.WriteString("; ")
			}
			sb.WriteString(propKey(p.name))
			if p.optional {
				sb.WriteByte('?')
			}
			sb.WriteString(": ")
			if !writeFlat(sb, p.typ, max) {
				return false
			}
		}
		if x.index != nil {
			if len(x.props) > 0 {
				sb.WriteString("; ")
			}
			sb.WriteString("[key: string]: ")
			if !writeFlat(sb, x.index, max) {
				return false
			}
		}
		sb.WriteString(" }")
	case tsUnion:
		for i, m := range x.members {
			if i > 0 {
				sb.WriteString(" | ")
			}
			if !writeFlat(sb, m, max) {
				return false
			}
		}
	case tsIntersection:
		for i, m := range x.members {
			if i > 0 {
				sb.WriteString(" & ")
			}
			if _, isUnion := m.(tsUnion); isUnion {
				if !writeWrapped(sb, m, max) {
					return false
				}
			} else if !writeFlat(sb, m, max) {
				return false
			}
		}
	}
	return max < 0 || sb.Len() <= max
}

// writeWrapped writes t flat, in parentheses when it is a union or intersection.
func writeWrapped(sb *strings.Builder, t tsType, max int) bool {
	switch t.(type) {
	case tsUnion, tsIntersection:
		sb.WriteByte('(')
		ok := writeFlat(sb, t, max)
		sb.WriteByte(')')
		return ok
	}
	return writeFlat(sb, t, max)
}
