package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

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
	calls map[string]*sessionCall // by progress token
	tools map[string][]mcptool.Tool
}

// sessionCall is a call in progress whose notices go to sink.
type sessionCall struct {
	sink      *mcptool.NoticeSink
	delivered int
	changed   chan struct{} // closed and replaced on each delivery
}

// SessionOptions configure a run's connection to a session.
type SessionOptions struct {
	// Handlers answer the servers' questions during the run's calls; nil
	// declines them.
	Handlers *ClientHandlers
	// ClientVersion identifies mcpcode to the session.
	ClientVersion string
}

var (
	_ mcptool.Caller = (*Session)(nil)
)

// DialSession connects to the session whose socket is in dir
// (internal/session checks the directory and the session's user) and asks
// what it serves. The caller closes it.
func DialSession(ctx context.Context, dir string, opts SessionOptions) (*Session, error) {
	conn, err := session.Dial(ctx, dir)
	if err != nil {
		return nil, err
	}
	s := &Session{handlers: opts.Handlers, calls: map[string]*sessionCall{}, tools: map[string][]mcptool.Tool{}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpcode-run", Version: opts.ClientVersion}, &mcp.ClientOptions{
		ElicitationHandler:          s.elicit,
		CreateMessageHandler:        s.sample,
		ProgressNotificationHandler: s.progress,
	})
	// Both ends are mcpcode: the session asks the run's handlers by
	// requests of its own during a call (elicitation, sampling), which
	// 2026-07-28 has no room for, so this hop stays on 2025-11-25.
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn, MaxLineLength: 4 * maxLine},
		&mcp.ClientSessionOptions{ProtocolVersion: legacyProtocolVersion})
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("connecting to the workspace session: %w", err)
	}
	s.cs = cs
	if err := s.request(ctx, session.ToolStatus, struct{}{}, "", &s.Status); err != nil {
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
	err := s.request(ctx, session.ToolStop, struct{}{}, "", &st)
	return st, err
}

// AskStatus asks the session what it serves now.
func (s *Session) AskStatus(ctx context.Context) (session.Status, error) {
	var st session.Status
	err := s.request(ctx, session.ToolStatus, struct{}{}, "", &st)
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
	if err := s.request(ctx, session.ToolTools, session.ServerArgs{Server: server}, "", &l); err != nil {
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
	var c *sessionCall
	var token string
	if sink := mcptool.NoticesOf(ctx); sink != nil && sink.Send != nil {
		s.mu.Lock()
		s.next++
		token = "run-" + strconv.Itoa(s.next)
		c = &sessionCall{sink: sink, changed: make(chan struct{})}
		s.calls[token] = c
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			delete(s.calls, token)
			s.mu.Unlock()
		}()
	}
	var res session.CallResult
	err := s.request(ctx, session.ToolCall, session.CallArgs{Server: server, Tool: tool, Arguments: args, StructuredOnly: mcptool.StructuredOnly(ctx)}, token, &res)
	if err != nil {
		return nil, err
	}
	if c != nil {
		s.awaitNotices(ctx, c, res.Notices)
	}
	return &mcptool.Result{IsError: res.IsError, Content: res.Content, StructuredContent: res.StructuredContent}, nil
}

// awaitNotices waits until the n notices the session sent about a call
// have been delivered (go-sdk hands each notification to its handler on a
// goroutine of its own, which may run after the call's answer arrived).
func (s *Session) awaitNotices(ctx context.Context, c *sessionCall, n int) {
	for {
		s.mu.Lock()
		done, changed := c.delivered >= n, c.changed
		s.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		case <-time.After(5 * time.Second): // a notification lost on the way: the answer is not held longer
			return
		}
	}
}

// ListResources lists a server's resources through the session.
func (s *Session) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.request(ctx, session.ToolResources, session.ServerArgs{Server: server}, "", &raw)
	return raw, err
}

// ReadResource reads a server's resource through the session.
func (s *Session) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	var raw json.RawMessage
	err := s.request(ctx, session.ToolRead, session.ReadArgs{Server: server, URI: uri}, "", &raw)
	return raw, err
}

// DeliversNotices says that the servers' notices reach the sinks of the
// calls (runtime.NoticeDeliverer).
func (s *Session) DeliversNotices() bool { return true }

// request calls one of the session's tools with args and decodes the
// answer into out; token, when not "", is the progress token with which
// the session sends the notices about it.
func (s *Session) request(ctx context.Context, name string, args any, token string, out any) error {
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if token != "" {
		params.Meta = mcp.Meta{"progressToken": token}
	}
	res, err := s.cs.CallTool(ctx, params)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the workspace session (process %d) did not answer: %w", s.Status.Pid, err)
	}
	if len(res.Content) != 1 {
		return fmt.Errorf("the workspace session sent %d contents, want 1", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return errors.New("the workspace session sent no text")
	}
	if res.IsError {
		var f session.Failure
		if err := json.Unmarshal([]byte(text.Text), &f); err != nil {
			return fmt.Errorf("the workspace session failed: %s", text.Text)
		}
		if f.UnknownServer {
			return &sessionError{msg: f.Error, unknownServer: true}
		}
		return &sessionError{msg: f.Error}
	}
	if err := json.Unmarshal([]byte(text.Text), out); err != nil {
		return fmt.Errorf("reading the workspace session's answer: %w", err)
	}
	return nil
}

// sessionError is an error the session reported, with its text as the
// run's own pool would have it.
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

// progress delivers a notice the session forwarded about a call.
func (s *Session) progress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	token, _ := req.Params.ProgressToken.(string)
	raw, err := json.Marshal(req.Params.Meta[session.MetaNotice])
	var n mcptool.Notice
	if err != nil || json.Unmarshal(raw, &n) != nil {
		return
	}
	s.mu.Lock()
	c := s.calls[token]
	s.mu.Unlock()
	if c == nil {
		return
	}
	c.sink.Send(n)
	s.mu.Lock()
	c.delivered++
	close(c.changed)
	c.changed = make(chan struct{})
	s.mu.Unlock()
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
