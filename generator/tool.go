package generator

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// parsedTool is one tool of a tools/list result, read leniently: the shared
// tool contract plus the schemas as ordered JSON values.
type parsedTool struct {
	mcptool.Tool
	input  *value // nil when absent (or once the tool is rendered)
	output *value // nil when absent or null (or once the tool is rendered)
	// hasOutput: the tool has an output schema.
	hasOutput bool
	hash      string // sha256 of the compacted raw JSON
}

// parseTool reads one raw tool object. ok is false when the tool cannot be
// generated at all (not JSON, not an object, no string name); otherwise
// fields of the wrong type are ignored with a warning. pre, when not nil,
// is raw as mcptool.Parse read it already: used when its Raw is raw itself
// (the same bytes in memory, so Parse accepted them), else raw is parsed.
func parseTool(raw json.RawMessage, pre *ParsedTool) (t parsedTool, warnings []string, ok bool) {
	var tool mcptool.Tool
	if pre != nil && len(raw) > 0 && len(pre.Tool.Raw) == len(raw) && &pre.Tool.Raw[0] == &raw[0] {
		tool, warnings = pre.Tool, pre.Warnings
	} else {
		var err error
		if tool, warnings, err = mcptool.Parse(raw); err != nil {
			return t, []string{err.Error() + "; skipped"}, false
		}
	}
	// Parse accepted it: raw is valid JSON.
	t.hash = compactHash(raw)
	t.Tool = tool
	v := decodeValid(raw)
	t.input = v.get("inputSchema")
	if out := v.get("outputSchema"); out != nil && out.kind != jsonNull {
		t.output = out
		t.hasOutput = true
	}
	return t, warnings, true
}

// compactHash is the hex sha256 of valid JSON compacted as json.Compact
// compacts it (the whitespace between tokens dropped); JSON that has none
// is hashed as it is.
func compactHash(raw []byte) string {
	var sum [sha256.Size]byte
	if compact, ok := compactValid(raw); ok {
		sum = sha256.Sum256(compact)
	} else {
		sum = sha256.Sum256(raw)
	}
	return hex.EncodeToString(sum[:])
}

// compactValid drops the whitespace between the tokens of valid JSON; ok
// is false when there is none (raw is compact as it is).
func compactValid(raw []byte) (compact []byte, ok bool) {
	inString, escaped := false, false
	start := 0
	for i, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if compact == nil {
				compact = make([]byte, 0, len(raw))
			}
			compact = append(compact, raw[start:i]...)
			start = i + 1
		}
	}
	if compact == nil {
		return nil, false
	}
	return append(compact, raw[start:]...), true
}
