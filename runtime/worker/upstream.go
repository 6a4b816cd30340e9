package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// The relay inside a worker passes on what the runtime's optional Caller
// interfaces offer: the servers' notices about calls, cancelling a call
// the program gave up, and resources. The parent honours them only as far
// as its own Caller does (a Caller that does not implement
// runtime.NoticeDeliverer or runtime.ResourceReader gets neither).

var (
	_ runtime.NoticeDeliverer = (*relayCaller)(nil)
	_ runtime.ResourceReader  = (*relayCaller)(nil)
)

// DeliversNotices: the relay asks the parent for notices.
func (c *relayCaller) DeliversNotices() bool { return true }

// ListResources relays to the parent.
func (c *relayCaller) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	return c.resource(ctx, &wireMessage{Type: "resources", Server: server})
}

// ReadResource relays to the parent.
func (c *relayCaller) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	return c.resource(ctx, &wireMessage{Type: "readResource", Server: server, URI: uri})
}

func (c *relayCaller) resource(ctx context.Context, m *wireMessage) (json.RawMessage, error) {
	reply, err := c.request(ctx, m)
	if err != nil {
		return nil, err
	}
	if reply.Error != "" {
		if reply.UnknownServer {
			return nil, &unknownServerError{msg: reply.Error}
		}
		return nil, errors.New(reply.Error)
	}
	if reply.ToolResult == nil {
		return nil, errors.New("the parent sent no answer")
	}
	return reply.ToolResult.Content, nil
}

// callContext is the context of one relayed call: the worker may cancel it
// (cancel message), and when it asked for notices and the parent's Caller
// delivers them, they are sent to the worker as notice messages.
func (s *session) callContext(ctx context.Context, m *wireMessage) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	s.cancelMu.Lock()
	if s.cancels == nil {
		s.cancels = map[int64]context.CancelFunc{}
	}
	s.cancels[m.ID] = cancel
	early := s.cancelledEarly[m.ID]
	delete(s.cancelledEarly, m.ID)
	s.cancelMu.Unlock()
	if early {
		cancel() // the worker gave the call up before it started here
	}
	if d, ok := s.caller.(runtime.NoticeDeliverer); ok && m.Notices && d.DeliversNotices() {
		id := m.ID
		ctx = mcptool.WithNotices(ctx, &mcptool.NoticeSink{Send: func(n mcptool.Notice) {
			_ = s.out.send(&wireMessage{Type: "notice", ID: id, Notice: &n})
		}})
	}
	return ctx, func() {
		s.cancelMu.Lock()
		delete(s.cancels, m.ID)
		s.cancelMu.Unlock()
		cancel()
	}
}

// cancelCall cancels a relayed call the worker gave up.
func (s *session) cancelCall(id int64) {
	s.cancelMu.Lock()
	cancel := s.cancels[id]
	if cancel == nil {
		// The call's goroutine has not registered it yet.
		if s.cancelledEarly == nil {
			s.cancelledEarly = map[int64]bool{}
		}
		s.cancelledEarly[id] = true
	}
	s.cancelMu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// serveResource answers a worker's resources or readResource request; the
// JSON goes back as a result's raw content.
func (s *session) serveResource(ctx context.Context, m *wireMessage, reply *wireMessage) {
	rr, ok := s.caller.(runtime.ResourceReader)
	if !ok {
		reply.Error = fmt.Sprintf("%s is not available in this run (its caller does not pass resources on)", map[string]string{"resources": "listResources", "readResource": "readResource"}[m.Type])
		return
	}
	var data json.RawMessage
	var err error
	if m.Type == "readResource" {
		data, err = rr.ReadResource(ctx, m.Server, m.URI)
	} else {
		data, err = rr.ListResources(ctx, m.Server)
	}
	if err != nil {
		reply.Error = err.Error()
		reply.UnknownServer = errors.Is(err, mcptool.ErrUnknownServer)
		return
	}
	reply.ToolResult = &mcptool.Result{Content: data}
}
