package servers

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpcode/mcpcode/internal/mcptool"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ClientHandlers answer the requests an upstream server makes of mcpcode
// while it serves a tool call: elicitation (ask the person a question,
// through a form) and sampling (ask a model). A nil function declines with
// a message saying why, which the server usually passes on in its tool
// result, so the program sees it.
type ClientHandlers struct {
	// Elicit asks the person and returns their answer.
	Elicit func(ctx context.Context, r *ElicitRequest) (*mcp.ElicitResult, error)
	// Sample asks a model (mcpcode has none; `mcpcode serve` forwards to
	// the agent host's).
	Sample func(ctx context.Context, r *SampleRequest) (*mcp.CreateMessageResult, error)
	// NoElicit and NoSample say why the request cannot be answered when
	// Elicit or Sample is nil ("no terminal to ask the person in").
	NoElicit, NoSample string
}

// ElicitRequest is a server's question for the person.
type ElicitRequest struct {
	Server string
	Params *mcp.ElicitParams
	// Order is the order of the requested schema's properties as the
	// server sent them, when known (Params holds them in a map).
	Order []string
}

// SampleRequest is a server's request for a model's completion.
type SampleRequest struct {
	Server string
	Params *mcp.CreateMessageParams
}

type handlersKey struct{}

// WithClientHandlers returns ctx carrying the handlers that answer what a
// server asks during the calls made with it (`mcpcode serve` forwards each
// run's requests to the host session that started the run). A pointer
// identifies the handlers: calls carrying the same pointer belong to the
// same requester.
func WithClientHandlers(ctx context.Context, h *ClientHandlers) context.Context {
	return context.WithValue(ctx, handlersKey{}, h)
}

func handlersOf(ctx context.Context) *ClientHandlers {
	h, _ := ctx.Value(handlersKey{}).(*ClientHandlers)
	return h
}

// inflight is the registry of one upstream's tool calls in progress, with
// whose handlers answer for each. go-sdk hands a server's request to the
// client's handler with a context of its own, not the context of the call
// the server is serving; a request is routed to the requester of the calls
// in flight, and declined when they belong to different requesters.
type inflight struct {
	mu    sync.Mutex
	next  int
	calls map[int]inflightCall
}

type inflightCall struct {
	h    *ClientHandlers // nil: the pool's default handlers
	ctx  context.Context
	sink *mcptool.NoticeSink // nil: notices go only to the server's log
}

// begin registers a call; the returned function ends it.
func (f *inflight) begin(ctx context.Context) func() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[int]inflightCall{}
	}
	f.next++
	id := f.next
	f.calls[id] = inflightCall{h: handlersOf(ctx), ctx: ctx, sink: mcptool.NoticesOf(ctx)}
	return func() {
		f.mu.Lock()
		delete(f.calls, id)
		f.mu.Unlock()
	}
}

// sinks returns the distinct notice sinks of the calls in flight when
// they all belong to one requester (the same handlers), and none when
// calls of several requesters are: a log message is about the server's
// session, not a call, so it could be about any of them (runs sharing a
// workspace session's server, or serve's runs), and it stays in the
// server's log, as a question is declined (route).
func (f *inflight) sinks() []*mcptool.NoticeSink {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.oneRequester(); !ok {
		return nil
	}
	var out []*mcptool.NoticeSink
	for _, c := range f.calls {
		if c.sink != nil && c.sink.Send != nil && !slices.Contains(out, c.sink) {
			out = append(out, c.sink)
		}
	}
	return out
}

// oneRequester returns one of the calls in flight, and whether they all
// belong to one requester (the same handlers); f.mu is held.
func (f *inflight) oneRequester() (one inflightCall, ok bool) {
	first := true
	for _, c := range f.calls {
		switch {
		case first:
			one, first = c, false
		case c.h != one.h:
			return inflightCall{}, false
		}
	}
	return one, true
}

// declinedError is a server's question that nobody here can answer.
type declinedError struct{ msg string }

func (e *declinedError) Error() string { return e.msg }

// errAmbiguous is a server request that cannot be attributed to one
// requester.
var errAmbiguous = errors.New("several programs are calling this server at once, so mcpcode cannot tell which one this request is for; it is declined")

// errNoCall is a server's question while no call of mcpcode's is in
// flight: MCP requires elicitation and sampling to belong to a request of
// the client's (SEP-2260), and a question of no call would not be counted
// against any call's bound (maxQuestionsPerCall).
var errNoCall = &declinedError{"declined: the server asked while no call of mcpcode's was in progress on it (MCP allows a server to ask only while it serves a request of the client's)"}

// route returns the handlers for a server's request: those of the calls in
// flight if they all share them, else the pool's default (only calls
// without handlers of their own). callCtx is the context of a call it
// belongs to. With no call in flight the request is declined.
func (f *inflight) route(def *ClientHandlers) (h *ClientHandlers, callCtx context.Context, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return nil, nil, errNoCall
	}
	c, ok := f.oneRequester()
	if !ok {
		return nil, nil, errAmbiguous
	}
	h, callCtx = c.h, c.ctx
	if h == nil {
		h = def
	}
	return h, callCtx, nil
}

type callKey struct{}

// withCall marks ctx as the context of a request mcpcode makes of the
// server (a tool call, a resource read), with the count of what the
// server asks during it (callQuestions). A 2026-07-28 server asks what it
// needs by answering such a request with an interim result (multi
// round-trip requests); go-sdk then runs the handlers with the context of
// that very request, so what the server asks is attributed to its
// requester exactly, whoever else is calling the server.
func withCall(ctx context.Context) context.Context {
	return context.WithValue(ctx, callKey{}, &callQuestions{turn: make(chan struct{}, 1)})
}

// maxQuestionsPerCall bounds the questions (elicitation, sampling) one
// request of mcpcode's may put to the person or the agent host. go-sdk
// bounds a call's input_required rounds (ten), not what one round asks (a
// round may hold a thousand questions), and a server of an older revision
// asks by requests of its own, which nothing bounds: without a bound, a
// server could keep the person answering, one Enter after another.
const maxQuestionsPerCall = 10

// callQuestions are the questions a server put during one call: counted
// as they arrive (the bound of a server of an older revision, or of a
// round the capture did not count: it refuses a 2026-07-28 round over the
// bound whole, before any of it is asked), asked one at a time (the
// terminal and the host are asked one at a time anyway), and none asked
// after the person cancelled one.
type callQuestions struct {
	arrived   atomic.Int32
	turn      chan struct{} // held while a question of the call is out
	cancelled bool          // under turn
}

func questionsOf(ctx context.Context) *callQuestions {
	if ctx == nil {
		return nil
	}
	q, _ := ctx.Value(callKey{}).(*callQuestions)
	return q
}

// errCancelled is returned by callQuestions.take once the person
// cancelled a question of the call.
var errCancelled = errors.New("the person cancelled an earlier question of this call")

// take counts a question and waits for the call's turn to ask it
// (release gives the turn back). It fails, at once, when the call's
// server asked more than maxQuestionsPerCall questions, and with
// errCancelled once the person cancelled one.
func (q *callQuestions) take(ctx context.Context) (release func(), err error) {
	if q.arrived.Add(1) > maxQuestionsPerCall {
		return nil, &declinedError{fmt.Sprintf("declined: the server asked more than %d questions during one call; mcpcode puts at most %d to the person per call, so that a server cannot keep the person answering", maxQuestionsPerCall, maxQuestionsPerCall)}
	}
	select {
	case q.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	release = func() { <-q.turn }
	if q.cancelled {
		release()
		return nil, errCancelled
	}
	return release, nil
}

// questionsFor is the question count of the call a server's request
// belongs to: the request it answers (hctx, 2026-07-28), else the call in
// flight it was routed to (callCtx); nil when neither is a call.
func questionsFor(hctx, callCtx context.Context) *callQuestions {
	if q := questionsOf(hctx); q != nil {
		return q
	}
	return questionsOf(callCtx)
}

// route returns the handlers for a server's request, given the context
// go-sdk runs the handler with: the handlers of the request it answers
// when that context is one (an input request of a multi round-trip
// request), else the route of the calls in flight (a request the server
// sent on its own, before 2026-07-28).
func (u *upstream) route(hctx context.Context) (h *ClientHandlers, callCtx context.Context, err error) {
	if hctx.Value(callKey{}) != nil {
		if h = handlersOf(hctx); h == nil {
			h = u.pool.opts.Handlers
		}
		return h, nil, nil // hctx ends with the request
	}
	return u.inflight.route(u.pool.opts.Handlers)
}

// requestContext is the context a handler runs in: the handler's own
// (go-sdk cancels it when the server gives up), also ended when the call
// that the request belongs to ends.
func requestContext(hctx, callCtx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(hctx)
	if callCtx == nil {
		return ctx, cancel
	}
	stop := context.AfterFunc(callCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

// elicit answers a server's elicitation request.
func (u *upstream) elicit(hctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	h, callCtx, err := u.route(hctx)
	if err != nil {
		u.log.note("elicitation declined", err.Error())
		return nil, err
	}
	if h == nil || h.Elicit == nil {
		why := "mcpcode has no way to ask the person here"
		if h != nil && h.NoElicit != "" {
			why = h.NoElicit
		}
		err := &declinedError{fmt.Sprintf("declined: the server asked the user %q, but %s", req.Params.Message, why)}
		u.log.note("elicitation declined", err.Error())
		return nil, err
	}
	ctx, cancel := requestContext(hctx, callCtx)
	defer cancel()
	q := questionsFor(hctx, callCtx)
	if q != nil {
		release, err := q.take(ctx)
		if errors.Is(err, errCancelled) {
			u.log.note("elicitation", "answered cancel without asking: "+err.Error())
			return &mcp.ElicitResult{Action: "cancel"}, nil
		}
		if err != nil {
			u.log.note("elicitation declined", err.Error())
			return nil, err
		}
		defer release()
	}
	res, err := h.Elicit(ctx, &ElicitRequest{Server: u.cfg.Name, Params: req.Params, Order: u.formOrder(req.Params)})
	if err != nil {
		u.log.note("elicitation failed", err.Error())
		return nil, err
	}
	if q != nil && res.Action == "cancel" {
		q.cancelled = true // under the call's turn, released after this
	}
	u.log.note("elicitation", "the user answered: "+res.Action)
	return res, nil
}

// formOrder is the property order of an elicitation's schema as sent.
func (u *upstream) formOrder(p *mcp.ElicitParams) []string {
	schema, ok := p.RequestedSchema.(map[string]any)
	if !ok {
		return nil
	}
	props, _ := schema["properties"].(map[string]any)
	set := map[string]bool{}
	for k := range props {
		set[k] = true
	}
	if len(set) == 0 {
		return nil
	}
	return u.capture.formOrder(set)
}

// sample answers a server's sampling request.
func (u *upstream) sample(hctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	h, callCtx, err := u.route(hctx)
	if err != nil {
		u.log.note("sampling declined", err.Error())
		return nil, err
	}
	if h == nil || h.Sample == nil {
		why := "mcpcode has no model of its own; only `mcpcode serve` forwards sampling, to the agent host"
		if h != nil && h.NoSample != "" {
			why = h.NoSample
		}
		err := &declinedError{fmt.Sprintf("declined: the server asked for a model's completion (sampling), but %s", why)}
		u.log.note("sampling declined", err.Error())
		return nil, err
	}
	ctx, cancel := requestContext(hctx, callCtx)
	defer cancel()
	if q := questionsFor(hctx, callCtx); q != nil {
		release, err := q.take(ctx)
		if err != nil {
			u.log.note("sampling declined", err.Error())
			return nil, err
		}
		defer release()
	}
	res, err := h.Sample(ctx, &SampleRequest{Server: u.cfg.Name, Params: req.Params})
	if err != nil {
		u.log.note("sampling failed", err.Error())
		return nil, err
	}
	return res, nil
}

// roots are the roots offered to the server: its own "roots" from mcp.json,
// else the pool's default.
func (u *upstream) roots() []*mcp.Root {
	dirs := u.cfg.Roots
	if dirs == nil {
		dirs = u.pool.opts.DefaultRoots
	}
	out := make([]*mcp.Root, 0, len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			continue
		}
		out = append(out, &mcp.Root{Name: filepath.Base(abs), URI: (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()})
	}
	return out
}

// newClient is the go-sdk client of one connection to the server: it
// declares roots, elicitation (form) and sampling, and routes the server's
// requests and notifications.
func (u *upstream) newClient() *mcp.Client {
	c := mcp.NewClient(&mcp.Implementation{Name: u.pool.opts.ClientName, Version: u.pool.opts.ClientVersion}, &mcp.ClientOptions{
		Capabilities:           &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}},
		ToolListChangedHandler: u.toolsChanged,
		ElicitationHandler:     u.elicit,
		CreateMessageHandler:   u.sample,
		// Progress and log notifications are taken by the capture, in order
		// (upstream.notice); go-sdk's handlers are not set.
	})
	c.AddRoots(u.roots()...)
	return c
}
