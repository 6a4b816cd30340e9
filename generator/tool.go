package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// parsedTool is one tool of a tools/list result, read leniently.
type parsedTool struct {
	name        string
	title       string // tool.title, else annotations.title
	description string
	input       *value // nil when absent
	output      *value // nil when absent or null
	hints       hints
	hash        string // sha256 of the compacted raw JSON
}

// hints are the tool annotations; nil means the server did not say.
type hints struct {
	readOnly, destructive, idempotent, openWorld *bool
}

// parseTool reads one raw tool object. ok is false when the tool cannot be
// generated at all (not JSON, not an object, no string name); otherwise
// fields of the wrong type are ignored with a warning.
func parseTool(raw json.RawMessage) (t parsedTool, warnings []string, ok bool) {
	var compact bytes.Buffer
	sum := sha256.Sum256(raw)
	if json.Compact(&compact, raw) == nil {
		sum = sha256.Sum256(compact.Bytes())
	}
	t.hash = hex.EncodeToString(sum[:])

	v, err := decodeValue(raw)
	if err != nil {
		return t, []string{fmt.Sprintf("tool is not valid JSON (%v); skipped", err)}, false
	}
	if v.kind != jsonObject {
		return t, []string{fmt.Sprintf("tool is a JSON %s, not an object; skipped", kindName(v.kind))}, false
	}
	name, isString := v.get("name").str()
	if !isString {
		return t, []string{"tool has no string \"name\"; skipped"}, false
	}
	t.name = name
	text := func(obj *value, key string) string {
		f := obj.get(key)
		if f == nil || f.kind == jsonNull {
			return ""
		}
		s, isStr := f.str()
		if !isStr {
			warnings = append(warnings, fmt.Sprintf("%q is a JSON %s, not a string; ignored", key, kindName(f.kind)))
		}
		return s
	}
	t.description = text(v, "description")
	t.title = text(v, "title")
	if in := v.get("inputSchema"); in == nil {
		warnings = append(warnings, "tool has no inputSchema; its input is typed as an open object")
	} else {
		t.input = in
	}
	if out := v.get("outputSchema"); out != nil && out.kind != jsonNull {
		t.output = out
	}
	if a := v.get("annotations"); a != nil && a.kind != jsonNull {
		if a.kind != jsonObject {
			warnings = append(warnings, "\"annotations\" is not an object; ignored")
		} else {
			if t.title == "" {
				t.title = text(a, "title")
			}
			t.hints = hints{
				readOnly:    a.getBool("readOnlyHint"),
				destructive: a.getBool("destructiveHint"),
				idempotent:  a.getBool("idempotentHint"),
				openWorld:   a.getBool("openWorldHint"),
			}
		}
	}
	return t, warnings, true
}
