package generator

import "strings"

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
	lines := commentLines(strings.TrimSpace(text))
	tags := schemaTags(s)
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
		if v := s.get(key); v != nil && (v.kind == jsonNumber || v.kind == jsonBool) {
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
