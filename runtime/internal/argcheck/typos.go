package argcheck

import (
	"fmt"
	"slices"
	"strings"
)

// typoWalker finds properties that look like misspellings of declared
// properties that were not passed, even where the schema allows additional
// properties; where it forbids them, it reports every unknown property with
// the closest declared name.
type typoWalker struct {
	root map[string]any
	add  func(problem)
}

// maxTypoItems bounds how many array items are checked for typos.
const maxTypoItems = 100

func (w typoWalker) walk(schema map[string]any, inst any, loc []string, depth int) {
	if depth > 32 || schema == nil {
		return
	}
	if ref, ok := schema["$ref"].(string); ok && strings.HasPrefix(ref, "#/") {
		if target := w.resolve(ref); target != nil {
			w.walk(target, inst, loc, depth+1)
		}
	}
	switch v := inst.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		if props == nil {
			return
		}
		closed := schema["additionalProperties"] == false
		var notPassed, declared []string
		for name := range props {
			declared = append(declared, name)
			if _, ok := v[name]; !ok {
				notPassed = append(notPassed, name)
			}
		}
		slices.Sort(declared)
		slices.Sort(notPassed)
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub, known := props[k]
			if known {
				if m, ok := sub.(map[string]any); ok {
					w.walk(m, v[k], child(loc, k), depth+1)
				}
				continue
			}
			if matchesPattern(schema, k) {
				continue // a patternProperties name, not a typo
			}
			var typo string
			for _, d := range notPassed {
				if likelyTypo(k, d) && (typo == "" || editDistance(k, d) < editDistance(k, typo)) {
					typo = d
				}
			}
			switch {
			case typo != "":
				w.add(problem{pointer(child(loc, k)), fmt.Sprintf("unknown property %q (did you mean %q?)", k, typo)})
			case closed:
				msg := fmt.Sprintf("unknown property %q", k)
				if best := Closest(k, declared, 1); len(best) > 0 {
					msg += fmt.Sprintf(" (did you mean %q?)", best[0])
				}
				w.add(problem{pointer(child(loc, k)), msg})
			}
		}
	case []any:
		items, _ := schema["items"].(map[string]any)
		for i := 0; items != nil && i < len(v) && i < maxTypoItems; i++ {
			w.walk(items, v[i], child(loc, fmt.Sprint(i)), depth+1)
		}
	}
}

// resolve follows a local JSON pointer $ref within the root schema.
func (w typoWalker) resolve(ref string) map[string]any {
	var node any = w.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[tok]
	}
	m, _ := node.(map[string]any)
	return m
}

// matchesPattern reports whether name matches one of the schema's
// patternProperties.
func matchesPattern(schema map[string]any, name string) bool {
	pats, _ := schema["patternProperties"].(map[string]any)
	for p := range pats {
		if lenientRegexp(p).MatchString(name) {
			return true
		}
	}
	return false
}
