package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpcode/mcpcode/runtime"
)

// Caller returns the pool as the runtime's ToolCaller: programs' tool calls
// go to the real upstream servers, each connected on its first use.
func (p *Pool) Caller() runtime.ToolCaller { return poolCaller{p} }

type poolCaller struct{ p *Pool }

func (c poolCaller) Tools(ctx context.Context, server string) ([]runtime.ToolInfo, error) {
	l, err := c.p.Connect(ctx, server)
	if errors.Is(err, ErrUnknownServer) {
		return nil, fmt.Errorf("%w: %s", runtime.ErrUnknownServer, errorText(err))
	}
	if err != nil {
		return nil, err
	}
	out := make([]runtime.ToolInfo, len(l.Tools))
	for i, t := range l.Tools {
		out[i] = runtime.ToolInfo{Name: t.Name, InputSchema: t.InputSchema, HasOutputSchema: t.HasOutputSchema, ReadOnly: t.Hints.IsReadOnly()}
	}
	return out, nil
}

func (c poolCaller) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*runtime.ToolResult, error) {
	res, err := c.p.CallTool(ctx, server, tool, args)
	if err != nil {
		return nil, err
	}
	return &runtime.ToolResult{Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}, nil
}

// errorText is the error without the sentinel's own words in front.
func errorText(err error) string {
	s := err.Error()
	if p := ErrUnknownServer.Error() + " "; len(s) > len(p) && s[:len(p)] == p {
		return s[len(p):]
	}
	return s
}

var _ runtime.ToolCaller = poolCaller{}
