package servers

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressTokens maps the progress tokens of calls in flight to the sinks
// of their requesters.
type progressTokens struct {
	next atomic.Int64
	mu   sync.Mutex
	m    map[string]*mcptool.NoticeSink
}

// add gives a call a progress token; the returned function forgets it.
func (p *progressTokens) add(s *mcptool.NoticeSink) (token string, done func()) {
	token = "mcpcode-" + strconv.FormatInt(p.next.Add(1), 10)
	p.mu.Lock()
	if p.m == nil {
		p.m = map[string]*mcptool.NoticeSink{}
	}
	p.m[token] = s
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.m, token)
		p.mu.Unlock()
	}
}

func (p *progressTokens) sink(token any) *mcptool.NoticeSink {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[fmt.Sprint(token)]
}

// notice takes a progress or log notification as the capture reads it.
func (u *upstream) notice(method string, params json.RawMessage) {
	switch method {
	case "notifications/progress":
		var p mcp.ProgressNotificationParams
		if json.Unmarshal(params, &p) == nil {
			u.progress(&p)
		}
	case "notifications/message":
		var p mcp.LoggingMessageParams
		if json.Unmarshal(params, &p) == nil {
			u.logMessage(&p)
		}
	}
}

// progress takes a server's progress notification: it goes to the log of
// the server and to the requester of the call it is about.
func (u *upstream) progress(p *mcp.ProgressNotificationParams) {
	line := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		line += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		line += " " + p.Message
	}
	u.log.note("progress", line)
	if s := u.progressTokens.sink(p.ProgressToken); s != nil && s.Send != nil {
		s.Send(mcptool.Notice{Server: u.cfg.Name, Kind: mcptool.NoticeProgress, Progress: p.Progress, Total: p.Total, Message: p.Message})
	}
}

// logMessage takes a server's log message: it goes to the server's log,
// and to the requester with calls in flight on the server, unless calls
// of several requesters are (a log message is about the session, not a
// call: inflight.sinks).
func (u *upstream) logMessage(p *mcp.LoggingMessageParams) {
	data, err := json.Marshal(p.Data)
	if err != nil {
		data = []byte(`null`)
	}
	text := string(data)
	var s string
	if json.Unmarshal(data, &s) == nil {
		text = s
	}
	kind := "log " + string(p.Level)
	if p.Logger != "" {
		kind += " " + p.Logger
	}
	u.log.note(kind, text)
	for _, sink := range u.inflight.sinks() {
		sink.Send(mcptool.Notice{Server: u.cfg.Name, Kind: mcptool.NoticeLog, Level: string(p.Level), Logger: p.Logger, Data: data})
	}
}

// taskRequired is the result of a call of a tool that requires task
// augmentation: it fails at once, with the reason.
func taskRequired(server, tool string) *mcptool.Result {
	msg := fmt.Sprintf("%s.%s cannot be called: %s", server, tool, mcptool.TaskUnsupported)
	content, _ := json.Marshal([]map[string]string{{"type": "text", "text": msg}})
	return &mcptool.Result{Content: content, IsError: true}
}

// ListResources lists one server's resources (all pages), as the JSON
// array of MCP resource objects.
func (p *Pool) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	u, err := p.upstream(server)
	if err != nil {
		return nil, err
	}
	sess, _, err := u.session(ctx)
	if err != nil {
		return nil, err
	}
	if init := sess.InitializeResult(); init != nil && (init.Capabilities == nil || init.Capabilities.Resources == nil) {
		return json.RawMessage(`[]`), nil // the server offers no resources
	}
	list := []*mcp.Resource{}
	for r, err := range sess.Resources(ctx, nil) {
		if err != nil {
			return nil, u.fail(fmt.Errorf("listing resources: %w", err))
		}
		list = append(list, r)
	}
	return json.Marshal(list)
}

// ReadResource reads one resource of a server (the URI of a resource_link
// a tool returned, say): the JSON array of its contents (each with "uri",
// "mimeType", and "text" or base64 "blob").
func (p *Pool) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	u, err := p.upstream(server)
	if err != nil {
		return nil, err
	}
	sess, _, err := u.session(ctx)
	if err != nil {
		return nil, err
	}
	ctx = withCall(ctx)
	defer u.inflight.begin(ctx)() // a legacy server's questions during the read are routed to its requester
	res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri, Meta: requestMeta(sess)})
	if err != nil {
		return nil, fmt.Errorf("reading %s from server %q: %w", uri, server, err)
	}
	if res.Contents == nil {
		res.Contents = []*mcp.ResourceContents{}
	}
	return json.Marshal(res.Contents)
}

// DeliversNotices reports that the pool delivers servers' notices to the
// sink a call's context carries (the runtime's optional NoticeDeliverer).
func (p *Pool) DeliversNotices() bool { return true }
