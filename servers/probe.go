package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The protocol revisions mcpcode names. It speaks every revision go-sdk
// speaks (mcp.SupportedProtocolVersions): the newest, 2026-07-28, has no
// initialize handshake (a stateless core; go-sdk opens it with
// server/discover); the older ones open with initialize.
const (
	modernProtocolVersion = "2026-07-28"
	legacyProtocolVersion = "2025-11-25"
)

// How long the server/discover probe of a stdio server waits (see
// eraProbe). The 2026-07-28 stdio binding tells a client to fall back to
// initialize when the server "does not respond within a reasonable
// timeout"; a fixed timeout is either long (every connect to such a server
// pays it) or shorter than a slow server's start (npx fetching a package,
// a JVM). So the wait is measured from the server's own answer to a ping
// sent behind the probe: a server that answers the ping has read the probe
// and chose not to answer it.
const (
	// discoverPingAfter: a server that is up answers server/discover (or
	// rejects it) in a few milliseconds; only one that has not answered by
	// then is pinged. go-sdk's and the TypeScript SDK's servers answer at
	// once, so none of them is ever pinged once started.
	discoverPingAfter = 100 * time.Millisecond
	// discoverGrace is how long the answer to server/discover may trail the
	// ping's: servers answer concurrently, not always in order (the
	// TypeScript SDK v2 answers a later initialize before a discover).
	discoverGrace = 250 * time.Millisecond
	// discoverBackstop bounds a server that answers neither the probe nor
	// the ping (legacy servers must answer ping at any time). Falling back
	// then is safe: a legacy server still answers initialize when it gets
	// to it, and a modern one's late answer to the probe is kept, so that
	// the connection is made again the modern way (upstream.connectLocked).
	discoverBackstop = 10 * time.Second
)

// probePingID is the id of the probe's own ping (go-sdk's ids are numbers).
const probePingID = "mcpcode-discover-ping"

// eraProbe watches one connection's opening: it bounds the wait for the
// answer to server/discover, which some legacy stdio servers never send
// (go-sdk waits for it without a timeout of its own), and it keeps what the
// server answered to server/discover and initialize, so that a failed
// connect says what the server actually speaks.
type eraProbe struct {
	conn                       mcp.Connection
	pingAfter, grace, backstop time.Duration
	patient                    bool // wait for the answer to server/discover, however late

	writeMu sync.Mutex // the probe's own ping and go-sdk's writes
	synth   chan jsonrpc.Message
	done    chan struct{} // closed by Close
	once    sync.Once
	// filtering is set once a read may have to be dropped (the ping's
	// answer, a late answer to a probe given up on); opened once the
	// connection is open (settled), when reads need no further look unless
	// filtering.
	filtering, opened atomic.Bool
	pending           chan readResult // a read started while probing, not yet taken

	mu           sync.Mutex
	discovers    map[string]*probeCall // server/discover requests not yet answered
	gaveUp       map[string]bool       // those answered by the probe itself
	initID       string                // idKey of the initialize request
	initAnswered bool
	alive        chan struct{} // closed when the ping was answered
	pinged       bool
	outcome      eraOutcome
}

type probeCall struct {
	answered chan struct{}
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// eraOutcome is what a connection's opening showed.
type eraOutcome struct {
	// Supported are the revisions the server said it supports: its
	// DiscoverResult's supportedVersions, or the "supported" list of an
	// UnsupportedProtocolVersionError (-32022) it answered with.
	Supported []string
	// Modern is set when the server answered server/discover as a 2026-07-28
	// server does (a result, or -32022), even late.
	Modern bool
	// DiscoverError is the server's error answer to server/discover.
	DiscoverError *jsonrpc.Error
	// InitializeError is the server's error answer to initialize.
	InitializeError *jsonrpc.Error
	// GaveUp says why the probe answered server/discover itself ("" when
	// it did not).
	GaveUp string
	// ClosedOnDiscover is set when the connection ended while
	// server/discover was unanswered (a server that exits on it).
	ClosedOnDiscover bool
	// Awaiting is the opening request last sent without an answer yet
	// ("server/discover" or "initialize"; "" when none).
	Awaiting string
}

// probeTransport wraps the connections of a transport in an eraProbe.
type probeTransport struct {
	mcp.Transport
	// patient: the server is known to answer server/discover, late; the
	// probe waits for it (the connect timeout bounds the wait).
	patient bool
	// probe is set by Connect: the probe of the latest connection.
	probe *eraProbe
}

func (t *probeTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.probe = newEraProbe(conn)
	t.probe.patient = t.patient
	return t.probe, nil
}

func newEraProbe(conn mcp.Connection) *eraProbe {
	return &eraProbe{
		conn: conn, pingAfter: discoverPingAfter, grace: discoverGrace, backstop: discoverBackstop,
		synth: make(chan jsonrpc.Message, 4), done: make(chan struct{}), alive: make(chan struct{}),
		discovers: map[string]*probeCall{}, gaveUp: map[string]bool{},
	}
}

// settle marks the connection open: from now on reads are only looked at
// when one may be the probe's.
func (p *eraProbe) settle() { p.opened.Store(true) }

// result returns what the opening showed so far.
func (p *eraProbe) result() eraOutcome {
	p.mu.Lock()
	defer p.mu.Unlock()
	o := p.outcome
	o.Supported = slices.Clone(o.Supported)
	return o
}

func (p *eraProbe) SessionID() string { return p.conn.SessionID() }

func (p *eraProbe) Close() error {
	p.once.Do(func() { close(p.done) })
	return p.conn.Close()
}

func (p *eraProbe) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() || (req.Method != "server/discover" && req.Method != "initialize") {
		return p.write(ctx, msg)
	}
	key := idKey(req.ID)
	if req.Method == "initialize" {
		p.mu.Lock()
		p.initID = key
		p.mu.Unlock()
		err := p.write(ctx, msg)
		if err == nil {
			p.mu.Lock()
			if !p.initAnswered {
				p.outcome.Awaiting = req.Method
			}
			p.mu.Unlock()
		}
		return err
	}
	call := &probeCall{answered: make(chan struct{})}
	p.mu.Lock()
	p.discovers[key] = call
	p.outcome.Awaiting = req.Method
	p.mu.Unlock()
	if err := p.write(ctx, msg); err != nil {
		p.mu.Lock()
		delete(p.discovers, key)
		p.mu.Unlock()
		return err
	}
	if !p.patient {
		go p.watch(key, req.ID, call)
	}
	return nil
}

func (p *eraProbe) write(ctx context.Context, msg jsonrpc.Message) error {
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	return p.conn.Write(ctx, msg)
}

// watch answers a server/discover request itself when the server does not:
// once the server has answered a ping sent after it (plus discoverGrace),
// or after discoverBackstop if it answers nothing.
func (p *eraProbe) watch(key string, id jsonrpc.ID, call *probeCall) {
	backstop := time.NewTimer(p.backstop)
	defer backstop.Stop()
	select {
	case <-call.answered:
		return
	case <-p.done:
		return
	case <-time.After(p.pingAfter):
	}
	p.ping()
	reason := fmt.Sprintf("it answered neither server/discover nor ping within %s", p.backstop)
	select {
	case <-call.answered:
		return
	case <-p.done:
		return
	case <-backstop.C:
	case <-p.alive:
		select {
		case <-call.answered:
			return
		case <-p.done:
			return
		case <-time.After(p.grace):
		}
		reason = "it answered ping but not server/discover"
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.discovers[key]; !ok {
		return
	}
	delete(p.discovers, key)
	p.gaveUp[key] = true
	p.filtering.Store(true)
	p.outcome.GaveUp = reason
	// Any error that is not a modern one makes go-sdk fall back to
	// initialize, as the stdio binding prescribes. (Sent under mu, so that
	// Read, which checks under mu, cannot miss it; synth has room for
	// every discover go-sdk sends, at most two.)
	p.synth <- &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
		Message: "no answer to server/discover (" + reason + "); taken as a server of an older revision"}}
}

// ping sends the probe's ping once.
func (p *eraProbe) ping() {
	p.mu.Lock()
	if p.pinged {
		p.mu.Unlock()
		return
	}
	p.pinged = true
	p.mu.Unlock()
	p.filtering.Store(true)
	id, _ := jsonrpc.MakeID(probePingID)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.write(ctx, &jsonrpc.Request{ID: id, Method: "ping", Params: json.RawMessage(`{}`)})
}

func (p *eraProbe) probing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.discovers) > 0 || len(p.synth) > 0
}

func (p *eraProbe) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		if p.pending == nil && !p.probing() {
			msg, err := p.conn.Read(ctx)
			if drop := p.note(msg, err); drop {
				continue
			}
			return msg, err
		}
		if p.pending == nil {
			// A read of its own, so that an answer the probe makes up can
			// overtake it; it is taken by this or a later Read.
			ch := make(chan readResult, 1)
			go func() {
				msg, err := p.conn.Read(ctx)
				ch <- readResult{msg, err}
			}()
			p.pending = ch
		}
		select {
		case msg := <-p.synth:
			return msg, nil
		case r := <-p.pending:
			p.pending = nil
			if drop := p.note(r.msg, r.err); drop {
				continue
			}
			return r.msg, r.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// note looks at a message read from the server; drop reports that it is
// the probe's and go-sdk must not see it.
func (p *eraProbe) note(msg jsonrpc.Message, err error) (drop bool) {
	if p.opened.Load() && !p.filtering.Load() {
		return false
	}
	if err != nil {
		p.mu.Lock()
		if len(p.discovers) > 0 {
			p.outcome.ClosedOnDiscover = true
		}
		p.mu.Unlock()
		return false
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || !resp.ID.IsValid() {
		return false
	}
	if s, ok := resp.ID.Raw().(string); ok && s == probePingID {
		p.mu.Lock()
		select {
		case <-p.alive:
		default:
			close(p.alive)
		}
		p.mu.Unlock()
		return true
	}
	key := idKey(resp.ID)
	p.mu.Lock()
	defer p.mu.Unlock()
	if key == p.initID {
		p.initAnswered = true
		p.outcome.Awaiting = ""
		if resp.Error != nil {
			p.outcome.InitializeError = wireError(resp.Error)
			p.noteSupported(p.outcome.InitializeError)
		}
		return false
	}
	call, pending := p.discovers[key]
	late := p.gaveUp[key]
	if !pending && !late {
		return false
	}
	if pending {
		delete(p.discovers, key)
		close(call.answered)
		if p.outcome.Awaiting == "server/discover" {
			p.outcome.Awaiting = ""
		}
	}
	if resp.Error != nil {
		p.outcome.DiscoverError = wireError(resp.Error)
		p.noteSupported(p.outcome.DiscoverError)
	} else {
		var r struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		if json.Unmarshal(resp.Result, &r) == nil && len(r.SupportedVersions) > 0 {
			p.outcome.Supported, p.outcome.Modern = r.SupportedVersions, true
		}
	}
	return late // go-sdk was answered already: its late answer is only noted
}

// noteSupported keeps the "supported" list of an
// UnsupportedProtocolVersionError.
func (p *eraProbe) noteSupported(e *jsonrpc.Error) {
	if e == nil || e.Code != mcp.CodeUnsupportedProtocolVersion || len(e.Data) == 0 {
		return
	}
	var data mcp.UnsupportedProtocolVersionData
	if json.Unmarshal(e.Data, &data) == nil && len(data.Supported) > 0 {
		p.outcome.Supported = data.Supported
		if slices.ContainsFunc(data.Supported, func(v string) bool { return v >= modernProtocolVersion }) {
			p.outcome.Modern = true
		}
	}
}

func wireError(err error) *jsonrpc.Error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we
	}
	return &jsonrpc.Error{Message: err.Error()}
}

// speaks is the list of revisions mcpcode speaks, for messages.
func speaks() string { return strings.Join(mcp.SupportedProtocolVersions(), ", ") }

// commonVersion returns the newest revision of supported that mcpcode
// speaks ("" when none).
func commonVersion(supported []string) string {
	for _, v := range mcp.SupportedProtocolVersions() {
		if slices.Contains(supported, v) {
			return v
		}
	}
	return ""
}
