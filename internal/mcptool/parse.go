package mcptool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Parse reads one raw tool definition leniently. The error says why the
// tool cannot be used at all (not JSON, not an object, no string name);
// fields of the wrong type are ignored with a warning instead.
func Parse(raw json.RawMessage) (Tool, []string, error) {
	if !json.Valid(raw) {
		var probe any
		err := json.Unmarshal(raw, &probe)
		return Tool{}, nil, fmt.Errorf("tool is not valid JSON (%v)", err)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil || fields == nil {
		return Tool{}, nil, fmt.Errorf("tool is a JSON %s, not an object", kindOf(raw))
	}
	var name string
	if json.Unmarshal(fields["name"], &name) != nil || !isString(fields["name"]) {
		return Tool{}, nil, errors.New("tool has no string \"name\"")
	}
	var warnings []string
	text := func(obj map[string]json.RawMessage, key string) string {
		v, ok := obj[key]
		if !ok || isNull(v) {
			return ""
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			warnings = append(warnings, fmt.Sprintf("%q is a JSON %s, not a string; ignored", key, kindOf(v)))
		}
		return s
	}
	t := Tool{Name: name, Raw: raw}
	t.Description = text(fields, "description")
	t.Title = text(fields, "title")
	if in, ok := fields["inputSchema"]; !ok {
		warnings = append(warnings, "tool has no inputSchema; its input is typed as an open object")
		t.InputSchema = json.RawMessage(`{}`)
	} else if isNull(in) {
		t.InputSchema = json.RawMessage(`{}`)
	} else {
		t.InputSchema = in
	}
	if out, ok := fields["outputSchema"]; ok && !isNull(out) {
		t.OutputSchema = out
	}
	if e, ok := fields["execution"]; ok && !isNull(e) {
		var exec map[string]json.RawMessage
		if json.Unmarshal(e, &exec) == nil {
			t.TaskSupport = text(exec, "taskSupport")
		}
	}
	if a, ok := fields["annotations"]; ok && !isNull(a) {
		var ann map[string]json.RawMessage
		if json.Unmarshal(a, &ann) != nil {
			warnings = append(warnings, "\"annotations\" is not an object; ignored")
		} else {
			if t.Title == "" {
				t.Title = text(ann, "title")
			}
			t.Hints = Hints{
				ReadOnly:    boolField(ann, "readOnlyHint"),
				Destructive: boolField(ann, "destructiveHint"),
				Idempotent:  boolField(ann, "idempotentHint"),
				OpenWorld:   boolField(ann, "openWorldHint"),
			}
		}
	}
	return t, warnings, nil
}

// boolField is the boolean at key, nil when absent or not a boolean.
func boolField(obj map[string]json.RawMessage, key string) *bool {
	var b bool
	if v, ok := obj[key]; ok && json.Unmarshal(v, &b) == nil && !isNull(v) {
		return &b
	}
	return nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

func isString(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '"'
}

// kindOf names the JSON type of a valid JSON value.
func kindOf(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "value"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}
