package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Answers a person can give when asked about a write.
const (
	answerOnce = "allow once"
	answerRun  = "allow for the rest of this run"
	answerDeny = "deny"
)

// maxShownArgs bounds the arguments shown in a confirmation request.
const maxShownArgs = 2000

// gate is the Caller of one run from the gateway: calls of read-only tools
// pass; calls of other tools pass only as the write policy says: asked of
// the person through the host (ask), always (allow) or never (deny). Calls
// made by an approved skill that a person granted write are not asked
// again. A refused call sends nothing: the program gets a permission
// error.
type gate struct {
	inner   mcptool.Caller
	mode    string
	session *mcp.ServerSession

	askMu    sync.Mutex // one question at a time
	mu       sync.Mutex
	allowRun bool
}

func newGate(inner mcptool.Caller, mode string, session *mcp.ServerSession) *gate {
	return &gate{inner: inner, mode: mode, session: session}
}

func (g *gate) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	return g.inner.Tools(ctx, server)
}

func (g *gate) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	if err := g.permit(ctx, server, tool, args); err != nil {
		return nil, err
	}
	return g.inner.CallTool(ctx, server, tool, args)
}

// permit decides whether a call may be sent.
func (g *gate) permit(ctx context.Context, server, tool string, args json.RawMessage) error {
	tools, err := g.inner.Tools(ctx, server)
	if err != nil {
		return err
	}
	for _, t := range tools {
		if t.Name == tool && t.Hints.IsReadOnly() {
			return nil
		}
	}
	if s, ok := mcptool.ScopeOf(ctx); ok && s.Skill != "" && s.Write {
		return nil // a person granted this skill write when approving it
	}
	switch g.mode {
	case ConfirmAllow:
		return nil
	case ConfirmDeny:
		return fmt.Errorf("%w: %s.%s is not read-only and this server refuses writes (mcpcode serve --confirm-writes deny); nothing was sent", mcptool.ErrDenied, server, tool)
	}
	g.mu.Lock()
	allowed := g.allowRun
	g.mu.Unlock()
	if allowed {
		return nil
	}
	if why := cannotElicit(g.session); why != "" {
		return fmt.Errorf("%w: %s.%s is not read-only and the host cannot ask the user to confirm it (%s); "+
			"nothing was sent. To allow writes without asking, start the server with: mcpcode serve --confirm-writes allow", mcptool.ErrDenied, server, tool, why)
	}
	g.askMu.Lock()
	defer g.askMu.Unlock()
	g.mu.Lock()
	allowed = g.allowRun
	g.mu.Unlock()
	if allowed {
		return nil
	}
	shown := string(args)
	if len(shown) > maxShownArgs {
		shown = shown[:maxShownArgs] + "…"
	}
	res, err := g.session.Elicit(ctx, &mcp.ElicitParams{
		Message: fmt.Sprintf("A program wants to call %s.%s, which may change data, with these arguments:\n%s\nAllow it?", server, tool, shown),
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{"decision":{"type":"string","title":"Decision",` +
			`"enum":["` + answerOnce + `","` + answerRun + `","` + answerDeny + `"]}},"required":["decision"]}`),
	})
	if err != nil {
		return fmt.Errorf("%w: asking the user to confirm %s.%s failed (%v); nothing was sent", mcptool.ErrDenied, server, tool, err)
	}
	decision, _ := res.Content["decision"].(string)
	if res.Action != "accept" || (decision != answerOnce && decision != answerRun) {
		return fmt.Errorf("%w: the user did not allow %s.%s; nothing was sent", mcptool.ErrDenied, server, tool)
	}
	if decision == answerRun {
		g.mu.Lock()
		g.allowRun = true
		g.mu.Unlock()
	}
	return nil
}

// mrtrVersion is the first protocol version in which a server may not send
// requests to the client while it serves a tool call (it must use multi
// round-trip requests instead, which mcpcode does not implement yet).
const mrtrVersion = "2026-07-28"

// cannotElicit says why the client of a session cannot be asked during a
// tool call, or "" when it can.
func cannotElicit(s *mcp.ServerSession) string {
	if s == nil {
		return "this connection is stateless: the server cannot send it requests"
	}
	p := s.InitializeParams()
	switch {
	case p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil:
		return "it does not support MCP elicitation"
	case p.ProtocolVersion >= mrtrVersion:
		return "it speaks protocol " + p.ProtocolVersion + ", where a server asks only through multi round-trip requests, which mcpcode does not support yet"
	}
	return ""
}
