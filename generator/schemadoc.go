package generator

import (
	"strconv"
	"strings"
)

// docOneLine is the longest doc comment kept on a single line.
const docOneLine = 90

// maxDocValue bounds a default or example shown in a doc comment.
const maxDocValue = 200

// schemaDoc returns the JSDoc lines for a schema: its description, then
// compact tags for default, examples, format, bounds, pattern and
// deprecation. A short description and its tags share one line. Without a
// description, the title of a property is used unless it only repeats the
// property's name key (as generated titles do); key "" never uses the title.
func schemaDoc(s *value, key string) []string {
	if !s.isObject() {
		return nil
	}
	text := s.getString("description")
	if title := s.getString("title"); strings.TrimSpace(text) == "" && key != "" && looseName(title) != looseName(key) {
		text = title
	}
	return docLines(text, schemaTags(s))
}

// branchDoc returns the JSDoc lines for one anyOf/oneOf branch, shown on its
// member of the union: its description (left out when it repeats the
// description around the union, parentDesc) and its tags.
func branchDoc(s *value, parentDesc string) []string {
	if !s.isObject() {
		return nil
	}
	text := strings.TrimSpace(s.getString("description"))
	if text == parentDesc {
		text = ""
	}
	return docLines(text, schemaTags(s))
}

// docLines lays out a description and tags: a short description and its
// tags share one line.
func docLines(text string, tags []string) []string {
	lines := commentLines(strings.TrimSpace(text))
	if len(tags) == 0 {
		return lines
	}
	joined := strings.Join(tags, " ")
	if len(lines) == 0 && len(joined) <= docOneLine {
		return []string{joined}
	}
	if len(lines) == 1 && len(lines[0])+1+len(joined) <= docOneLine {
		return []string{lines[0] + " " + joined}
	}
	return append(lines, tags...)
}

// schemaTags returns "@tag value" strings for the schema's annotations.
func schemaTags(s *value) []string {
	var tags []string
	add := func(tag, val string) {
		if val == "" {
			tags = append(tags, "@"+tag)
			return
		}
		tags = append(tags, "@"+tag+" "+oneLine(val, maxDocValue))
	}
	if b := s.getBool("deprecated"); b != nil && *b {
		add("deprecated", "")
	}
	if v := s.get("default"); v != nil {
		add("default", compactJSON(v, maxDocValue))
	}
	if ex := s.get("examples"); ex != nil && ex.kind == jsonArray {
		for i, v := range ex.items {
			if i == 3 {
				break
			}
			add("example", compactJSON(v, maxDocValue))
		}
	} else if v := s.get("example"); v != nil {
		add("example", compactJSON(v, maxDocValue))
	}
	if f := s.getString("format"); f != "" {
		add("format", f)
	}
	for _, key := range []string{"minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems"} {
		if v := s.get(key); v != nil && (v.kind == jsonNumber || v.kind == jsonBool) && !safeIntegerBound(key, v) {
			add(key, compactJSON(v, maxDocValue))
		}
	}
	if p := s.getString("pattern"); p != "" {
		add("pattern", p)
	}
	return tags
}

// looseName lowercases s and keeps only ASCII letters and digits, so
// "Page size" and "page_size" compare equal.
func looseName(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; isASCIIAlnum(c) {
			sb.WriteByte(c | 0x20)
		}
	}
	return sb.String()
}

// maxSafeInteger is Number.MAX_SAFE_INTEGER, 2^53-1.
const maxSafeInteger = 1<<53 - 1

// safeIntegerBound reports whether v, the value of key, only restates the
// safe-integer range (zod's int() writes minimum -2^53+1 and maximum
// 2^53-1): a bound every JavaScript integer meets, so not worth a tag.
func safeIntegerBound(key string, v *value) bool {
	if v.kind != jsonNumber {
		return false
	}
	f, err := strconv.ParseFloat(v.text, 64)
	if err != nil {
		return false
	}
	switch key {
	case "minimum", "exclusiveMinimum":
		return f == -maxSafeInteger
	case "maximum", "exclusiveMaximum":
		return f == maxSafeInteger
	}
	return false
}
