package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// forwardRequests returns the run's Caller with the requests that upstream
// servers make during its calls (elicitation, sampling) routed to the host
// session that started the run, and the host's answers back. The pool
// routes each request to the handlers of the call in flight on that server
// (and declines it when calls of different runs are in flight at once).
// The pool serves the runtime's optional interfaces (notices, resources)
// under the gate: they change nothing upstream.
func forwardRequests(c mcptool.Caller, pool mcptool.Caller, session *mcp.ServerSession) mcptool.Caller {
	return &forwarding{Caller: c, pool: pool, h: hostHandlers(session)}
}

type forwarding struct {
	mcptool.Caller
	pool mcptool.Caller
	h    *app.ClientHandlers
}

var (
	_ runtime.NoticeDeliverer = (*forwarding)(nil)
	_ runtime.ResourceReader  = (*forwarding)(nil)
)

func (f *forwarding) DeliversNotices() bool {
	d, ok := f.pool.(runtime.NoticeDeliverer)
	return ok && d.DeliversNotices()
}

func (f *forwarding) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	rr, ok := f.pool.(runtime.ResourceReader)
	if !ok {
		return nil, errors.New("listResources is not available: the server's pool does not read resources")
	}
	return rr.ListResources(ctx, server)
}

func (f *forwarding) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	rr, ok := f.pool.(runtime.ResourceReader)
	if !ok {
		return nil, errors.New("readResource is not available: the server's pool does not read resources")
	}
	return rr.ReadResource(ctx, server, uri)
}

func (f *forwarding) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	return f.Caller.CallTool(app.WithClientHandlers(ctx, f.h), server, tool, args)
}

// hostHandlers forward to the host session, as far as it can answer.
func hostHandlers(s *mcp.ServerSession) *app.ClientHandlers {
	h := &app.ClientHandlers{}
	if why := hostCannot(s, "elicitation"); why != "" {
		h.NoElicit = "the agent host cannot be asked: " + why
	} else {
		h.Elicit = func(ctx context.Context, r *app.ElicitRequest) (*mcp.ElicitResult, error) {
			p := *r.Params
			p.Message = fmt.Sprintf("The MCP server %q (called by a program run through mcpcode) asks: %s", r.Server, p.Message)
			if ordered := orderedSchema(p.RequestedSchema, r.Order); ordered != nil {
				p.RequestedSchema = ordered
			}
			return s.Elicit(ctx, &p)
		}
	}
	if why := hostCannot(s, "sampling"); why != "" {
		h.NoSample = "the agent host cannot be asked: " + why
	} else {
		h.Sample = func(ctx context.Context, r *app.SampleRequest) (*mcp.CreateMessageResult, error) {
			return s.CreateMessage(ctx, r.Params)
		}
	}
	return h
}

// orderedSchema re-encodes a requested schema with its properties in the
// order the upstream server sent them (the decoded map lost it), so that
// the host's form shows them as the server meant; nil when it cannot.
func orderedSchema(schema any, order []string) json.RawMessage {
	m, ok := schema.(map[string]any)
	props, ok2 := m["properties"].(map[string]any)
	if !ok || !ok2 || len(order) != len(props) {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(`{"properties":{`)
	for i, k := range order {
		v, ok := props[k]
		if !ok {
			return nil
		}
		kb, err1 := json.Marshal(k)
		vb, err2 := json.Marshal(v)
		if err1 != nil || err2 != nil {
			return nil
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != "properties" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		kb, err1 := json.Marshal(k)
		vb, err2 := json.Marshal(m[k])
		if err1 != nil || err2 != nil {
			return nil
		}
		b.WriteByte(',')
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// hostCannot says why the host of a session cannot be sent a request of
// this kind during a tool call, or "" when it can.
func hostCannot(s *mcp.ServerSession, kind string) string {
	if s == nil {
		return "this connection is stateless: the server cannot send it requests"
	}
	p := s.InitializeParams()
	switch {
	case p == nil || p.Capabilities == nil:
		return "it declared no capabilities"
	case kind == "elicitation" && p.Capabilities.Elicitation == nil:
		return "it does not support MCP elicitation"
	case kind == "sampling" && p.Capabilities.Sampling == nil:
		return "it does not support MCP sampling"
	case p.ProtocolVersion >= mrtrVersion:
		return "it speaks protocol " + p.ProtocolVersion + ", where a server asks only through multi round-trip requests, which mcpcode does not support yet"
	}
	return ""
}
