package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/internal/session"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Session is a run's connection to its workspace's session (mcpcode
// session; gateway.ServeSession is the other side): a mcptool.Caller whose
// tool calls, resource reads and the servers' notices go through the
// upstream connections the session keeps, instead of connections of the
// run's own. The servers' questions during a call (elicitation, sampling)
// come back to the run's Handlers, as they would from its own pool. A
// Session is safe for concurrent use.
type Session struct {
	cs       *mcp.ClientSession
	handlers *ClientHandlers
	// Status is what the session said when the run connected.
	Status session.Status

	mu    sync.Mutex
	next  int
	sinks map[string]*mcptool.NoticeSink // of the calls in progress, by progress token
	tools map[string][]mcptool.Tool
}

// SessionOptions configure a run's connection to a session.
type SessionOptions struct {
	// Handlers answer the servers' questions during the run's calls; nil
	// declines them.
	Handlers *ClientHandlers
	// ClientVersion identifies mcpcode to the session.
	ClientVersion string
}

var _ mcptool.Caller = (*Session)(nil)

// DialSession connects to the session whose socket is in dir
// (internal/session checks the directory and the session's user) and asks
// what it serves. The caller closes it.
func DialSession(ctx context.Context, dir string, opts SessionOptions) (*Session, error) {
	conn, err := session.Dial(ctx, dir)
	if err != nil {
		return nil, err
	}
	s := &Session{handlers: opts.Handlers, sinks: map[string]*mcptool.NoticeSink{}, tools: map[string][]mcptool.Tool{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcode-run", Version: opts.ClientVersion}, &mcp.ClientOptions{
		ElicitationHandler:   s.elicit,
		CreateMessageHandler: s.sample,
	})
	// The answers to calls are read as the run's own pool reads a stdio
	// server's (the capture's tap: one pass, no decoding by go-sdk), and
	// the notices in the order they came: before the answer they precede.
	capture := newToolsCapture()
	capture.onNotice = s.notice
	lines := newStdoutFilter(conn, func([]byte) {})
	lines.tap = capture.tapLine
	t := &capturingTransport{Transport: &mcp.IOTransport{Reader: lines, Writer: conn, MaxLineLength: -1}, capture: capture}
	// Both ends are mcpcode: the session asks the run's handlers by
	// requests of its own during a call (elicitation, sampling), which
	// 2026-07-28 has no room for, so this hop stays on 2025-11-25.
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: legacyProtocolVersion})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("connecting to the workspace session: %w", err)
	}
	s.cs = cs
	if err := s.request(ctx, session.ToolStatus, struct{}{}, &s.Status); err != nil {
		cs.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the connection; the session and its servers go on.
func (s *Session) Close() error { return s.cs.Close() }

// Stop asks the session to stop; it stops its servers and exits. It
// returns the session's last status.
func (s *Session) Stop(ctx context.Context) (session.Status, error) {
	var st session.Status
	err := s.request(ctx, session.ToolStop, struct{}{}, &st)
	return st, err
}

// AskStatus asks the session what it serves now.
func (s *Session) AskStatus(ctx context.Context) (session.Status, error) {
	var st session.Status
	err := s.request(ctx, session.ToolStatus, struct{}{}, &st)
	return st, err
}

// Tools lists a server's tools, through the session (once per connection).
func (s *Session) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	s.mu.Lock()
	tools, ok := s.tools[server]
	s.mu.Unlock()
	if ok {
		return tools, nil
	}
	l, err := s.Listing(ctx, server)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.tools[server] = l.Tools
	s.mu.Unlock()
	return l.Tools, nil
}

// Listing is what a server offers, as the session's connection to it
// listed it (the session connects it if it has not yet).
func (s *Session) Listing(ctx context.Context, server string) (*Listing, error) {
	var l session.Listing
	if err := s.request(ctx, session.ToolTools, session.ServerArgs{Server: server}, &l); err != nil {
		return nil, err
	}
	out := &Listing{Server: server, ServerName: l.ServerName, ServerVersion: l.ServerVersion, ProtocolVersion: l.ProtocolVersion,
		Tools: make([]mcptool.Tool, 0, len(l.Tools))}
	for _, raw := range l.Tools {
		t, _, err := mcptool.Parse(raw)
		if err != nil {
			out.Warnings = append(out.Warnings, err.Error()) // as the pool's listing skips a definition it cannot read
			continue
		}
		out.Tools = append(out.Tools, t)
	}
	return out, nil
}

// CallTool calls a server's tool through the session. The server's
// progress and log notices about it reach the sink ctx carries
// (mcptool.WithNotices) before the result is returned.
func (s *Session) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	params := &mcp.CallToolParams{Name: session.ToolCall,
		Arguments: session.CallArgs{Server: server, Tool: tool, Arguments: args, StructuredOnly: mcptool.StructuredOnly(ctx)}}
	if sink := mcptool.NoticesOf(ctx); sink != nil && sink.Send != nil {
		s.mu.Lock()
		s.next++
		token := "run-" + strconv.Itoa(s.next)
		s.sinks[token] = sink
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.sinks, token)
			s.mu.Unlock()
		}()
		params.Meta = mcp.Meta{"progressToken": token}
	}
	slot := &resultSlot{}
	if _, err := s.cs.CallTool(withResultSlot(ctx, slot), params); err != nil {
		return nil, s.lost(ctx, err)
	}
	res, err, ok := slot.result()
	switch {
	case !ok:
		return nil, errors.New("the workspace session's answer was not read")
	case err != nil:
		return nil, fmt.Errorf("reading the workspace session's answer: %w", err)
	}
	if res.IsError && len(res.StructuredContent) > 0 {
		var f map[string]*session.Failure
		if json.Unmarshal(res.StructuredContent, &f) == nil && f[session.FailureKey] != nil {
			return nil, failureError(f[session.FailureKey])
		}
	}
	return res, nil
}

// ListResources lists a server's resources through the session.
func (s *Session) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.request(ctx, session.ToolResources, session.ServerArgs{Server: server}, &raw)
	return raw, err
}

// ReadResource reads a server's resource through the session.
func (s *Session) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.request(ctx, session.ToolRead, session.ReadArgs{Server: server, URI: uri}, &raw)
	return raw, err
}

// DeliversNotices says that the servers' notices reach the sinks of the
// calls (runtime.NoticeDeliverer).
func (s *Session) DeliversNotices() bool { return true }

// request calls one of the session's tools (not ToolCall) with args and
// decodes its answer, a text of JSON, into out.
func (s *Session) request(ctx context.Context, name string, args any, out any) error {
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return s.lost(ctx, err)
	}
	if res.IsError {
		raw, _ := json.Marshal(res.StructuredContent)
		var f map[string]*session.Failure
		if json.Unmarshal(raw, &f) == nil && f[session.FailureKey] != nil {
			return failureError(f[session.FailureKey])
		}
		return errors.New("the workspace session failed without saying why")
	}
	if len(res.Content) != 1 {
		return fmt.Errorf("the workspace session sent %d contents, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return errors.New("the workspace session sent no text")
	}
	if err := json.Unmarshal([]byte(text.Text), out); err != nil {
		return fmt.Errorf("reading the workspace session's answer: %w", err)
	}
	return nil
}

// lost is the error of a request the session did not answer.
func (s *Session) lost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return fmt.Errorf("the workspace session (process %d) did not answer: %w", s.Status.Pid, err)
}

// failureError is the error of a request the session could not serve,
// with its text as the run's own pool would have it.
func failureError(f *session.Failure) error {
	return &sessionError{msg: f.Error, unknownServer: f.UnknownServer}
}

// sessionError is an error the session reported.
type sessionError struct {
	msg           string
	unknownServer bool
}

func (e *sessionError) Error() string { return e.msg }

func (e *sessionError) Unwrap() error {
	if e.unknownServer {
		return mcptool.ErrUnknownServer
	}
	return nil
}

// notice delivers a notice the session forwarded about a call (a progress
// notification with the call's token, carrying it), as it is read: before
// the answer of the call it is about.
func (s *Session) notice(method string, params json.RawMessage) {
	if method != "notifications/progress" {
		return
	}
	var p struct {
		Token any `json:"progressToken"`
		Meta  struct {
			Notice *mcptool.Notice `json:"mcpcode/notice"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || p.Meta.Notice == nil {
		return
	}
	token, _ := p.Token.(string)
	s.mu.Lock()
	sink := s.sinks[token]
	s.mu.Unlock()
	if sink != nil {
		sink.Send(*p.Meta.Notice)
	}
}

// elicit hands a server's question, forwarded by the session, to the
// run's handlers, as the run's own pool would (upstream.elicit).
func (s *Session) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p := *req.Params
	server, order := fromSessionMeta(&p.Meta)
	h := s.handlers
	if h == nil || h.Elicit == nil {
		why := "mcpcode has no way to ask the person here"
		if h != nil && h.NoElicit != "" {
			why = h.NoElicit
		}
		return nil, fmt.Errorf("declined: the server asked the user %q, but %s", p.Message, why)
	}
	return h.Elicit(ctx, &ElicitRequest{Server: server, Params: &p, Order: order})
}

// sample hands a server's sampling request to the run's handlers.
func (s *Session) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	p := *req.Params
	server, _ := fromSessionMeta(&p.Meta)
	h := s.handlers
	if h == nil || h.Sample == nil {
		why := "mcpcode has no model of its own; only `mcpcode serve` forwards sampling, to the agent host"
		if h != nil && h.NoSample != "" {
			why = h.NoSample
		}
		return nil, fmt.Errorf("declined: the server asked for a model's completion (sampling), but %s", why)
	}
	return h.Sample(ctx, &SampleRequest{Server: server, Params: &p})
}

// fromSessionMeta takes the session's keys out of a forwarded request's
// meta: the server that asks and its form's field order.
func fromSessionMeta(meta *mcp.Meta) (server string, order []string) {
	if *meta == nil {
		return "", nil
	}
	m := mcp.Meta{}
	for k, v := range *meta {
		switch k {
		case session.MetaServer:
			server, _ = v.(string)
		case session.MetaOrder:
			if list, ok := v.([]any); ok {
				for _, f := range list {
					if name, ok := f.(string); ok {
						order = append(order, name)
					}
				}
			}
		default:
			m[k] = v
		}
	}
	if len(m) == 0 {
		m = nil
	}
	*meta = m
	return server, order
}
