package argcheck

import (
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// flattenValidation turns the library's error tree into problems at
// instance paths, summarizing anyOf/oneOf branches.
func flattenValidation(ve *jsonschema.ValidationError, doc any) []problem {
	var out []problem
	var visit func(e *jsonschema.ValidationError)
	visit = func(e *jsonschema.ValidationError) {
		switch k := e.ErrorKind.(type) {
		case *kind.AnyOf:
			out = append(out, alternatives(e, "anyOf"))
			return
		case *kind.OneOf:
			if len(k.Subschemas) == 0 {
				out = append(out, alternatives(e, "oneOf"))
			} else {
				out = append(out, problem{pointer(e.InstanceLocation), "matches more than one of the allowed alternatives (oneOf)"})
			}
			return
		}
		if len(e.Causes) == 0 {
			out = append(out, leafProblems(e, doc)...)
			return
		}
		for _, c := range e.Causes {
			visit(c)
		}
	}
	visit(ve)
	return out
}

// alternatives summarizes a failed anyOf/oneOf: when every branch failed
// only on its type, it says which types are allowed.
func alternatives(e *jsonschema.ValidationError, keyword string) problem {
	var want []string
	got := ""
	onlyTypes := len(e.Causes) > 0
	for _, c := range e.Causes {
		leaves := leafErrors(c)
		if len(leaves) != 1 {
			onlyTypes = false
			break
		}
		t, ok := leaves[0].ErrorKind.(*kind.Type)
		if !ok || !slices.Equal(leaves[0].InstanceLocation, e.InstanceLocation) {
			onlyTypes = false
			break
		}
		want = append(want, t.Want...)
		got = t.Got
	}
	path := pointer(e.InstanceLocation)
	if onlyTypes {
		return problem{path, fmt.Sprintf("expected %s, got %s", strings.Join(slices.Compact(want), " or "), got)}
	}
	return problem{path, fmt.Sprintf("does not match any of the allowed alternatives (%s)", keyword)}
}

func leafErrors(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if len(e.Causes) == 0 {
		return []*jsonschema.ValidationError{e}
	}
	var out []*jsonschema.ValidationError
	for _, c := range e.Causes {
		out = append(out, leafErrors(c)...)
	}
	return out
}

// leafProblems words one validation failure.
func leafProblems(e *jsonschema.ValidationError, doc any) []problem {
	loc := e.InstanceLocation
	at := pointer(loc)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		var out []problem
		for _, m := range k.Missing {
			out = append(out, problem{pointer(child(loc, m)), "required property missing"})
		}
		return out
	case *kind.DependentRequired:
		var out []problem
		for _, m := range k.Missing {
			out = append(out, problem{pointer(child(loc, m)), fmt.Sprintf("required when %q is present", k.Prop)})
		}
		return out
	case *kind.Dependency:
		var out []problem
		for _, m := range k.Missing {
			out = append(out, problem{pointer(child(loc, m)), fmt.Sprintf("required when %q is present", k.Prop)})
		}
		return out
	case *kind.AdditionalProperties:
		declared := declaredProperties(doc, e.SchemaURL)
		var out []problem
		for _, p := range k.Properties {
			msg := fmt.Sprintf("unknown property %q", p)
			if best := Closest(p, declared, 1); len(best) > 0 {
				msg += fmt.Sprintf(" (did you mean %q?)", best[0])
			}
			out = append(out, problem{pointer(child(loc, p)), msg})
		}
		return out
	case *kind.Type:
		return []problem{{at, fmt.Sprintf("expected %s, got %s", strings.Join(k.Want, " or "), k.Got)}}
	case *kind.Enum:
		want := make([]string, 0, len(k.Want))
		for i, w := range k.Want {
			if i == 10 {
				want = append(want, fmt.Sprintf("… (%d more)", len(k.Want)-10))
				break
			}
			want = append(want, jsonText(w))
		}
		return []problem{{at, fmt.Sprintf("must be one of %s, got %s", strings.Join(want, ", "), jsonText(k.Got))}}
	case *kind.Const:
		return []problem{{at, fmt.Sprintf("must be %s, got %s", jsonText(k.Want), jsonText(k.Got))}}
	case *kind.FalseSchema:
		return []problem{{at, "is not allowed here"}}
	case *kind.MinLength:
		return []problem{{at, fmt.Sprintf("must be at least %d characters long, got %d", k.Want, k.Got)}}
	case *kind.MaxLength:
		return []problem{{at, fmt.Sprintf("must be at most %d characters long, got %d", k.Want, k.Got)}}
	case *kind.Pattern:
		return []problem{{at, fmt.Sprintf("must match the pattern %s", k.Want)}}
	case *kind.Minimum:
		return []problem{{at, fmt.Sprintf("must be at least %s, got %s", ratText(k.Want), ratText(k.Got))}}
	case *kind.Maximum:
		return []problem{{at, fmt.Sprintf("must be at most %s, got %s", ratText(k.Want), ratText(k.Got))}}
	case *kind.ExclusiveMinimum:
		return []problem{{at, fmt.Sprintf("must be greater than %s, got %s", ratText(k.Want), ratText(k.Got))}}
	case *kind.ExclusiveMaximum:
		return []problem{{at, fmt.Sprintf("must be less than %s, got %s", ratText(k.Want), ratText(k.Got))}}
	case *kind.MultipleOf:
		return []problem{{at, fmt.Sprintf("must be a multiple of %s, got %s", ratText(k.Want), ratText(k.Got))}}
	case *kind.MinItems:
		return []problem{{at, fmt.Sprintf("must have at least %d items, got %d", k.Want, k.Got)}}
	case *kind.MaxItems:
		return []problem{{at, fmt.Sprintf("must have at most %d items, got %d", k.Want, k.Got)}}
	case *kind.UniqueItems:
		return []problem{{at, fmt.Sprintf("items %d and %d are equal; items must be unique", k.Duplicates[0], k.Duplicates[1])}}
	case *kind.MinProperties:
		return []problem{{at, fmt.Sprintf("must have at least %d properties, got %d", k.Want, k.Got)}}
	case *kind.MaxProperties:
		return []problem{{at, fmt.Sprintf("must have at most %d properties, got %d", k.Want, k.Got)}}
	case *kind.PropertyNames:
		return []problem{{pointer(child(loc, k.Property)), "property name is not allowed"}}
	case *kind.AdditionalItems:
		return []problem{{at, fmt.Sprintf("has %d more items than allowed", k.Count)}}
	case *kind.Not:
		return []problem{{at, "matches a shape that is not allowed (not)"}}
	case *kind.Contains:
		return []problem{{at, "has no item of the required shape (contains)"}}
	}
	kw := strings.Join(e.ErrorKind.KeywordPath(), "/")
	if kw == "" {
		kw = "schema"
	}
	return []problem{{at, "does not satisfy " + kw}}
}

// declaredProperties finds the properties of the schema object whose
// additionalProperties keyword failed, when it lies in the input schema.
func declaredProperties(doc any, schemaURL string) []string {
	_, frag, ok := strings.Cut(schemaURL, "#")
	if !ok || !strings.HasPrefix(schemaURL, inputSchemaURL) {
		return nil
	}
	frag = strings.TrimSuffix(frag, "/additionalProperties")
	node := doc
	for _, tok := range strings.Split(strings.TrimPrefix(frag, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			node = n[tok]
		case []any:
			var i int
			if _, err := fmt.Sscan(tok, &i); err != nil || i < 0 || i >= len(n) {
				return nil
			}
			node = n[i]
		default:
			return nil
		}
	}
	m, _ := node.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
