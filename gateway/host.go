package gateway

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernVersion is the first protocol revision without server-to-client
// requests during a call: a server that needs the person answers the call
// with input_required (multi round-trip requests, MRTR) and the host
// retries it with the answers.
const modernVersion = "2026-07-28"

// host is what the gateway knows about the agent host of one tool call:
// which protocol revision the call speaks and what the host can be asked.
type host struct {
	// modern is set for a call on revision 2026-07-28 or later: the host is
	// asked through input_required rounds.
	modern bool
	// session is the host's session for classic (server-to-client)
	// requests; nil where there is none to ask (modern calls, stateless
	// HTTP).
	session *mcp.ServerSession
	// elicit and sample say whether the host can be asked a question or a
	// completion; cannot says why not, for the message a program gets.
	elicit, sample bool
	cannotElicit   string
	cannotSample   string
	// client is the host's name, for the audit log.
	client string
}

// hostOf describes the host of a tool call. stateless is set when the
// gateway serves stateless HTTP, where a classic host cannot be sent
// requests.
func hostOf(req *mcp.CallToolRequest, stateless bool) host {
	h := host{session: req.Session}
	if info := req.ClientInfo(); info != nil {
		h.client = info.Name
	}
	caps := req.ClientCapabilities()
	if req.ProtocolVersion() >= modernVersion {
		h.modern, h.session = true, nil
		h.elicit = caps != nil && formElicitation(caps.Elicitation)
		h.sample = caps != nil && caps.Sampling != nil
		if !h.elicit {
			h.cannotElicit = "it did not declare the elicitation capability (form mode)"
		}
		if !h.sample {
			h.cannotSample = "it did not declare the sampling capability"
		}
		return h
	}
	if stateless || req.Session == nil {
		h.session = nil
		h.cannotElicit = "this connection is stateless: the server cannot send it requests"
		h.cannotSample = h.cannotElicit
		return h
	}
	switch {
	case caps == nil:
		h.cannotElicit, h.cannotSample = "it declared no capabilities", "it declared no capabilities"
		return h
	case !formElicitation(caps.Elicitation):
		h.cannotElicit = "it does not support MCP elicitation (form mode)"
	default:
		h.elicit = true
	}
	if caps.Sampling == nil {
		h.cannotSample = "it does not support MCP sampling"
	} else {
		h.sample = true
	}
	return h
}

// formElicitation reports whether a host can be asked to fill in a form:
// it declared form mode, or elicitation with no mode (which means form).
func formElicitation(c *mcp.ElicitationCapabilities) bool {
	return c != nil && (c.Form != nil || c.URL == nil)
}
