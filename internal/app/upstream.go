package app

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
)

// ClientHandlers answer the requests upstream servers make while they serve
// a tool call: elicitation (a question for the person) and sampling (a
// completion from a model). Faces provide them: the CLI asks the person in
// the terminal; `mcpcode serve` forwards to the agent host of the run.
type ClientHandlers = servers.ClientHandlers

// ElicitRequest is an upstream server's question for the person.
type ElicitRequest = servers.ElicitRequest

// SampleRequest is an upstream server's request for a model's completion.
type SampleRequest = servers.SampleRequest

// WithClientHandlers returns ctx carrying the handlers that answer what
// servers ask during the tool calls made with it. A request is routed to
// the handlers of the call in flight on that server; when calls carrying
// different handlers are in flight at once it is declined.
func WithClientHandlers(ctx context.Context, h *ClientHandlers) context.Context {
	return servers.WithClientHandlers(ctx, h)
}

// upstreamCaller is a run's Caller with the runtime's optional interfaces
// (notices, resources) served by the Caller under the run's wrappers (the
// pool, or serve's caller). The wrappers (audit, recording, privacy) see
// only tool calls; notices and resources bypass them, so they are offered
// only when no wrapper changes or records what servers send: notices
// without privacy tokenization or a replay, resources without those nor a
// recording (a replay could not answer them).
type upstreamCaller struct {
	mcptool.Caller
	base      mcptool.Caller
	notices   bool
	resources string          // why resources are not offered; "" when they are
	audit     *audit.Recorder // records resource reads as the run's calls (nil: not recorded)
}

var (
	_ runtime.NoticeDeliverer = (*upstreamCaller)(nil)
	_ runtime.ResourceReader  = (*upstreamCaller)(nil)
)

// withUpstream wraps a run's outermost Caller; base is the Caller under
// the run's wrappers; privacy says why the run's privacy session would be
// bypassed ("" without one: privacyTokenizes, privacyFlows); rec, when
// set, records the resource reads.
func withUpstream(outer, base mcptool.Caller, req RunRequest, privacy string, rec *audit.Recorder) mcptool.Caller {
	u := &upstreamCaller{Caller: outer, base: base, audit: rec}
	if d, ok := base.(runtime.NoticeDeliverer); ok && d.DeliversNotices() && privacy == "" && req.Replay == nil {
		u.notices = true
	}
	switch _, ok := base.(runtime.ResourceReader); {
	case !ok:
		u.resources = "its caller does not pass resources on"
	case privacy != "":
		u.resources = privacy
	case req.Replay != nil || req.Record != nil:
		u.resources = "a recorded or replayed run has only tool calls"
	}
	return u
}

// Why resources would bypass a run's privacy session.
const (
	privacyTokenizes = "the workspace's privacy mode tokenizes what servers send, and resources are not tokenized yet"
	privacyFlows     = "the workspace's privacy flow rules check what tool calls send and learn where values come from, and resource reads are not checked yet"
)

func (u *upstreamCaller) DeliversNotices() bool { return u.notices }

func (u *upstreamCaller) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	if u.resources != "" {
		return nil, errors.New("listResources is not available in this run: " + u.resources)
	}
	list := func() (json.RawMessage, error) { return u.base.(runtime.ResourceReader).ListResources(ctx, server) }
	if u.audit == nil {
		return list()
	}
	return u.audit.Resource(ctx, server, audit.OpListResources, "", list)
}

func (u *upstreamCaller) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	if u.resources != "" {
		return nil, errors.New("readResource is not available in this run: " + u.resources)
	}
	read := func() (json.RawMessage, error) { return u.base.(runtime.ResourceReader).ReadResource(ctx, server, uri) }
	if u.audit == nil {
		return read()
	}
	return u.audit.Resource(ctx, server, audit.OpReadResource, uri, read)
}
