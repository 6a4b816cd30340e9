package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// parsedTool is one tool of a tools/list result, read leniently: the shared
// tool contract plus the schemas as ordered JSON values.
type parsedTool struct {
	mcptool.Tool
	input  *value // nil when absent
	output *value // nil when absent or null
	hash   string // sha256 of the compacted raw JSON
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

	tool, warnings, err := mcptool.Parse(raw)
	if err != nil {
		return t, []string{err.Error() + "; skipped"}, false
	}
	t.Tool = tool
	v, err := decodeValue(raw)
	if err != nil { // Parse accepted it, so this does not happen
		return t, []string{"tool is not valid JSON; skipped"}, false
	}
	t.input = v.get("inputSchema")
	if out := v.get("outputSchema"); out != nil && out.kind != jsonNull {
		t.output = out
	}
	return t, warnings, true
}
