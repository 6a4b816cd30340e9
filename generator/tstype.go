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

// tsUnion is a | b. docs, when not nil, holds per member the JSDoc lines
// of the anyOf/oneOf branch it came from (nil for a member without one).
type tsUnion struct {
	members []tsType
	docs    [][]string
}

// doc returns the doc lines of member i.
func (u tsUnion) doc(i int) []string {
	if i < len(u.docs) {
		return u.docs[i]
	}
	return nil
}

// hasDocs reports whether any member has doc lines.
func (u tsUnion) hasDocs() bool {
	for _, d := range u.docs {
		if len(d) > 0 {
			return true
		}
	}
	return false
}

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
	// tsInteger is JSON Schema's integer: the alias "integer" (= number)
	// that every tool file using it imports from "mcpcode:runtime".
	tsInteger = tsName{"integer"}
)

func isName(t tsType, text string) bool {
	n, ok := t.(tsName)
	return ok && n.text == text
}

// unionOf builds a union: unknown absorbs everything, never disappears,
// nested unions are flattened and repeated simple members dropped.
func unionOf(members ...tsType) tsType { return unionWithDocs(members, nil) }

// unionWithDocs is unionOf where members[i] has the doc lines docs[i] (docs
// may be nil or shorter). Docs of nested unions are kept with their members;
// a member dropped as a repeat gives its doc to the one kept. integer is
// dropped when number is there too (integer is an alias of number).
func unionWithDocs(members []tsType, docs [][]string) tsType {
	var out []tsType
	var outDocs [][]string
	seen := map[string]int{}
	add := func(m tsType, doc []string) {
		if isName(m, "never") {
			return
		}
		if n, ok := m.(tsName); ok {
			if i, dup := seen[n.text]; dup {
				outDocs[i] = mergeDocs(outDocs[i], doc)
				return
			}
			seen[n.text] = len(out)
		}
		out = append(out, m)
		outDocs = append(outDocs, doc)
	}
	for i, m := range members {
		var doc []string
		if i < len(docs) {
			doc = docs[i]
		}
		if u, ok := m.(tsUnion); ok {
			for j, x := range u.members {
				d := u.doc(j)
				if j == 0 { // the branch's doc goes to its first member only
					d = mergeDocs(doc, d)
				}
				add(x, d)
			}
			continue
		}
		if isName(m, "unknown") {
			return tsUnknown
		}
		add(m, doc)
	}
	if i, ok := seen["integer"]; ok {
		if j, ok := seen["number"]; ok {
			outDocs[j] = mergeDocs(outDocs[j], outDocs[i])
			out = append(out[:i:i], out[i+1:]...)
			outDocs = append(outDocs[:i:i], outDocs[i+1:]...)
		}
	}
	switch len(out) {
	case 0:
		return tsNever
	case 1:
		return out[0]
	}
	u := tsUnion{members: out}
	for _, d := range outDocs {
		if len(d) > 0 {
			u.docs = outDocs
			break
		}
	}
	return u
}

// mergeDocs joins two lists of doc lines, dropping a second that repeats the first.
func mergeDocs(a, b []string) []string {
	switch {
	case len(b) == 0:
		return a
	case len(a) == 0:
		return b
	case strings.Join(a, "\n") == strings.Join(b, "\n"):
		return a
	}
	return append(append(append([]string(nil), a...), ""), b...)
}

// stripDocs returns t without the doc lines of its top-level union members.
func stripDocs(t tsType) tsType {
	if u, ok := t.(tsUnion); ok && u.docs != nil {
		return tsUnion{members: u.members}
	}
	return t
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
		for i, m := range x.members {
			sb.WriteString("\n")
			if doc := x.doc(i); len(doc) > 0 {
				var db strings.Builder
				writeDoc(&db, doc, ind+"  ")
				sb.WriteString(strings.TrimSuffix(db.String(), "\n") + "\n")
			}
			sb.WriteString(ind + "  | ")
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
		if x.hasDocs() {
			return false
		}
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
