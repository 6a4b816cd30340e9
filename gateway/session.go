package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/filelock"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/internal/session"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SessionOptions configure a workspace session (ServeSession).
type SessionOptions struct {
	// Idle stops the session after this long without a request (0: never).
	Idle time.Duration
	// ConnectTimeout bounds connecting to one upstream server.
	ConnectTimeout time.Duration
	// Version is mcpcode's version, reported to runs.
	Version string
	// Logger receives the session's own diagnostics; nil discards them.
	Logger *slog.Logger
	// Ready, when set, is called once the session listens.
	Ready func(session.Status)
}

// ServeSession is a workspace session (mcpcode session start): it serves
// the workspace's upstream servers, kept connected between runs (stdio
// servers stay up with their state, HTTP sessions and logins stay warm), to
// runs of this user on the socket in .mcpcode/session/ (internal/session).
// Each run stays what it is without a session: its own process, worker,
// limits and audit; only its upstream tool calls, resources and the
// servers' notices and questions pass through here (servers.Session is the
// run's side). It is the gateway's machinery (the MCP server, the pool,
// the forwarding of servers' questions) on another socket, with tools of
// its own.
//
// It returns nil when ctx ends, a run asks it to stop, it was idle for
// opts.Idle, or its binary was replaced; it stops its servers first. An
// edit of mcp.json is noticed before each request: the servers whose entry
// changed are restarted from the new entry, the others keep running.
func ServeSession(ctx context.Context, ws *app.Workspace, opts SessionOptions) error {
	if !session.Supported {
		_, err := session.Listen("", nil)
		return err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := ws.Session()
	if err := session.Prepare(dir); err != nil {
		return fmt.Errorf("preparing the session directory: %w", err)
	}
	release, ok, err := filelock.TryLockPath(filepath.Join(dir, session.LockName), 0o600)
	if err != nil {
		return err
	}
	if !ok {
		return errors.New("a session already runs for this workspace: see mcpcode session status")
	}
	defer release()
	// mcp.json may have changed since ws read it: the first request reads
	// it again (check), as no stamp is this one.
	s := &sessionServer{ws: ws, log: log, opts: opts, started: time.Now(), binary: session.ExecutableID(),
		config: ws.Config, configStamp: "not read by the session yet"}
	s.lastUsed.Store(s.started.UnixNano())
	s.pool = ws.Pool(app.PoolOptions{ConnectTimeout: opts.ConnectTimeout})
	defer s.pool.Close()
	s.server = mcp.NewServer(&mcp.Implementation{Name: "mcpcode-session", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: "A workspace session of mcpcode: it serves the workspace's upstream servers to mcpcode runs of the same user.",
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	s.server.AddReceivingMiddleware(s.track)
	s.addTools()

	ln, err := session.Listen(dir, func(err error) { log.Warn("session", "refused", err) })
	if err != nil {
		return fmt.Errorf("listening on the session socket: %w", err)
	}
	ctx, s.stop = context.WithCancel(ctx)
	defer s.stop()
	if opts.Ready != nil {
		opts.Ready(s.status())
	}
	go func() {
		<-ctx.Done()
		ln.Close()
	}()
	if opts.Idle > 0 {
		go s.stopWhenIdle(ctx)
	}
	var conns sync.WaitGroup
	for {
		c, err := ln.Accept()
		if err != nil {
			break
		}
		conns.Add(1)
		go func() {
			defer conns.Done()
			s.serveConn(ctx, c)
		}()
	}
	s.stop()
	conns.Wait()
	return nil
}

// sessionServer is one running session.
type sessionServer struct {
	ws     *app.Workspace
	log    *slog.Logger
	opts   SessionOptions
	server *mcp.Server
	stop   context.CancelFunc

	started time.Time
	binary  string // session.ExecutableID as it started
	// lastUsed (unix nanoseconds) and inflight: for the idle stop.
	lastUsed atomic.Int64
	inflight atomic.Int32

	mu          sync.Mutex // guards pool's configuration and what follows
	pool        *servers.Pool
	config      *servers.Config
	configStamp string
	restarted   []string
	stale       string // why the session no longer serves ("" while it does)

	raw rawResults // results on their way to runs (ToolCall)
	// handlers of each run's connection: one requester for the pool
	// (servers.WithClientHandlers), whatever number of calls it makes.
	handlers map[*mcp.ServerSession]*app.ClientHandlers
	// stopWith is the connection of the run that asked the session to stop.
	stopWith *mcp.ServerSession
}

// serveConn serves one run's connection until it closes or ctx ends.
func (s *sessionServer) serveConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	ss, err := s.server.Connect(ctx, &mcp.IOTransport{Reader: c, Writer: &rawWriter{w: c, results: &s.raw}, MaxLineLength: -1}, nil)
	if err != nil {
		s.log.Warn("session: a run's connection failed", "error", err)
		return
	}
	defer s.raw.drop(ss)
	defer func() {
		s.mu.Lock()
		delete(s.handlers, ss)
		s.mu.Unlock()
	}()
	done := make(chan struct{})
	go func() {
		_ = ss.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.mu.Lock()
		asked := s.stopWith == ss
		s.mu.Unlock()
		if asked {
			s.stop() // the run that asked the session to stop has its answer
		}
	case <-ctx.Done():
		// Closing the connection ends the run's requests in flight: a
		// server that never answers cannot keep a stopping session alive
		// (ss.Close alone waits for them).
		c.Close()
		_ = ss.Close()
		<-done
	}
}

// stopGrace is how long a session asked to stop waits for the run that
// asked to close its connection, so that the answer reaches it first.
const stopGrace = 2 * time.Second

// track notes each request, for the idle stop, and checks before each
// tool call that the session may still serve (its binary, mcp.json).
func (s *sessionServer) track(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		s.inflight.Add(1)
		defer func() {
			s.lastUsed.Store(time.Now().UnixNano())
			s.inflight.Add(-1)
		}()
		if method == "tools/call" {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			if err := s.check(ss); err != nil {
				return nil, err
			}
		}
		return next(ctx, method, req)
	}
}

// check refuses to serve with a binary that is no longer the one on disk
// (the session then stops: a run of the new binary starts its servers
// itself until a new session is started), and restarts the servers whose
// entry in mcp.json changed. ss is the connection asking: a session that
// stops for it does so once its answer is on the way (as for ToolStop),
// so that the run reads why instead of a closed connection.
func (s *sessionServer) check(ss *mcp.ServerSession) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stale != "" {
		return errors.New(s.stale)
	}
	if id := session.ExecutableID(); id != s.binary {
		s.stale = "this session's mcpcode binary was replaced since the session started; the session has stopped: start it again with mcpcode session start"
		s.log.Warn("session: stopping", "reason", "binary replaced", "was", s.binary, "now", id)
		if s.stopWith == nil {
			s.stopWith = ss
		}
		time.AfterFunc(stopGrace, s.stop)
		return errors.New(s.stale)
	}
	stamp := stampOf(s.config.Path)
	if stamp == s.configStamp {
		return nil
	}
	cfg, err := s.ws.ReadConfig()
	if err != nil {
		// Kept until it is fixed: the next request reads it again.
		return fmt.Errorf("the session cannot use mcp.json as it is now: %w", err)
	}
	s.configStamp = stamp
	s.config = cfg
	if names := s.pool.Reconfigure(cfg); len(names) > 0 {
		s.log.Info("session: mcp.json changed; servers restarted", "servers", names)
		s.restarted = append(s.restarted, names...)
	}
	return nil
}

// stampOf identifies a file's content as it is now, cheaply: its inode,
// size and modification time ("" when it cannot be read).
func stampOf(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%v %d %d", fi.Sys(), fi.Size(), fi.ModTime().UnixNano())
}

// stopWhenIdle stops the session once no request came for opts.Idle and
// none is in progress.
func (s *sessionServer) stopWhenIdle(ctx context.Context) {
	tick := min(s.opts.Idle/4, time.Second)
	t := time.NewTicker(max(tick, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			idle := time.Since(time.Unix(0, s.lastUsed.Load()))
			if s.inflight.Load() == 0 && idle >= s.opts.Idle {
				s.log.Info("session: stopping", "reason", "idle", "for", idle.Round(time.Second))
				s.stop()
				return
			}
		}
	}
}

// status is what the session says about itself.
func (s *sessionServer) status() session.Status {
	s.mu.Lock()
	cfg, restarted := s.config, append([]string(nil), s.restarted...)
	s.mu.Unlock()
	st := session.Status{Workspace: s.ws.Root, Config: cfg.Path, Entries: cfg.EntryDigests(), Pid: os.Getpid(), Binary: s.binary,
		Started: s.started, LastUsed: time.Unix(0, s.lastUsed.Load()), IdleStop: session.Duration(s.opts.Idle),
		Servers: []session.ServerStatus{}, Restarted: restarted}
	for _, u := range s.pool.Upstreams() {
		st.Servers = append(st.Servers, session.ServerStatus{Name: u.Name, Transport: u.Transport, Connected: u.Connected, Tools: u.Tools, Pid: u.Pid})
	}
	return st
}

// addTools registers the session's tools (internal/session names them).
func (s *sessionServer) addTools() {
	object := json.RawMessage(`{"type":"object"}`)
	add := func(name, description string, h func(ctx context.Context, req *mcp.CallToolRequest) (any, error)) {
		s.server.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, err := h(ctx, req)
			if err != nil {
				return sessionFailure(err), nil
			}
			text, err := json.Marshal(v)
			if err != nil {
				return sessionFailure(err), nil
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(text)}}}, nil
		})
	}
	add(session.ToolStatus, "What the session serves.", func(context.Context, *mcp.CallToolRequest) (any, error) {
		return s.status(), nil
	})
	add(session.ToolStop, "Stops the session once it answered.", func(_ context.Context, req *mcp.CallToolRequest) (any, error) {
		s.log.Info("session: stopping", "reason", "asked")
		// Once the answer is on its way: when the run that asked closes
		// its connection, or after a grace should it keep it open.
		s.mu.Lock()
		s.stopWith = req.Session
		s.mu.Unlock()
		time.AfterFunc(stopGrace, s.stop)
		return s.status(), nil
	})
	add(session.ToolTools, "Lists an upstream server's tools.", func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
		var a session.ServerArgs
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, err
		}
		l, err := s.pool.Connect(ctx, a.Server)
		if err != nil {
			return nil, err
		}
		return session.Listing{Tools: l.RawTools(), ServerName: l.ServerName, ServerVersion: l.ServerVersion, ProtocolVersion: l.ProtocolVersion}, nil
	})
	s.server.AddTool(&mcp.Tool{Name: session.ToolCall, Description: "Calls an upstream server's tool.", InputSchema: object}, s.call)
	add(session.ToolResources, "Lists an upstream server's resources.", func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
		var a session.ServerArgs
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, err
		}
		return s.pool.ListResources(ctx, a.Server)
	})
	add(session.ToolRead, "Reads an upstream server's resource.", func(ctx context.Context, req *mcp.CallToolRequest) (any, error) {
		var a session.ReadArgs
		if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
			return nil, err
		}
		return s.pool.ReadResource(ctx, a.Server, a.URI)
	})
}

// call calls an upstream tool for a run: the server's progress and log
// notices about it go to the run (as progress notifications carrying the
// notice), its questions (elicitation, sampling) to the run's own
// terminal or host, and its answer back as received.
func (s *sessionServer) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var a session.CallArgs
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil {
		return sessionFailure(err), nil
	}
	if token := req.Params.GetProgressToken(); token != nil {
		var finish func()
		ctx, finish = s.forwardNotices(ctx, req.Session, token)
		defer finish() // the notices are written before the answer
	}
	if a.StructuredOnly {
		ctx = mcptool.WithStructuredOnly(ctx)
	}
	ctx = app.WithClientHandlers(ctx, s.runHandlers(req.Session))
	res, err := s.pool.CallTool(ctx, a.Server, a.Tool, a.Arguments)
	if err != nil {
		return sessionFailure(err), nil
	}
	key := s.raw.put(req.Session, rawResult(res))
	return &mcp.CallToolResult{Content: []mcp.Content{}, StructuredContent: map[string]string{session.RawKey: key}}, nil
}

// rawResult is a tool result as JSON, from its raw parts (nothing is
// decoded or re-encoded).
func rawResult(r *mcptool.Result) []byte {
	content := r.Content
	if len(content) == 0 {
		content = json.RawMessage(`[]`)
	}
	b := make([]byte, 0, len(content)+len(r.StructuredContent)+64)
	b = append(b, `{"content":`...)
	b = append(b, content...)
	if len(r.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		b = append(b, r.StructuredContent...)
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}')
}

// rawResults are the upstream results whose answers are on their way:
// each waits, under its key, for the connection's writer (rawWriter) to put
// it in the place of the answer that names it.
type rawResults struct {
	mu    sync.Mutex
	next  int
	byKey map[string][]byte
	of    map[*mcp.ServerSession][]string // keys of each connection, dropped when it ends
}

func (r *rawResults) put(ss *mcp.ServerSession, raw []byte) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.byKey == nil {
		r.byKey, r.of = map[string][]byte{}, map[*mcp.ServerSession][]string{}
	}
	r.next++
	key := strconv.Itoa(r.next)
	r.byKey[key] = raw
	r.of[ss] = append(r.of[ss], key)
	return key
}

func (r *rawResults) take(key string) ([]byte, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	raw, ok := r.byKey[key]
	delete(r.byKey, key)
	return raw, ok
}

// drop forgets what a connection that ended never wrote.
func (r *rawResults) drop(ss *mcp.ServerSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, k := range r.of[ss] {
		delete(r.byKey, k)
	}
	delete(r.of, ss)
}

// rawWriter is the writing side of a run's connection: it passes lines on
// as they are, but for an answer that names a raw result
// ({"mcpcode/raw": KEY}), which it writes with that result in the place
// of the answer's.
type rawWriter struct {
	w       io.WriteCloser
	results *rawResults
	line    []byte
}

var rawMarker = []byte(`"` + session.RawKey + `"`)

func (w *rawWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			w.line = append(w.line, p...)
			break
		}
		w.line = append(w.line, p[:i+1]...)
		p = p[i+1:]
		if err := w.flushLine(); err != nil {
			return 0, err
		}
	}
	return n, nil
}

func (w *rawWriter) flushLine() error {
	line := w.line
	w.line = w.line[:0]
	if len(line) < 4096 && bytes.Contains(line, rawMarker) {
		if id, res, ok, _ := mcptool.ParseCallResponse(bytes.TrimSpace(line)); ok {
			var stub map[string]string
			if json.Unmarshal(res.StructuredContent, &stub) == nil {
				if raw, ok := w.results.take(stub[session.RawKey]); ok {
					out := make([]byte, 0, len(raw)+len(id)+40)
					out = append(out, `{"jsonrpc":"2.0","id":`...)
					out = append(out, id...)
					out = append(out, `,"result":`...)
					out = append(out, raw...)
					out = append(out, "}\n"...)
					_, err := w.w.Write(out)
					return err
				}
			}
		}
	}
	_, err := w.w.Write(line)
	return err
}

func (w *rawWriter) Close() error { return w.w.Close() }

// forwardNotices returns ctx carrying a sink that sends the upstream
// server's notices about a call to the run, in order, as progress
// notifications with the run's token; finish ends it once the call
// returned and waits until every notice was written (before the answer,
// on the same connection: the run reads them in that order).
func (s *sessionServer) forwardNotices(ctx context.Context, ss *mcp.ServerSession, token any) (context.Context, func()) {
	notices := make(chan mcptool.Notice, 256)
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		n := 0
		for notice := range notices {
			raw, _ := json.Marshal(notice)
			n++
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(n),
				Message: notice.Text(), Meta: mcp.Meta{session.MetaNotice: json.RawMessage(raw)}})
		}
	}()
	var mu sync.Mutex // no Send after the call ended
	closed := false
	ctx = mcptool.WithNotices(ctx, &mcptool.NoticeSink{Send: func(n mcptool.Notice) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		select {
		case notices <- n:
		default: // a run that does not read its notices loses some, as a full output would
		}
	}})
	return ctx, func() {
		mu.Lock()
		closed = true
		close(notices)
		mu.Unlock()
		<-sent
	}
}

// runHandlers are the handlers of a run's connection: they forward an
// upstream server's questions during the run's calls to that run, with
// the server's name and its form's field order. They are the same for
// all of the run's calls: the pool tells requesters apart by them, to
// send a server's questions and log messages to the run whose calls are
// in flight, and to no run when calls of several are.
func (s *sessionServer) runHandlers(ss *mcp.ServerSession) *app.ClientHandlers {
	s.mu.Lock()
	defer s.mu.Unlock()
	if h := s.handlers[ss]; h != nil {
		return h
	}
	if s.handlers == nil {
		s.handlers = map[*mcp.ServerSession]*app.ClientHandlers{}
	}
	h := forwardTo(ss)
	s.handlers[ss] = h
	return h
}

// forwardTo are handlers forwarding to the run on ss.
func forwardTo(ss *mcp.ServerSession) *app.ClientHandlers {
	return &app.ClientHandlers{
		Elicit: func(ctx context.Context, r *app.ElicitRequest) (*mcp.ElicitResult, error) {
			p := *r.Params
			meta := mcp.Meta{}
			for k, v := range p.Meta {
				meta[k] = v
			}
			meta[session.MetaServer] = r.Server
			if len(r.Order) > 0 {
				meta[session.MetaOrder] = r.Order
			}
			p.Meta = meta
			return ss.Elicit(ctx, &p)
		},
		Sample: func(ctx context.Context, r *app.SampleRequest) (*mcp.CreateMessageResult, error) {
			p := *r.Params
			meta := mcp.Meta{}
			for k, v := range p.Meta {
				meta[k] = v
			}
			meta[session.MetaServer] = r.Server
			p.Meta = meta
			return ss.CreateMessage(ctx, &p)
		},
	}
}

// sessionFailure is a failed request as the run's side reads it back
// (session.FailureKey): the error's text, and whether it is about a server
// the configuration does not have.
func sessionFailure(err error) *mcp.CallToolResult {
	f := session.Failure{Error: err.Error(), UnknownServer: errors.Is(err, mcptool.ErrUnknownServer)}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: f.Error}},
		StructuredContent: map[string]session.Failure{session.FailureKey: f}}
}
