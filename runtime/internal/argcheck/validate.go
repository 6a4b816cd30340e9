package argcheck

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"unicode/utf8"
)

// vError is one validation failure at an instance location, or a group of
// them (causes). Its shape follows the error tree the messages are worded
// from (messages.go): anyOf and oneOf keep their branches' errors.
type vError struct {
	loc    []string
	kind   any // one of the k* types below
	causes []*vError
}

type (
	kGroup             struct{}
	kRequired          struct{ missing []string }
	kDependentRequired struct {
		prop    string
		missing []string
	}
	kAdditionalProperties struct{ properties, declared []string }
	kType                 struct {
		want []string
		got  string
	}
	kEnum struct {
		want []any
		got  any
	}
	kConst            struct{ want, got any }
	kFalseSchema      struct{}
	kMinLength        struct{ want, got int }
	kMaxLength        struct{ want, got int }
	kPattern          struct{ want string }
	kMinimum          struct{ want, got *big.Rat }
	kMaximum          struct{ want, got *big.Rat }
	kExclusiveMinimum struct{ want, got *big.Rat }
	kExclusiveMaximum struct{ want, got *big.Rat }
	kMultipleOf       struct{ want, got *big.Rat }
	kMinItems         struct{ want, got int }
	kMaxItems         struct{ want, got int }
	kUniqueItems      struct{ i, j int }
	kMinProperties    struct{ want, got int }
	kMaxProperties    struct{ want, got int }
	kPropertyNames    struct{ property string }
	kAdditionalItems  struct{ count int }
	kNot              struct{}
	kContains         struct{}
	kMinContains      struct{ want, got int }
	kMaxContains      struct{ want, got int }
	kAnyOf            struct{}
	kOneOf            struct{ matched []int }
	kRefCycle         struct{}
)

// evaluated is what a valid schema evaluated of an object or an array, for
// unevaluatedProperties and unevaluatedItems.
type evaluated struct {
	props    map[string]bool
	items    int  // items [0, items) evaluated
	allItems bool // every item evaluated
}

func (e *evaluated) merge(o evaluated) {
	for k := range o.props {
		if e.props == nil {
			e.props = map[string]bool{}
		}
		e.props[k] = true
	}
	e.items = max(e.items, o.items)
	e.allItems = e.allItems || o.allItems
}

// validator validates one instance against one compiled schema.
type validator struct{}

// check validates v at loc against n. It returns the failures (nil when v
// is valid) and, when valid, what n evaluated. here lists the schemas
// being applied to v at loc already: meeting one again is a cycle ($ref
// loops that never move into the instance), an error as in the library
// this replaced.
func (vd *validator) check(n *node, v any, loc []string, here []*node) (*vError, evaluated) {
	var ev evaluated
	if slices.Contains(here, n) {
		return &vError{loc: loc, kind: kRefCycle{}}, ev
	}
	here = append(slices.Clip(here), n)
	if n.always != nil {
		if *n.always {
			return nil, ev
		}
		return &vError{loc: loc, kind: kFalseSchema{}}, ev
	}
	if n.ref != nil && n.refOnly {
		return vd.check(n.ref, v, loc, here)
	}
	got := typeOf(v)
	if n.typeSet != nil && !n.typeSet[got] && !(got == "number" && n.typeSet["integer"] && isInteger(v)) {
		return &vError{loc: loc, kind: kType{want: n.types, got: got}}, ev
	}
	if n.hasConst && !equal(v, n.constV) {
		return &vError{loc: loc, kind: kConst{want: n.constV, got: v}}, ev
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(w any) bool { return equal(v, w) }) {
		return &vError{loc: loc, kind: kEnum{want: n.enum, got: v}}, ev
	}

	var errs []*vError
	add := func(e *vError) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	leaf := func(k any) { errs = append(errs, &vError{loc: loc, kind: k}) }
	// sub validates v against a subschema of n at the same location and
	// merges what it evaluated when it holds.
	sub := func(s *node) *vError {
		e, sev := vd.check(s, v, loc, here)
		if e == nil {
			ev.merge(sev)
		}
		return e
	}
	if n.ref != nil {
		add(sub(n.ref))
	}

	switch t := v.(type) {
	case map[string]any:
		errs = vd.object(n, t, loc, errs, &ev, here)
	case []any:
		errs = vd.array(n, t, loc, errs, &ev)
	case string:
		if n.minLength != nil || n.maxLength != nil {
			l := utf8.RuneCountInString(t)
			if n.minLength != nil && l < *n.minLength {
				leaf(kMinLength{want: *n.minLength, got: l})
			}
			if n.maxLength != nil && l > *n.maxLength {
				leaf(kMaxLength{want: *n.maxLength, got: l})
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(t) {
			leaf(kPattern{want: n.pattern.String()})
		}
	case json.Number:
		if r := number(t); r != nil {
			if n.minimum != nil && r.Cmp(n.minimum) < 0 {
				leaf(kMinimum{want: n.minimum, got: r})
			}
			if n.maximum != nil && r.Cmp(n.maximum) > 0 {
				leaf(kMaximum{want: n.maximum, got: r})
			}
			if n.exclMin != nil && r.Cmp(n.exclMin) <= 0 {
				leaf(kExclusiveMinimum{want: n.exclMin, got: r})
			}
			if n.exclMax != nil && r.Cmp(n.exclMax) >= 0 {
				leaf(kExclusiveMaximum{want: n.exclMax, got: r})
			}
			if n.multipleOf != nil && !new(big.Rat).Quo(r, n.multipleOf).IsInt() {
				leaf(kMultipleOf{want: n.multipleOf, got: r})
			}
		}
	}

	if n.not != nil {
		if e, _ := vd.check(n.not, v, loc, here); e == nil {
			leaf(kNot{})
		}
	}
	if len(n.allOf) > 0 {
		var causes []*vError
		for _, s := range n.allOf {
			if e := sub(s); e != nil {
				causes = append(causes, e)
			}
		}
		if len(causes) > 0 {
			errs = append(errs, &vError{loc: loc, kind: kGroup{}, causes: causes})
		}
	}
	if len(n.anyOf) > 0 {
		var causes []*vError
		matched := false
		for _, s := range n.anyOf {
			if e := sub(s); e != nil {
				causes = append(causes, e)
			} else {
				matched = true // every branch is evaluated, for unevaluated*
			}
		}
		if !matched {
			errs = append(errs, &vError{loc: loc, kind: kAnyOf{}, causes: causes})
		}
	}
	if len(n.oneOf) > 0 {
		var causes []*vError
		var matched []int
		for i, s := range n.oneOf {
			e, sev := vd.check(s, v, loc, here)
			if e != nil {
				causes = append(causes, e)
				continue
			}
			matched = append(matched, i)
			if len(matched) == 1 {
				ev.merge(sev)
			}
		}
		switch {
		case len(matched) == 0:
			errs = append(errs, &vError{loc: loc, kind: kOneOf{}, causes: causes})
		case len(matched) > 1:
			leaf(kOneOf{matched: matched[:2]})
		}
	}
	if n.ifN != nil {
		if e, iev := vd.check(n.ifN, v, loc, here); e == nil {
			ev.merge(iev)
			if n.thenN != nil {
				add(sub(n.thenN))
			}
		} else if n.elseN != nil {
			add(sub(n.elseN))
		}
	}
	if len(errs) == 0 {
		vd.unevaluated(n, v, loc, &errs, &ev)
	}
	switch len(errs) {
	case 0:
		return nil, ev
	case 1:
		return errs[0], ev
	}
	return &vError{loc: loc, kind: kGroup{}, causes: errs}, ev
}

func (vd *validator) object(n *node, obj map[string]any, loc []string, errs []*vError, ev *evaluated, here []*node) []*vError {
	leaf := func(k any) { errs = append(errs, &vError{loc: loc, kind: k}) }
	if n.minProps != nil && len(obj) < *n.minProps {
		leaf(kMinProperties{want: *n.minProps, got: len(obj)})
	}
	if n.maxProps != nil && len(obj) > *n.maxProps {
		leaf(kMaxProperties{want: *n.maxProps, got: len(obj)})
	}
	if missing := findMissing(obj, n.required); missing != nil {
		leaf(kRequired{missing: missing})
	}
	for _, prop := range sortedKeys(n.depRequired) {
		if _, ok := obj[prop]; ok {
			if missing := findMissing(obj, n.depRequired[prop]); missing != nil {
				leaf(kDependentRequired{prop: prop, missing: missing})
			}
		}
	}
	for _, prop := range sortedKeys(n.depSchemas) {
		if _, ok := obj[prop]; ok {
			e, sev := vd.check(n.depSchemas[prop], obj, loc, here)
			if e != nil {
				errs = append(errs, e)
			} else {
				ev.merge(sev)
			}
		}
	}
	var additional []string
	for _, name := range sortedKeys(obj) {
		val := obj[name]
		seen := false
		if s, ok := n.props[name]; ok {
			seen = true
			if e, _ := vd.check(s, val, child(loc, name), nil); e != nil {
				errs = append(errs, e)
			}
		}
		for _, pp := range n.patternProps {
			if pp.re.MatchString(name) {
				seen = true
				if e, _ := vd.check(pp.n, val, child(loc, name), nil); e != nil {
					errs = append(errs, e)
				}
			}
		}
		if !seen && n.additional != nil {
			seen = true
			if a := n.additional.always; a != nil && !*a {
				additional = append(additional, name)
			} else if e, _ := vd.check(n.additional, val, child(loc, name), nil); e != nil {
				errs = append(errs, e)
			}
		}
		if seen {
			if ev.props == nil {
				ev.props = map[string]bool{}
			}
			ev.props[name] = true
		}
		if n.propertyNames != nil {
			if e, _ := vd.check(n.propertyNames, name, loc, nil); e != nil {
				leaf(kPropertyNames{property: name})
			}
		}
	}
	if len(additional) > 0 {
		leaf(kAdditionalProperties{properties: additional, declared: n.declared})
	}
	return errs
}

func (vd *validator) array(n *node, arr []any, loc []string, errs []*vError, ev *evaluated) []*vError {
	leaf := func(k any) { errs = append(errs, &vError{loc: loc, kind: k}) }
	if n.minItems != nil && len(arr) < *n.minItems {
		leaf(kMinItems{want: *n.minItems, got: len(arr)})
	}
	if n.maxItems != nil && len(arr) > *n.maxItems {
		leaf(kMaxItems{want: *n.maxItems, got: len(arr)})
	}
	if n.unique {
		if i, j := duplicates(arr); i >= 0 {
			leaf(kUniqueItems{i: i, j: j})
		}
	}
	item := func(s *node, i int) {
		if e, _ := vd.check(s, arr[i], child(loc, strconv.Itoa(i)), nil); e != nil {
			errs = append(errs, e)
		}
	}
	done := min(len(n.prefix), len(arr))
	for i := 0; i < done; i++ {
		item(n.prefix[i], i)
	}
	ev.items = max(ev.items, done)
	rest := n.items
	if n.prefix != nil && n.additionalI != nil {
		rest = n.additionalI
	}
	if rest != nil {
		if a := rest.always; a != nil && !*a && n.prefix != nil && done < len(arr) {
			leaf(kAdditionalItems{count: len(arr) - done})
		} else {
			for i := done; i < len(arr); i++ {
				item(rest, i)
			}
		}
		ev.allItems = true
	}
	if n.contains != nil {
		matched := 0
		for i := range arr {
			if e, _ := vd.check(n.contains, arr[i], child(loc, strconv.Itoa(i)), nil); e == nil {
				matched++
			}
		}
		switch {
		case n.minContains != nil && matched < *n.minContains:
			leaf(kMinContains{want: *n.minContains, got: matched})
		case n.minContains == nil && matched == 0:
			leaf(kContains{})
		}
		if n.maxContains != nil && matched > *n.maxContains {
			leaf(kMaxContains{want: *n.maxContains, got: matched})
		}
	}
	return errs
}

// unevaluated applies unevaluatedProperties and unevaluatedItems to what
// the rest of the schema (valid so far) did not evaluate.
func (vd *validator) unevaluated(n *node, v any, loc []string, errs *[]*vError, ev *evaluated) {
	switch t := v.(type) {
	case map[string]any:
		if n.unevalProps == nil {
			return
		}
		for _, name := range sortedKeys(t) {
			if ev.props[name] {
				continue
			}
			if e, _ := vd.check(n.unevalProps, t[name], child(loc, name), nil); e != nil {
				if a := n.unevalProps.always; a != nil && !*a {
					e = &vError{loc: loc, kind: kAdditionalProperties{properties: []string{name}, declared: n.declared}}
				}
				*errs = append(*errs, e)
			}
			if ev.props == nil {
				ev.props = map[string]bool{}
			}
			ev.props[name] = true
		}
	case []any:
		if n.unevalItems == nil || ev.allItems {
			return
		}
		for i := ev.items; i < len(t); i++ {
			if e, _ := vd.check(n.unevalItems, t[i], child(loc, strconv.Itoa(i)), nil); e != nil {
				*errs = append(*errs, e)
			}
		}
		ev.allItems = true
	}
}

func findMissing(obj map[string]any, required []string) []string {
	var missing []string
	for _, r := range required {
		if _, ok := obj[r]; !ok {
			missing = append(missing, r)
		}
	}
	return missing
}

func sortedKeys[V any](m map[string]V) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// typeOf is an instance's JSON type ("number" for every number).
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "unknown"
}

func isInteger(v any) bool {
	r := number(v)
	return r != nil && r.IsInt()
}

// equal is JSON equality: numbers by value, objects regardless of order.
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		rx, ry := number(x), number(b)
		return rx != nil && ry != nil && rx.Cmp(ry) == 0
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	}
	return false
}

// duplicates returns the first pair of equal items, (-1, -1) when none.
func duplicates(arr []any) (int, int) {
	if len(arr) <= 20 {
		for i := 1; i < len(arr); i++ {
			for j := 0; j < i; j++ {
				if equal(arr[i], arr[j]) {
					return j, i
				}
			}
		}
		return -1, -1
	}
	seen := make(map[string]int, len(arr))
	for i, v := range arr {
		key := canonical(v)
		if j, ok := seen[key]; ok {
			return j, i
		}
		seen[key] = i
	}
	return -1, -1
}

// canonical is a text that two values share exactly when they are equal
// as JSON: keys sorted, numbers by value.
func canonical(v any) string {
	var b []byte
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case map[string]any:
			b = append(b, '{')
			for _, k := range sortedKeys(t) {
				b = strconv.AppendQuote(b, k)
				b = append(b, ':')
				walk(t[k])
				b = append(b, ',')
			}
			b = append(b, '}')
		case []any:
			b = append(b, '[')
			for _, x := range t {
				walk(x)
				b = append(b, ',')
			}
			b = append(b, ']')
		case json.Number:
			if r := number(t); r != nil {
				b = append(b, 'n')
				b = append(b, r.RatString()...)
			} else {
				b = append(b, string(t)...)
			}
		case string:
			b = strconv.AppendQuote(b, t)
		case bool:
			b = strconv.AppendBool(b, t)
		case nil:
			b = append(b, "null"...)
		}
	}
	walk(v)
	return string(b)
}
