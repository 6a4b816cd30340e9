package app

import (
	"context"

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
