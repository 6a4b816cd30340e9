package argcheck

import (
	"fmt"
	"slices"
	"strings"
)

// flattenValidation turns the validator's error tree into problems at
// instance paths, summarizing anyOf/oneOf branches.
func flattenValidation(ve *vError) []problem {
	var out []problem
	var visit func(e *vError)
	visit = func(e *vError) {
		switch k := e.kind.(type) {
		case kAnyOf:
			out = append(out, alternatives(e, "anyOf"))
			return
		case kOneOf:
			if len(k.matched) == 0 {
				out = append(out, alternatives(e, "oneOf"))
			} else {
				out = append(out, problem{pointer(e.loc), "matches more than one of the allowed alternatives (oneOf)"})
			}
			return
		}
		if len(e.causes) == 0 {
			out = append(out, leafProblems(e)...)
			return
		}
		for _, c := range e.causes {
			visit(c)
		}
	}
	visit(ve)
	return out
}

// alternatives summarizes a failed anyOf/oneOf: when every branch failed
// only on its type, it says which types are allowed.
func alternatives(e *vError, keyword string) problem {
	var want []string
	got := ""
	onlyTypes := len(e.causes) > 0
	for _, c := range e.causes {
		leaves := leafErrors(c)
		if len(leaves) != 1 {
			onlyTypes = false
			break
		}
		t, ok := leaves[0].kind.(kType)
		if !ok || !slices.Equal(leaves[0].loc, e.loc) {
			onlyTypes = false
			break
		}
		want = append(want, t.want...)
		got = t.got
	}
	path := pointer(e.loc)
	if onlyTypes {
		return problem{path, fmt.Sprintf("expected %s, got %s", strings.Join(slices.Compact(want), " or "), got)}
	}
	return problem{path, fmt.Sprintf("does not match any of the allowed alternatives (%s)", keyword)}
}

func leafErrors(e *vError) []*vError {
	if len(e.causes) == 0 {
		return []*vError{e}
	}
	var out []*vError
	for _, c := range e.causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}

// leafProblems words one validation failure.
func leafProblems(e *vError) []problem {
	loc := e.loc
	at := pointer(loc)
	switch k := e.kind.(type) {
	case kRequired:
		var out []problem
		for _, m := range k.missing {
			out = append(out, problem{pointer(child(loc, m)), "required property missing"})
		}
		return out
	case kDependentRequired:
		var out []problem
		for _, m := range k.missing {
			out = append(out, problem{pointer(child(loc, m)), fmt.Sprintf("required when %q is present", k.prop)})
		}
		return out
	case kAdditionalProperties:
		var out []problem
		for _, p := range k.properties {
			msg := fmt.Sprintf("unknown property %q", p)
			if best := Closest(p, k.declared, 1); len(best) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", best[0])
			}
			out = append(out, problem{pointer(child(loc, p)), msg})
		}
		return out
	case kType:
		return []problem{{at, fmt.Sprintf("expected %s, got %s", strings.Join(k.want, " or "), k.got)}}
	case kEnum:
		want := make([]string, 0, len(k.want))
		for i, w := range k.want {
			if i == 10 {
				want = append(want, fmt.Sprintf("… (%d more)", len(k.want)-10))
				break
			}
			want = append(want, jsonText(w))
		}
		return []problem{{at, fmt.Sprintf("must be one of %s, got %s", strings.Join(want, ", "), jsonText(k.got))}}
	case kConst:
		return []problem{{at, fmt.Sprintf("must be %s, got %s", jsonText(k.want), jsonText(k.got))}}
	case kFalseSchema:
		return []problem{{at, "is not allowed here"}}
	case kMinLength:
		return []problem{{at, fmt.Sprintf("must be at least %d characters long, got %d", k.want, k.got)}}
	case kMaxLength:
		return []problem{{at, fmt.Sprintf("must be at most %d characters long, got %d", k.want, k.got)}}
	case kPattern:
		return []problem{{at, fmt.Sprintf("must match the pattern %s", k.want)}}
	case kMinimum:
		return []problem{{at, fmt.Sprintf("must be at least %s, got %s", ratText(k.want), ratText(k.got))}}
	case kMaximum:
		return []problem{{at, fmt.Sprintf("must be at most %s, got %s", ratText(k.want), ratText(k.got))}}
	case kExclusiveMinimum:
		return []problem{{at, fmt.Sprintf("must be greater than %s, got %s", ratText(k.want), ratText(k.got))}}
	case kExclusiveMaximum:
		return []problem{{at, fmt.Sprintf("must be less than %s, got %s", ratText(k.want), ratText(k.got))}}
	case kMultipleOf:
		return []problem{{at, fmt.Sprintf("must be a multiple of %s, got %s", ratText(k.want), ratText(k.got))}}
	case kMinItems:
		return []problem{{at, fmt.Sprintf("must have at least %d items, got %d", k.want, k.got)}}
	case kMaxItems:
		return []problem{{at, fmt.Sprintf("must have at most %d items, got %d", k.want, k.got)}}
	case kUniqueItems:
		return []problem{{at, fmt.Sprintf("items %d and %d are equal; items must be unique", k.i, k.j)}}
	case kMinProperties:
		return []problem{{at, fmt.Sprintf("must have at least %d properties, got %d", k.want, k.got)}}
	case kMaxProperties:
		return []problem{{at, fmt.Sprintf("must have at most %d properties, got %d", k.want, k.got)}}
	case kPropertyNames:
		return []problem{{pointer(child(loc, k.property)), "property name is not allowed"}}
	case kAdditionalItems:
		return []problem{{at, fmt.Sprintf("has %d more items than allowed", k.count)}}
	case kNot:
		return []problem{{at, "matches a shape that is not allowed (not)"}}
	case kContains:
		return []problem{{at, "has no item of the required shape (contains)"}}
	case kMinContains:
		return []problem{{at, fmt.Sprintf("must have at least %d items of the required shape (minContains), got %d", k.want, k.got)}}
	case kMaxContains:
		return []problem{{at, fmt.Sprintf("must have at most %d items of the required shape (maxContains), got %d", k.want, k.got)}}
	case kRefCycle:
		return []problem{{at, "does not satisfy $ref (the schema refers to itself without end)"}}
	}
	return []problem{{at, "does not satisfy the schema"}}
}
