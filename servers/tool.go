package servers

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one tool of an upstream server: its raw definition as the server
// sent it (property order intact) and the fields mcpcode acts on.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	Raw         json.RawMessage `json:"-"`
	// InputSchema is the raw input schema ("{}" when the server sent none).
	InputSchema     json.RawMessage `json:"-"`
	HasOutputSchema bool            `json:"hasOutputSchema"`
	Hints           Hints           `json:"hints"`
}

// Hints are the tool's annotations. Nil means the server did not say.
type Hints struct {
	ReadOnly    *bool `json:"readOnly,omitempty"`
	Destructive *bool `json:"destructive,omitempty"`
	Idempotent  *bool `json:"idempotent,omitempty"`
	OpenWorld   *bool `json:"openWorld,omitempty"`
}

// IsReadOnly reports whether the server declared the tool read-only.
func (h Hints) IsReadOnly() bool { return h.ReadOnly != nil && *h.ReadOnly }

// SafeToRetry reports whether calling the tool twice does no harm (read-only
// or idempotent), which is when a call lost with its connection is retried.
func (h Hints) SafeToRetry() bool {
	return h.IsReadOnly() || (h.Idempotent != nil && *h.Idempotent)
}

// FirstLine returns the first line of the description, trimmed.
func (t Tool) FirstLine() string {
	line, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
	return strings.TrimSpace(line)
}

// parseTool reads the fields mcpcode needs from a raw tool definition.
func parseTool(raw json.RawMessage) (Tool, error) {
	var w struct {
		Name         string          `json:"name"`
		Title        string          `json:"title"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
		Annotations  *struct {
			Title           string `json:"title"`
			ReadOnlyHint    *bool  `json:"readOnlyHint"`
			DestructiveHint *bool  `json:"destructiveHint"`
			IdempotentHint  *bool  `json:"idempotentHint"`
			OpenWorldHint   *bool  `json:"openWorldHint"`
		} `json:"annotations"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		return Tool{}, fmt.Errorf("invalid tool definition: %w", err)
	}
	if w.Name == "" {
		return Tool{}, fmt.Errorf("a tool definition has no name")
	}
	t := Tool{
		Name:            w.Name,
		Title:           w.Title,
		Description:     w.Description,
		Raw:             raw,
		InputSchema:     w.InputSchema,
		HasOutputSchema: len(w.OutputSchema) > 0 && string(w.OutputSchema) != "null",
	}
	if len(t.InputSchema) == 0 || string(t.InputSchema) == "null" {
		t.InputSchema = json.RawMessage(`{}`)
	}
	if a := w.Annotations; a != nil {
		if t.Title == "" {
			t.Title = a.Title
		}
		t.Hints = Hints{ReadOnly: a.ReadOnlyHint, Destructive: a.DestructiveHint, Idempotent: a.IdempotentHint, OpenWorld: a.OpenWorldHint}
	}
	return t, nil
}

// toolsFromSDK is the fallback when no raw listing was captured: it
// re-encodes go-sdk's decoded tools (property order is then alphabetical).
func toolsFromSDK(list []*mcp.Tool) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(list))
	for _, t := range list {
		b, err := json.Marshal(t)
		if err != nil {
			return nil, fmt.Errorf("encoding tool %q: %w", t.Name, err)
		}
		out = append(out, b)
	}
	return out, nil
}
