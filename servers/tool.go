package servers

import (
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
