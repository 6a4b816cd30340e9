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

// forwarding is a run's Caller with the requests that upstream servers
// make during its calls (elicitation, sampling) routed to the host whose
// call started the run, and the host's answers back: by classic requests on
// the host's session (protocol revisions before 2026-07-28), or as
// input_required rounds of the host's call (2026-07-28, rounds.go). The
// pool routes each request to the handlers of the call in flight on that
// server (and declines it when calls of different runs are in flight at
// once). Notices and resources are served by pool, under the gate: they
// change nothing upstream.
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

// forwardedElicit is an upstream server's question as the host is asked
// it: said to come from that server, its form in the server's order.
func forwardedElicit(r *app.ElicitRequest) *mcp.ElicitParams {
	p := *r.Params
	p.Message = fmt.Sprintf("The MCP server %q (called by a program run through mcpcode) asks: %s", r.Server, p.Message)
	if ordered := orderedSchema(p.RequestedSchema, r.Order); ordered != nil {
		p.RequestedSchema = ordered
	}
	return &p
}

// classicHandlers forward to the host's session, as far as it can answer.
func classicHandlers(h host) *app.ClientHandlers {
	out := &app.ClientHandlers{}
	if !h.elicit {
		out.NoElicit = "the agent host cannot be asked: " + h.cannotElicit
	} else {
		out.Elicit = func(ctx context.Context, r *app.ElicitRequest) (*mcp.ElicitResult, error) {
			return h.session.Elicit(ctx, forwardedElicit(r))
		}
	}
	if !h.sample {
		out.NoSample = "the agent host cannot be asked: " + h.cannotSample
	} else {
		out.Sample = func(ctx context.Context, r *app.SampleRequest) (*mcp.CreateMessageResult, error) {
			return h.session.CreateMessage(ctx, r.Params)
		}
	}
	return out
}

// handlers forward to a modern host as rounds of its call: the run
// pauses, the host's call is answered with input_required, and the host's
// retry brings the answer. Such a round can be resumed only by this
// process (the upstream call waiting for it is in flight here).
func (run *heldRun) handlers(h host) *app.ClientHandlers {
	out := &app.ClientHandlers{}
	if !h.elicit {
		out.NoElicit = "the agent host cannot be asked: " + h.cannotElicit
	} else {
		out.Elicit = func(ctx context.Context, r *app.ElicitRequest) (*mcp.ElicitResult, error) {
			p := forwardedElicit(r)
			raw, _ := json.Marshal(p)
			resp, _, _, err := run.ask(ctx, &hostQuestion{kind: questionUpstream, request: p, binding: digest(questionUpstream, r.Server, string(raw))})
			if err != nil {
				return nil, err
			}
			res, ok := resp.(*mcp.ElicitResult)
			if !ok {
				return nil, fmt.Errorf("the host answered the question with a %T", resp)
			}
			return res, nil
		}
	}
	if !h.sample {
		out.NoSample = "the agent host cannot be asked: " + h.cannotSample
	} else {
		out.Sample = func(ctx context.Context, r *app.SampleRequest) (*mcp.CreateMessageResult, error) {
			raw, _ := json.Marshal(r.Params)
			resp, _, _, err := run.ask(ctx, &hostQuestion{kind: questionUpstream, request: r.Params, binding: digest(questionUpstream, r.Server, string(raw))})
			if err != nil {
				return nil, err
			}
			return sampled(resp)
		}
	}
	return out
}

// sampled reads a host's completion (a 2026-07-28 host answers with the
// form that may carry several content blocks).
func sampled(resp mcp.InputResponse) (*mcp.CreateMessageResult, error) {
	switch r := resp.(type) {
	case *mcp.CreateMessageResult:
		return r, nil
	case *mcp.CreateMessageWithToolsResult:
		if len(r.Content) != 1 {
			return nil, fmt.Errorf("the host answered with %d content blocks, want 1", len(r.Content))
		}
		return &mcp.CreateMessageResult{Meta: r.Meta, Content: r.Content[0], Model: r.Model, Role: r.Role, StopReason: r.StopReason}, nil
	}
	return nil, fmt.Errorf("the host answered the request with a %T", resp)
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
