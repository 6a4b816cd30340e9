package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// shapedResult is a tool's answer as the program will see it: JSON text
// that the VM turns into real JS values (jsonToValue).
type shapedResult struct {
	// value is the JSON of the resolved value (success), or of the
	// ToolResult attached to a ToolError of kind "tool".
	value []byte
	// failed marks an IsError result; message is its text.
	failed  bool
	message string
}

// shapeToolResult turns a server's answer into what callMCPTool resolves
// to: the structured content for tools with an output schema (or the text
// parsed as JSON, when a sloppy server sent no structured content);
// otherwise a ToolResult object {content, text, data?, structuredContent?}.
func shapeToolResult(info mcptool.Tool, res *mcptool.Result) (shapedResult, error) {
	// Structured content is checked when the VM builds its value
	// (settleCall), so a large result is scanned once.
	structured := bytes.TrimSpace(res.StructuredContent)
	if string(structured) == "null" {
		structured = nil
	}
	if info.HasOutputSchema() && res.StructuredSuffices() {
		// What the program gets: the text copy (as large, for a table) is
		// neither decoded nor checked, nor even relayed to a worker
		// (perform asks the caller for structured content alone).
		return shapedResult{value: structured}, nil
	}
	content := bytes.TrimSpace(res.Content)
	if len(content) == 0 || string(content) == "null" {
		content = []byte("[]")
	}
	// Content is checked by decoding it.
	text, err := contentText(content)
	if err != nil {
		return shapedResult{}, err
	}
	textIsJSON := json.Valid([]byte(text)) && strings.TrimSpace(text) != ""

	if res.IsError {
		msg := strings.TrimSpace(text)
		if msg == "" {
			msg = "the tool reported an error without a message"
		}
		return shapedResult{value: toolResultJSON(content, text, textIsJSON, structured), failed: true, message: msg}, nil
	}
	if info.HasOutputSchema() && textIsJSON {
		return shapedResult{value: []byte(text)}, nil
	}
	return shapedResult{value: toolResultJSON(content, text, textIsJSON, structured)}, nil
}

// contentText joins the text blocks of content with "\n".
func contentText(content []byte) (string, error) {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(content, &blocks); err != nil {
		return "", fmt.Errorf("the server sent content that is not an array of content blocks: %v", err)
	}
	var texts []string
	for _, b := range blocks {
		if b.Type == "text" {
			texts = append(texts, b.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// toolResultJSON builds the ToolResult object's JSON from parts that are
// already valid JSON.
func toolResultJSON(content []byte, text string, textIsJSON bool, structured []byte) []byte {
	var b bytes.Buffer
	quoted, _ := json.Marshal(text)
	b.Grow(len(content) + 2*len(quoted) + len(structured) + 64)
	b.WriteString(`{"content":`)
	b.Write(content)
	b.WriteString(`,"text":`)
	b.Write(quoted)
	if textIsJSON {
		b.WriteString(`,"data":`)
		b.WriteString(text)
	}
	if len(structured) > 0 {
		b.WriteString(`,"structuredContent":`)
		b.Write(structured)
	}
	b.WriteString("}")
	return b.Bytes()
}
