package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/mcptool"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultConnectTimeout bounds connecting to and listing one server.
const DefaultConnectTimeout = 30 * time.Second

// PoolOptions configure a Pool.
type PoolOptions struct {
	// ConnectTimeout bounds connecting to and listing one server (default 30s).
	ConnectTimeout time.Duration
	// LogDir receives the stderr of stdio servers as <server>.log; "" keeps
	// only the last lines in memory.
	LogDir string
	// BaseEnv is the environment ("KEY=value") every stdio server starts
	// with, before its own "env". The host environment is never inherited.
	BaseEnv []string
	// ClientName and ClientVersion identify mcpcode to servers.
	ClientName, ClientVersion string
	// OnToolsChanged is called, on its own goroutine, when a connected server
	// announces that its tool list changed.
	OnToolsChanged func(server string)
	// Dial, when set, replaces the real transports (used by tests to connect
	// in-process servers).
	Dial func(ctx context.Context, s ServerConfig) (mcp.Transport, error)
	// Handlers answer servers' elicitation and sampling requests during
	// calls whose context carries no handlers of its own (see
	// WithClientHandlers); nil declines them.
	Handlers *ClientHandlers
	// DefaultRoots are the directories offered as roots to servers whose
	// entry has no "roots" (the workspace's files folder).
	DefaultRoots []string
	// Tokens stores OAuth logins; nil keeps them in memory only.
	Tokens *TokenStore
	// Login lets a server that asks for authorization log the person in
	// (a browser); nil makes such a server fail with ErrNeedsLogin, unless
	// it is configured for client credentials.
	Login *LoginOptions
}

// Pool holds one session per upstream server, shared by concurrent calls.
// Servers are connected on first use. A Pool is safe for concurrent use.
type Pool struct {
	cfg  *Config
	opts PoolOptions

	mu     sync.Mutex
	ups    map[string]*upstream
	closed bool
}

// NewPool returns a pool for the enabled servers of cfg. It connects nothing.
func NewPool(cfg *Config, opts PoolOptions) *Pool {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.ClientName == "" {
		opts.ClientName = "mcpcode"
	}
	return &Pool{cfg: cfg, opts: opts, ups: map[string]*upstream{}}
}

// Config returns the configuration the pool serves.
func (p *Pool) Config() *Config { return p.cfg }

// Listing is what a connected server offers.
type Listing struct {
	Server      string `json:"server"`
	Transport   string `json:"transport"`
	ServerName  string `json:"serverName"`
	ServerTitle string `json:"serverTitle,omitempty"`
	// ServerDescription is serverInfo.description (MCP 2025-11-25).
	ServerDescription string         `json:"serverDescription,omitempty"`
	ServerVersion     string         `json:"serverVersion"`
	Instructions      string         `json:"instructions,omitempty"`
	ProtocolVersion   string         `json:"protocolVersion"`
	Tools             []mcptool.Tool `json:"tools"`
	ConnectTime       time.Duration  `json:"-"`
	// Warnings name tool definitions that could not be read.
	Warnings []string `json:"warnings,omitempty"`
	// ToolWarnings are mcptool.Parse's warnings of each of Tools (fields
	// of the wrong type, ignored), for gen, which reads the tools as they
	// were parsed here instead of parsing them again.
	ToolWarnings [][]string `json:"-"`
}

// Tool returns the tool of that name.
func (l *Listing) Tool(name string) (mcptool.Tool, bool) {
	for _, t := range l.Tools {
		if t.Name == name {
			return t, true
		}
	}
	return mcptool.Tool{}, false
}

// RawTools returns the raw definitions, in the server's order.
func (l *Listing) RawTools() []json.RawMessage {
	out := make([]json.RawMessage, len(l.Tools))
	for i, t := range l.Tools {
		out[i] = t.Raw
	}
	return out
}

// Status is the outcome of connecting to one server.
type Status struct {
	Name      string
	Transport string
	Listing   *Listing // nil when Err is set
	Err       error
}

// ServerError is a failure of one server, with what its stderr said.
type ServerError struct {
	Server string
	Err    error
	Stderr []string // last lines of a stdio server's stderr
	// Stdout are the last lines a stdio server printed on stdout that were
	// not JSON-RPC (skipped, and often the reason it failed).
	Stdout  []string
	LogPath string // the server's full log, when kept
}

func (e *ServerError) Error() string { return fmt.Sprintf("server %q: %v", e.Server, e.Err) }
func (e *ServerError) Unwrap() error { return e.Err }

// Detail returns the error followed by the server's last stderr lines.
func (e *ServerError) Detail() string {
	var b strings.Builder
	b.WriteString(e.Error())
	if len(e.Stdout) > 0 {
		b.WriteString("\nlines it printed on stdout that are not JSON-RPC (skipped):")
		for _, l := range e.Stdout {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	if len(e.Stderr) > 0 {
		where := ""
		if e.LogPath != "" {
			where = " (full log: " + e.LogPath + ")"
		}
		fmt.Fprintf(&b, "\nlast lines of its stderr%s:", where)
		for _, l := range e.Stderr {
			b.WriteString("\n  ")
			b.WriteString(l)
		}
	}
	return b.String()
}

// ErrUnknownServer is wrapped by the errors about a server name the config
// does not have.
var ErrUnknownServer = mcptool.ErrUnknownServer

func (p *Pool) upstream(name string) (*upstream, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errors.New("the connection pool is closed")
	}
	if u, ok := p.ups[name]; ok {
		return u, nil
	}
	cfg, ok := p.cfg.Server(name)
	if !ok {
		names := p.cfg.Names()
		if len(names) == 0 {
			return nil, fmt.Errorf("%w %q: %s configures no servers", ErrUnknownServer, name, filepath.Base(p.cfg.Path))
		}
		return nil, fmt.Errorf("%w %q: %s configures %s", ErrUnknownServer, name, filepath.Base(p.cfg.Path), strings.Join(names, ", "))
	}
	logPath := ""
	if dir := p.opts.LogDir; dir != "" {
		logPath = filepath.Join(dir, logFileName(cfg.Name))
	}
	u := &upstream{pool: p, cfg: cfg, capture: newToolsCapture(), log: newServerLog(logPath)}
	u.capture.onNotice = u.notice // progress and log notifications, in order (notices.go)
	if cfg.Transport == TransportStdio && p.opts.Dial == nil && cfg.Err == nil {
		u.stdio = &stdioTransport{cfg: cfg, env: mergeEnv(p.opts.BaseEnv, cfg.Env), log: u.log, tap: u.capture.tapLine}
	}
	if (cfg.Transport == TransportHTTP || cfg.Transport == TransportSSE) && cfg.Err == nil {
		u.oauth = u.newOAuth()
	}
	p.ups[name] = u
	return u, nil
}

// Connect connects to a server (once) and returns its listing.
func (p *Pool) Connect(ctx context.Context, name string) (*Listing, error) {
	u, err := p.upstream(name)
	if err != nil {
		return nil, err
	}
	_, l, err := u.session(ctx)
	return l, err
}

// ConnectAll connects to the named servers (all enabled ones when names is
// empty) concurrently. done, if set, is called as each one finishes; the
// result is in the order of names.
func (p *Pool) ConnectAll(ctx context.Context, names []string, done func(Status)) []Status {
	if len(names) == 0 {
		names = p.cfg.Names()
	}
	out := make([]Status, len(names))
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := Status{Name: name}
			if cfg, ok := p.cfg.Server(name); ok {
				st.Transport = cfg.Transport
			}
			st.Listing, st.Err = p.Connect(ctx, name)
			out[i] = st
			if done != nil {
				mu.Lock()
				done(st)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return out
}

// Relist lists a connected server's tools again (after it announced a change).
func (p *Pool) Relist(ctx context.Context, name string) (*Listing, error) {
	u, err := p.upstream(name)
	if err != nil {
		return nil, err
	}
	return u.relist(ctx)
}

// Tools lists one server's tools, connecting to it on first use: the pool
// is the mcptool.Caller that programs' tool calls go through.
func (p *Pool) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	l, err := p.Connect(ctx, server)
	if err != nil {
		return nil, err
	}
	return l.Tools, nil
}

var _ mcptool.Caller = (*Pool)(nil)

// CallTool calls a tool, connecting first if needed. A tool that fails
// returns a result with IsError set, not an error; errors are transport
// failures. A call whose connection is lost is retried once on a new
// connection when the tool is read-only or idempotent.
func (p *Pool) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	u, err := p.upstream(server)
	if err != nil {
		return nil, err
	}
	sess, l, err := u.session(ctx)
	if err != nil {
		return nil, err
	}
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if t, ok := l.Tool(tool); ok && t.RequiresTask() {
		return taskRequired(server, tool), nil // fails at once, with the reason
	}
	ctx = withCall(ctx)
	defer u.inflight.begin(ctx)() // with the call's question count (a legacy server's requests are routed here)
	params := &mcp.CallToolParams{Name: tool, Arguments: args, Meta: requestMeta(sess)}
	if sink := mcptool.NoticesOf(ctx); sink != nil {
		token, done := u.progressTokens.add(sink)
		defer done()
		if params.Meta == nil {
			params.Meta = mcp.Meta{}
		}
		params.Meta["progressToken"] = token
	}
	res, err := callRaw(ctx, sess, params)
	if err == nil || ctx.Err() != nil || !connectionLost(err) {
		if err != nil {
			return nil, u.fail(callError(tool, err))
		}
		return res, nil
	}
	u.drop(sess)
	if t, ok := l.Tool(tool); !ok || !t.Hints.SafeToRetry() {
		return nil, u.fail(fmt.Errorf("connection lost while calling %s; not retried because the tool is not declared read-only or idempotent (the next call reconnects): %w", tool, err))
	}
	sess, _, err = u.session(ctx)
	if err != nil {
		return nil, err
	}
	res, err = callRaw(ctx, sess, params)
	if err != nil {
		return nil, u.fail(fmt.Errorf("calling %s after reconnecting: %w", tool, err))
	}
	return res, nil
}

// callError is a failed call's error. A question of the server that
// nobody could answer in a multi round-trip round (2026-07-28) stops the
// call there: the server is not sent the retry it waits for, which the
// error says (a server of an older revision gets the refusal as the
// answer to its own request, and decides what to do).
func callError(tool string, err error) error {
	var d *declinedError
	if errors.As(err, &d) { // only a round's question reaches here as itself
		return fmt.Errorf("calling %s: it was not completed: %s; the server, which needs that answer first, was sent nothing more", tool, d.msg)
	}
	// go-sdk's bounds on the rounds of one call (mrtr.go), said plainly.
	switch msg := err.Error(); {
	case strings.Contains(msg, "multi-round-trip: exceeded maximum retries"):
		return fmt.Errorf("calling %s: the server still asked for input after 10 rounds (input_required) and did not complete the call; mcpcode stopped there: %w", tool, err)
	case strings.Contains(msg, "multi-round-trip: exceeded maximum load-shedding retries"):
		return fmt.Errorf("calling %s: the server answered 3 times that it is busy (an input_required round asking nothing) and did not complete the call; try again later: %w", tool, err)
	}
	return fmt.Errorf("calling %s: %w", tool, err)
}

// requestMeta is the _meta mcpcode adds to a request of its own (go-sdk
// adds the revision's protocol version, client info and capabilities): on
// 2026-07-28, which has no logging/setLevel, the log level, so that a
// server that logs sends info and above (as connectLocked asks older ones
// once); nil when there is nothing to add.
func requestMeta(sess *mcp.ClientSession) mcp.Meta {
	init := sess.InitializeResult()
	if init == nil || init.ProtocolVersion < modernProtocolVersion || init.Capabilities == nil || init.Capabilities.Logging == nil {
		return nil
	}
	return mcp.Meta{mcp.MetaKeyLogLevel: "info"}
}

// callRaw calls a tool and returns its result as sent: from the wire tap
// when it caught it, else re-encoded from go-sdk's decoded result.
func callRaw(ctx context.Context, sess *mcp.ClientSession, params *mcp.CallToolParams) (*mcptool.Result, error) {
	slot := &resultSlot{}
	res, err := sess.CallTool(withResultSlot(ctx, slot), params)
	if why := slot.refusal(); why != "" {
		return nil, &declinedError{why} // a round refused before it was asked
	}
	if err != nil {
		return nil, err
	}
	if r, err, ok := slot.result(); ok {
		// Read once by the tap, as received.
		if err != nil {
			return nil, fmt.Errorf("decoding the result: %w", err)
		}
		return r, nil
	}
	r := &mcptool.Result{IsError: res.IsError}
	if r.Content, err = json.Marshal(res.Content); err != nil {
		return nil, fmt.Errorf("encoding the result: %w", err)
	}
	if string(r.Content) == "null" {
		r.Content = json.RawMessage(`[]`)
	}
	if res.StructuredContent != nil {
		if r.StructuredContent, err = json.Marshal(res.StructuredContent); err != nil {
			return nil, fmt.Errorf("encoding the result: %w", err)
		}
	}
	return r, nil
}

// Close closes every session and stops every stdio server.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	ups := make([]*upstream, 0, len(p.ups))
	for _, u := range p.ups {
		ups = append(ups, u)
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, u := range ups {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u.close()
		}()
	}
	wg.Wait()
	return nil
}

func connectionLost(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// upstream is one server's connection state.
type upstream struct {
	pool    *Pool
	cfg     ServerConfig
	capture *toolsCapture
	log     *serverLog      // .mcpcode/logs/<server>.log and the last lines of a stdio server's stderr
	stdio   *stdioTransport // starts a new process on each connect; nil unless stdio
	oauth   *oauthHandler   // authorizes an http or sse server's requests; nil when off

	inflight       inflight       // calls in progress, to route the server's requests
	progressTokens progressTokens // progress tokens of calls in progress

	timerMu sync.Mutex
	timer   *pausableTimer // the connect timeout while connecting

	mu      sync.Mutex // serializes connecting and listing
	sess    *mcp.ClientSession
	listing *Listing
}

// session returns a live session and its listing, connecting if there is none.
func (u *upstream) session(ctx context.Context) (*mcp.ClientSession, *Listing, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sess != nil {
		return u.sess, u.listing, nil
	}
	if err := u.connectLocked(ctx); err != nil {
		return nil, nil, err
	}
	return u.sess, u.listing, nil
}

func (u *upstream) connectLocked(ctx context.Context) error {
	if err := u.cfg.Err; err != nil {
		return u.fail(err) // a problem in its mcp.json entry
	}
	start := time.Now()
	timeout := u.pool.opts.ConnectTimeout
	// The connect timeout does not run while a person logs in (OAuth).
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	timer := newPausableTimer(timeout, cancel)
	defer timer.stop()
	u.setConnectTimer(timer)
	defer u.setConnectTimer(nil)

	sess, era, err := u.open(cctx, "", false)
	if err != nil && cctx.Err() == nil {
		if again, version, patient, why := retryOpening(era); again {
			u.settleStderr()
			sess, era, err = u.open(cctx, version, patient)
			u.log.note("connecting again", why)
		}
	}
	if err != nil {
		return u.fail(u.explainConnect(cctx, ctx, err, timeout, era))
	}
	if era.GaveUp != "" {
		u.log.note("connecting", "no answer to server/discover ("+era.GaveUp+"): connected with initialize")
	}
	modern := sess.InitializeResult() != nil && sess.InitializeResult().ProtocolVersion >= modernProtocolVersion
	if init := sess.InitializeResult(); !modern && init != nil && init.Capabilities != nil && init.Capabilities.Logging != nil {
		// Servers send log messages only once the client sets a level (some,
		// go-sdk's among them, none before): info and above reach the
		// server's log and the runs calling it. (On 2026-07-28 the level
		// travels in each request's _meta instead: requestMeta.)
		_ = sess.SetLoggingLevel(cctx, &mcp.SetLoggingLevelParams{Level: "info"})
	}
	l, err := u.list(cctx, sess)
	if err != nil {
		_ = sess.Close()
		if cctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("listing tools took longer than %s (--connect-timeout)", timeout)
		}
		return u.fail(err)
	}
	l.ConnectTime = time.Since(start)
	u.sess, u.listing = sess, l
	go func() {
		_ = sess.Wait()
		u.drop(sess)
	}()
	return nil
}

// open makes one connection and opens the session on it: at the newest
// revision both sides speak (version "": go-sdk probes with server/discover
// and falls back to initialize), or at version. patient lifts the probe's
// backstop (a server that already showed it is slow to start).
func (u *upstream) open(ctx context.Context, version string, patient bool) (*mcp.ClientSession, eraOutcome, error) {
	t, err := u.transport(ctx)
	if err != nil {
		return nil, eraOutcome{}, err
	}
	if version == "" && u.cfg.Transport == TransportSSE && u.pool.opts.Dial == nil {
		// The HTTP+SSE transport predates 2026-07-28, which has no such
		// binding: initialize negotiates the newest revision it can carry.
		version = legacyProtocolVersion
	}
	var probe *probeTransport
	if u.stdio != nil || u.pool.opts.Dial != nil {
		// A stdio server's silence to server/discover is bounded here. (An
		// HTTP server answers the probe's POST with an HTTP status, which
		// go-sdk takes as the era signal the HTTP binding prescribes; and
		// its connection cannot be wrapped without losing its session
		// handling.)
		probe = &probeTransport{Transport: t, patient: patient}
		t = probe
	}
	sess, err := u.newClient().Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	var era eraOutcome
	if probe != nil && probe.probe != nil {
		era = probe.probe.result()
		if err != nil {
			_ = probe.probe.Close() // go-sdk leaves it open on some failures
		} else {
			probe.probe.settle()
		}
	}
	return sess, era, err
}

// settleStderr waits (briefly) for the last of a stopped stdio server's
// stderr, so that it is not taken for the next process's.
func (u *upstream) settleStderr() {
	if u.stdio == nil {
		return
	}
	if p := u.stdio.running(); p != nil {
		select {
		case <-p.stderrDone:
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// retryOpening decides whether a failed opening is made again, and how:
// at the legacy revision when the server ended the connection on the
// server/discover probe (some legacy servers exit on an unknown first
// request); at the newest, patiently, when the probe gave up on a server
// that turned out to speak 2026-07-28 (it answered late, or its answer to
// initialize named the revision).
func retryOpening(era eraOutcome) (again bool, version string, patient bool, why string) {
	switch {
	case era.ClosedOnDiscover && !era.Modern:
		return true, legacyProtocolVersion, false, "the server ended the connection on server/discover (the 2026-07-28 probe); connected again with initialize at " + legacyProtocolVersion
	case era.GaveUp != "" && era.Modern && commonVersion(era.Supported) >= modernProtocolVersion:
		return true, "", true, "the server answered server/discover late (" + era.GaveUp + "); connected again at " + modernProtocolVersion
	}
	return false, "", false, ""
}

func (u *upstream) setConnectTimer(t *pausableTimer) {
	u.timerMu.Lock()
	defer u.timerMu.Unlock()
	u.timer = t
}

// pauseConnectTimeout stops the connect timeout (if connecting) until the
// returned function is called: a person logging in takes the time they
// need, bounded by the login timeout.
func (u *upstream) pauseConnectTimeout() (resume func()) {
	u.timerMu.Lock()
	t := u.timer
	u.timerMu.Unlock()
	if t == nil {
		return func() {}
	}
	t.pause()
	return t.resume
}

// pausableTimer calls fire after d of running time; pause and resume
// suspend it.
type pausableTimer struct {
	mu        sync.Mutex
	t         *time.Timer
	deadline  time.Time
	remaining time.Duration
	paused    int
	stopped   bool
}

func newPausableTimer(d time.Duration, fire func()) *pausableTimer {
	return &pausableTimer{t: time.AfterFunc(d, fire), deadline: time.Now().Add(d)}
}

func (p *pausableTimer) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused++
	if p.paused == 1 && !p.stopped && p.t.Stop() {
		p.remaining = time.Until(p.deadline)
	}
}

func (p *pausableTimer) resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused--
	if p.paused == 0 && !p.stopped && p.remaining > 0 {
		p.deadline = time.Now().Add(p.remaining)
		p.t.Reset(p.remaining)
		p.remaining = 0
	}
}

func (p *pausableTimer) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopped = true
	p.t.Stop()
}

// explainConnect turns a failed opening into a message a user can act on:
// what the server answered when it answered, never a guess.
func (u *upstream) explainConnect(cctx, ctx context.Context, err error, timeout time.Duration, era eraOutcome) error {
	var se *startError
	if errors.As(err, &se) {
		return se
	}
	if errors.Is(err, ErrNeedsLogin) {
		return loginErrorOf(err)
	}
	if u.oauth == nil && u.stdio == nil && strings.Contains(err.Error(), "Unauthorized") {
		return fmt.Errorf("connecting: %w; the server wants authorization: remove the Authorization header from its mcp.json entry to log in with OAuth (mcpcode auth %s), or check the header's token", err, u.cfg.Name)
	}
	if msg := versionMismatch(err, era); msg != "" {
		return errors.New(msg)
	}
	if rpc := answerOf(err, era); rpc != nil {
		return fmt.Errorf("the server refused to open the connection: it answered %s", describeRPCError(rpc))
	}
	if u.stdio != nil {
		if p := u.stdio.running(); p != nil {
			// Let the exit status and the last of its stderr and stdout
			// arrive if the process is going away.
			wait, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
			select {
			case <-p.exited:
				for _, done := range []<-chan struct{}{p.stderrDone, p.stdoutDone()} {
					select {
					case <-done:
					case <-wait.Done():
					}
				}
			case <-wait.Done():
			}
			cancel()
			if st := p.exitStatus(); st != "" && cctx.Err() == nil {
				step := "answering initialize"
				if era.ClosedOnDiscover {
					step = "answering server/discover"
				}
				if junk := u.log.junkLines(); len(junk) > 0 {
					return fmt.Errorf("the server %s before %s; it printed on stdout %q, which is not JSON-RPC (skipped)", st, step, junk[len(junk)-1])
				}
				return fmt.Errorf("the server %s before %s", st, step)
			}
		}
	}
	if cctx.Err() != nil && ctx.Err() == nil {
		awaiting := era.Awaiting
		if awaiting == "" {
			awaiting = "server/discover or initialize"
		}
		return fmt.Errorf("no answer to %s within %s (--connect-timeout); the server was stopped", awaiting, timeout)
	}
	if hint := u.transportHint(cctx, err); hint != "" {
		return fmt.Errorf("connecting: %w; %s", &clippedError{err}, hint)
	}
	return fmt.Errorf("connecting: %w", &clippedError{err})
}

// versionMismatch says, when the server named the revisions it speaks and
// mcpcode speaks none of them, which they are ("" otherwise).
func versionMismatch(err error, era eraOutcome) string {
	supported := era.Supported
	var rpc *jsonrpc.Error
	if len(supported) == 0 && errors.As(err, &rpc) {
		supported = supportedOf(rpc)
	}
	if len(supported) == 0 || commonVersion(supported) != "" {
		return ""
	}
	return fmt.Sprintf("the server speaks MCP revision %s, and mcpcode speaks %s: no revision in common (a newer mcpcode, or a release of the server that speaks one of these, is needed)", quoteAll(supported), speaks())
}

// quoteAll lists revisions a server sent, each quoted (they reach a
// terminal and agent hosts) and bounded, at most maxShownRevisions of
// them: a hostile server's list of ten thousand, or one revision of a
// megabyte, makes a short message.
func quoteAll(list []string) string {
	q := make([]string, 0, min(len(list), maxShownRevisions+1))
	for i, s := range list {
		if i == maxShownRevisions {
			q = append(q, fmt.Sprintf("and %d more", len(list)-i))
			break
		}
		q = append(q, quoteClipped(s, 40))
	}
	return strings.Join(q, ", ")
}

// maxShownRevisions bounds the revisions a message names.
const maxShownRevisions = 8

// quoteClipped quotes text a server sent, cut to at most n bytes (on a
// character boundary), saying how long it was when cut.
func quoteClipped(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	cut := s[:n]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(cut), len(s))
}

// clippedError bounds the text of an error that may hold what a server
// sent (go-sdk quotes it, whole), keeping the error to unwrap.
type clippedError struct{ err error }

// maxErrorText bounds clippedError's text.
const maxErrorText = 500

func (e *clippedError) Error() string {
	msg := e.err.Error()
	if len(msg) <= maxErrorText {
		return msg
	}
	cut := msg[:maxErrorText]
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return fmt.Sprintf("%s… (%d bytes in all)", cut, len(msg))
}

func (e *clippedError) Unwrap() error { return e.err }

// answerOf returns the JSON-RPC error the server answered the opening with
// (nil when it answered none).
func answerOf(err error, era eraOutcome) *jsonrpc.Error {
	if era.InitializeError != nil {
		return era.InitializeError
	}
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) {
		return nil
	}
	switch rpc.Code {
	case 0, -32003, -32004, -32005:
		return nil // go-sdk's own: closing, or a request the transport could not send
	}
	return rpc
}

// supportedOf is the "supported" list of an UnsupportedProtocolVersionError.
func supportedOf(rpc *jsonrpc.Error) []string {
	if rpc.Code != mcp.CodeUnsupportedProtocolVersion || len(rpc.Data) == 0 {
		return nil
	}
	var data mcp.UnsupportedProtocolVersionData
	if json.Unmarshal(rpc.Data, &data) != nil {
		return nil
	}
	return data.Supported
}

// describeRPCError shows a server's JSON-RPC error: its code and message,
// and the revisions it named.
func describeRPCError(rpc *jsonrpc.Error) string {
	s := fmt.Sprintf("error %d %s", rpc.Code, quoteClipped(rpc.Message, 300))
	if v := supportedOf(rpc); len(v) > 0 {
		s += fmt.Sprintf(" (it supports %s)", quoteAll(v))
	}
	return s
}

// transportHint checks, after an http or sse server answered initialize
// with an HTTP error, whether the url speaks the other transport, and says
// which "type" to write. It returns "" when that is not the problem.
func (u *upstream) transportHint(ctx context.Context, err error) string {
	if u.stdio != nil || u.pool.opts.Dial != nil || ctx.Err() != nil || !isHTTPStatusError(err) {
		return ""
	}
	other := TransportSSE
	if u.cfg.Transport == TransportSSE {
		other = TransportHTTP
	}
	probe := u.cfg
	probe.Transport = other
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	hc := serverClient(&httpRoundTripper{base: http.DefaultTransport, headers: probe.Headers}, probe.URL)
	var t mcp.Transport = &mcp.StreamableClientTransport{Endpoint: probe.URL, HTTPClient: hc, MaxRetries: -1, DisableStandaloneSSE: true}
	if other == TransportSSE {
		t = &detachedTransport{&mcp.SSEClientTransport{Endpoint: probe.URL, HTTPClient: hc}}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: u.pool.opts.ClientName, Version: u.pool.opts.ClientVersion}, nil)
	version := ""
	if other == TransportSSE {
		version = legacyProtocolVersion
	}
	sess, perr := client.Connect(pctx, t, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if perr != nil {
		return ""
	}
	_ = sess.Close()
	name := map[string]string{TransportHTTP: "streamable HTTP", TransportSSE: "SSE"}
	return fmt.Sprintf("the url speaks the %s transport, not %s: write \"type\": %q in its mcp.json entry", name[other], name[u.cfg.Transport], other)
}

// isHTTPStatusError reports whether err is an HTTP error status (the server
// answered, but not as the transport expected), as opposed to a network
// failure.
func isHTTPStatusError(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Not Found", "Bad Request", "Method Not Allowed", "Not Acceptable", "Unsupported Media Type", "404", "405", "400", "406", "415"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// list reads every tool, keeping the raw definitions.
func (u *upstream) list(ctx context.Context, sess *mcp.ClientSession) (*Listing, error) {
	init := sess.InitializeResult()
	l := &Listing{Server: u.cfg.Name, Transport: u.cfg.Transport}
	if init != nil {
		l.Instructions = init.Instructions
		l.ProtocolVersion = init.ProtocolVersion
		if si := init.ServerInfo; si != nil {
			l.ServerName, l.ServerTitle, l.ServerVersion, l.ServerDescription = si.Name, si.Title, si.Version, si.Description
		}
		if init.Capabilities == nil || init.Capabilities.Tools == nil {
			return l, nil // the server offers no tools
		}
	}
	var decoded []*mcp.Tool
	for t, err := range sess.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing tools: %w", err)
		}
		decoded = append(decoded, t)
	}
	raw := u.capture.take()
	if len(raw) == 0 && len(decoded) > 0 {
		var err error
		if raw, err = toolsFromSDK(decoded); err != nil {
			return nil, err
		}
	}
	parsed := parseTools(raw)
	seen := map[string]bool{}
	for _, p := range parsed {
		if p.err != nil {
			l.Warnings = append(l.Warnings, p.err.Error())
			continue
		}
		if seen[p.tool.Name] {
			l.Warnings = append(l.Warnings, fmt.Sprintf("tool %q is listed twice; the first is used", p.tool.Name))
			continue
		}
		if err := checkParamHeaders(p.tool.Raw); err != nil {
			l.Warnings = append(l.Warnings, fmt.Sprintf("tool %q is left out: %v (MCP 2026-07-28 forbids calling it)", p.tool.Name, err))
			continue
		}
		seen[p.tool.Name] = true
		l.Tools = append(l.Tools, p.tool)
		l.ToolWarnings = append(l.ToolWarnings, p.warnings)
	}
	return l, nil
}

type parsedTool struct {
	tool     mcptool.Tool
	warnings []string
	err      error
}

// parseTools parses raw tool definitions, a large catalog on every core.
func parseTools(raw []json.RawMessage) []parsedTool {
	out := make([]parsedTool, len(raw))
	const chunk = 64
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), (len(raw)+chunk-1)/chunk) {
		wg.Go(func() {
			for {
				start := int(next.Add(chunk)) - chunk
				if start >= len(raw) {
					return
				}
				for i := start; i < min(start+chunk, len(raw)); i++ {
					p := &out[i]
					p.tool, p.warnings, p.err = mcptool.Parse(raw[i])
				}
			}
		})
	}
	wg.Wait()
	return out
}

func (u *upstream) relist(ctx context.Context) (*Listing, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sess == nil {
		if err := u.connectLocked(ctx); err != nil {
			return nil, err
		}
		return u.listing, nil
	}
	cctx, cancel := context.WithTimeout(ctx, u.pool.opts.ConnectTimeout)
	defer cancel()
	l, err := u.list(cctx, u.sess)
	if err != nil {
		return nil, u.fail(err)
	}
	l.ConnectTime = u.listing.ConnectTime
	u.listing = l
	return l, nil
}

func (u *upstream) toolsChanged(context.Context, *mcp.ToolListChangedRequest) {
	if f := u.pool.opts.OnToolsChanged; f != nil {
		go f(u.cfg.Name)
	}
}

// drop forgets a session that is gone, so that the next use reconnects.
func (u *upstream) drop(sess *mcp.ClientSession) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.sess == sess {
		u.sess = nil
		_ = sess.Close()
	}
}

func (u *upstream) close() {
	u.mu.Lock()
	sess := u.sess
	u.sess = nil
	u.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
	if u.oauth != nil {
		u.oauth.close()
	}
	u.log.close()
}

// fail wraps err as this server's error, with its stderr when it has one.
func (u *upstream) fail(err error) error {
	var se *ServerError
	if errors.As(err, &se) {
		return err
	}
	se = &ServerError{Server: u.cfg.Name, Err: err}
	if u.stdio != nil {
		se.Stderr, se.Stdout = u.log.stderrLines(), u.log.junkLines()
		if len(se.Stderr)+len(se.Stdout) > 0 {
			se.LogPath = u.log.path
		}
	}
	return se
}

// transport builds the transport for the server's config.
func (u *upstream) transport(ctx context.Context) (mcp.Transport, error) {
	if dial := u.pool.opts.Dial; dial != nil {
		t, err := dial(ctx, u.cfg)
		if err != nil {
			return nil, err
		}
		return &capturingTransport{Transport: t, capture: u.capture}, nil
	}
	switch u.cfg.Transport {
	case TransportStdio:
		return &capturingTransport{Transport: u.stdio, capture: u.capture}, nil
	case TransportHTTP, TransportSSE:
		rt := &httpRoundTripper{base: http.DefaultTransport, headers: u.cfg.Headers, capture: u.capture}
		if u.oauth != nil {
			rt.dpop = u.oauth.dpop
		}
		hc := serverClient(rt, u.cfg.URL)
		if u.cfg.Transport == TransportSSE {
			// go-sdk's SSE transport has no OAuth hook: the round tripper
			// authorizes its requests.
			if u.oauth != nil {
				rt.oauth = u.oauth
			}
			return &detachedTransport{&mcp.SSEClientTransport{Endpoint: u.cfg.URL, HTTPClient: hc}}, nil
		}
		t := &mcp.StreamableClientTransport{Endpoint: u.cfg.URL, HTTPClient: hc}
		if u.oauth != nil {
			t.OAuthHandler = u.oauth
		}
		return t, nil
	}
	return nil, fmt.Errorf("unknown transport %q", u.cfg.Transport)
}

// mergeEnv returns base with the entries of extra added or replaced, sorted.
func mergeEnv(base []string, extra map[string]string) []string {
	m := map[string]string{}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	for k, v := range extra {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// logFileName makes a server name safe as a file name.
func logFileName(server string) string {
	var b strings.Builder
	for _, r := range server {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "server"
	}
	return name + ".log"
}

// detachedTransport connects with a context of its own. go-sdk's SSE client
// ties its event stream to the context given to Connect, so a connect
// timeout would later cut a healthy session; here the timeout only bounds
// the connecting, and closing the connection ends the stream.
type detachedTransport struct{ mcp.Transport }

func (t *detachedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	own, cancel := context.WithCancel(context.Background())
	type result struct {
		conn mcp.Connection
		err  error
	}
	done := make(chan result, 1)
	go func() {
		conn, err := t.Transport.Connect(own)
		done <- result{conn, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			cancel()
			return nil, r.err
		}
		return &cancelOnClose{Connection: r.conn, cancel: cancel}, nil
	case <-ctx.Done():
		cancel()
		return nil, ctx.Err()
	}
}

type cancelOnClose struct {
	mcp.Connection
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}
