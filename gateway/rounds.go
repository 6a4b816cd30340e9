package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Runs of hosts on protocol 2026-07-28, asked through input_required
// rounds (multi round-trip requests).
//
// Such a host cannot be sent a request while it waits for a call: when a
// run needs the person (a write to confirm, an upstream server's question),
// the gateway answers the host's call with input_required, and the host
// retries the same call with the answer and the requestState it got. In
// between, the run is held here, paused: the call that needs the answer
// waits, and so does every new upstream request, so that what the run sent
// before the round is exactly what its journal holds. A round is asked only
// when no upstream request is in flight.
//
// The retry may reach this process or another replica of the workspace.
// Here, the answer goes to the held run and it goes on. Elsewhere, the
// replica runs the program again from the journal (journal.go); the held
// run here never gets the answer (the state is used once) and ends with
// its time limit.

// maxHeldRuns bounds the runs a process holds between rounds; past it the
// one paused longest is stopped (its host can still resume it from the
// journal, where it has one).
const maxHeldRuns = 32

// Input request keys of the questions.
const (
	inputConfirm  = "confirm"
	inputUpstream = "upstream"
)

func inputKey(kind string) string {
	if kind == questionWrite {
		return inputConfirm
	}
	return inputUpstream
}

// heldRun is one run of a modern host's call, across its rounds.
type heldRun struct {
	g    *Gateway
	id   string
	call string // the binding of the host's call (tool and arguments)
	gate *gate

	cancel context.CancelFunc
	done   chan struct{} // closed when the run ended; result is set then
	result *mcp.CallToolResult

	mu      sync.Mutex
	changed chan struct{} // closed and replaced at every change a waiting host call looks at
	// active counts upstream requests in flight (and answered writes about
	// to be sent): a round is asked only when it is 0.
	active int
	// paused is set while questions are raised: new requests wait until
	// the last is answered (resumed is closed then).
	paused  bool
	resumed chan struct{}
	queue   []*waitingQuestion // raised, not yet asked
	out     *waitingQuestion   // asked in the last round, not yet answered
	round   int
	// upstreamWaiting counts calls in flight waiting for an answer to an
	// upstream server's question: while there are any, the run cannot be
	// resumed elsewhere (those calls would be lost).
	upstreamWaiting int
	// entries is the journal: every upstream request answered so far.
	entries  []journalEntry
	size     int
	overflow bool // the journal outgrew maxJournalBytes and was dropped
	// preset is the answer a resumed run got before it reached the write
	// it answers.
	preset   *presetAnswer
	pausedAt time.Time
}

type waitingQuestion struct {
	*hostQuestion
	answer chan answered // buffered 1
	// settled is set when deliver took the question off the run (with an
	// answer or an error); reserved when it reserved a place for the
	// answered write.
	settled, reserved bool
}

type answered struct {
	resp mcp.InputResponse
	err  error
}

type presetAnswer struct {
	binding string
	resp    mcp.InputResponse
}

func newHeldRun(g *Gateway, id, call string) *heldRun {
	return &heldRun{g: g, id: id, call: call, done: make(chan struct{}), changed: make(chan struct{})}
}

// notify wakes the host call waiting on the run. Callers hold r.mu.
func (r *heldRun) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

type grantKey struct{}

// ask raises a question and waits for its answer (asker). An answer that
// allows a write reserves the write's place among the requests in flight:
// send it with the returned context, or call release.
func (r *heldRun) ask(ctx context.Context, q *hostQuestion) (mcp.InputResponse, context.Context, func(), error) {
	r.mu.Lock()
	if p := r.preset; p != nil && q.kind == questionWrite && p.binding == q.binding {
		r.preset = nil
		r.active++
		r.mu.Unlock()
		return p.resp, context.WithValue(ctx, grantKey{}, true), r.release, nil
	}
	w := &waitingQuestion{hostQuestion: q, answer: make(chan answered, 1)}
	r.queue = append(r.queue, w)
	if !r.paused {
		r.paused, r.resumed, r.pausedAt = true, make(chan struct{}), time.Now()
	}
	if q.kind == questionUpstream {
		r.active-- // the call asking is in flight but waits for the person
		r.upstreamWaiting++
	}
	r.notify()
	r.mu.Unlock()
	select {
	case a := <-w.answer:
		if a.err != nil {
			return nil, ctx, func() {}, a.err
		}
		return a.resp, context.WithValue(ctx, grantKey{}, true), r.release, nil
	case <-ctx.Done():
		r.mu.Lock()
		r.queue = slices.DeleteFunc(r.queue, func(x *waitingQuestion) bool { return x == w })
		if r.out == w {
			r.out = nil
			if q.kind == questionWrite {
				// The round was asked (the program gave up on its write:
				// its call's timeoutMs or signal, or the run's end). Its
				// requestState stays valid, and its answer resumes the run
				// from the journal, on any replica, which then sends what
				// this run would send from here: so this run sends nothing
				// more. It stays paused and stops.
				r.cancel()
				r.notify()
				r.mu.Unlock()
				return nil, ctx, func() {}, ctx.Err()
			}
		}
		switch {
		case w.reserved:
			r.active-- // the answered write is not sent
		case !w.settled && q.kind == questionUpstream:
			r.active++ // the call that asked goes on (and ends: ctx is done)
			r.upstreamWaiting--
		}
		r.unpauseIfIdle()
		r.notify()
		r.mu.Unlock()
		return nil, ctx, func() {}, ctx.Err()
	}
}

// release gives back an answered write's place (it was not sent after all).
func (r *heldRun) release() {
	r.mu.Lock()
	r.active--
	r.notify()
	r.mu.Unlock()
}

// unpauseIfIdle ends the pause when no question is raised. Callers hold
// r.mu.
func (r *heldRun) unpauseIfIdle() {
	if r.paused && r.out == nil && len(r.queue) == 0 {
		r.paused = false
		close(r.resumed)
	}
}

// deliver gives the answer of round to the question asked in it; false
// when this run is not waiting for that round's answer.
func (r *heldRun) deliver(round int, a answered) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.out
	if w == nil || r.round != round || r.finished() {
		return false
	}
	r.out = nil
	w.settled = true
	switch {
	case w.kind == questionUpstream:
		r.active++ // the call that asked goes on
		r.upstreamWaiting--
	case a.err == nil:
		r.active++ // a place for the write, if the answer allows it
		w.reserved = true
	}
	r.unpauseIfIdle()
	w.answer <- a
	r.notify()
	return true
}

// waitsFor reports whether the run waits for the answer of round (false
// for a nil run).
func (r *heldRun) waitsFor(round int) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out != nil && r.round == round && !r.finished()
}

func (r *heldRun) finished() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// enter waits while the run is paused, then counts a request in flight.
func (r *heldRun) enter(ctx context.Context) error {
	r.mu.Lock()
	for r.paused {
		ch := r.resumed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		r.mu.Lock()
	}
	r.active++
	r.mu.Unlock()
	return nil
}

// leave records a request's answer in the journal and counts it done.
func (r *heldRun) leave(e journalEntry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.overflow {
		r.size += e.size()
		if r.size > maxJournalBytes {
			r.overflow, r.entries = true, nil
		} else {
			r.entries = append(r.entries, e)
		}
	}
	r.active--
	r.notify()
}

// tracked is the Caller under a held run's gate: it counts and journals
// what goes upstream, and holds new requests while the run is paused.
type tracked struct {
	run  *heldRun
	pool mcptool.Caller
}

var (
	_ runtime.NoticeDeliverer = (*tracked)(nil)
	_ runtime.ResourceReader  = (*tracked)(nil)
)

func (t *tracked) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	return t.pool.Tools(ctx, server)
}

// begin counts a request in flight: an answered write arrives with its
// place reserved (grantKey), others wait for the pause to end.
func (t *tracked) begin(ctx context.Context) (context.Context, error) {
	if granted, _ := ctx.Value(grantKey{}).(bool); granted {
		return context.WithValue(ctx, grantKey{}, false), nil
	}
	return ctx, t.run.enter(ctx)
}

func (t *tracked) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	ctx, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	res, err := t.pool.CallTool(ctx, server, tool, args)
	t.run.leave(callEntry(server, tool, args, res, err))
	return res, err
}

func (t *tracked) DeliversNotices() bool {
	d, ok := t.pool.(runtime.NoticeDeliverer)
	return ok && d.DeliversNotices()
}

func (t *tracked) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	rr, ok := t.pool.(runtime.ResourceReader)
	if !ok {
		return nil, errors.New("listResources is not available: the server's pool does not read resources")
	}
	ctx, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	res, err := rr.ListResources(ctx, server)
	t.run.leave(rawEntry(opListResources, server, "", res, err))
	return res, err
}

func (t *tracked) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	rr, ok := t.pool.(runtime.ResourceReader)
	if !ok {
		return nil, errors.New("readResource is not available: the server's pool does not read resources")
	}
	ctx, err := t.begin(ctx)
	if err != nil {
		return nil, err
	}
	res, err := rr.ReadResource(ctx, server, uri)
	t.run.leave(rawEntry(opReadResource, server, uri, res, err))
	return res, err
}

func rawEntry(op, server, name string, res json.RawMessage, err error) journalEntry {
	e := journalEntry{Op: op, Server: server, Name: name, Result: res}
	if err != nil {
		e.Error, e.Result = err.Error(), nil
	}
	return e
}

// waitRound waits until the run ends (its result) or needs the person (an
// input_required result for the host); when ctx ends first the run is
// stopped.
func (r *heldRun) waitRound(ctx context.Context) (*mcp.CallToolResult, error) {
	for {
		r.mu.Lock()
		if r.finished() {
			r.mu.Unlock()
			r.g.states.removeJournal(r.id) // the run is over: nobody resumes it
			return r.result, nil
		}
		if r.out == nil && len(r.queue) > 0 && r.active == 0 {
			w := r.queue[0]
			r.queue = r.queue[1:]
			r.out = w
			r.round++
			j := r.snapshot(w)
			round := r.round
			r.mu.Unlock()
			res, err := r.g.askRound(r, w, round, j)
			if err != nil {
				r.deliver(round, answered{err: fmt.Errorf("the host could not be asked: %w", err)})
				continue
			}
			return res, nil
		}
		ch := r.changed
		r.mu.Unlock()
		select {
		case <-ch:
		case <-r.done:
		case <-ctx.Done():
			// The host dropped its call: the run stops, and since every
			// state it was given is used, nobody can resume it.
			r.cancel()
			r.g.states.removeJournal(r.id)
			return nil, ctx.Err()
		}
	}
}

// snapshot is the journal of the round asking w, or nil when only this
// process can resume the run. Callers hold r.mu.
func (r *heldRun) snapshot(w *waitingQuestion) *journal {
	if w.kind != questionWrite || r.upstreamWaiting > 0 || r.overflow {
		return nil
	}
	q, err := json.Marshal(w.request)
	if err != nil {
		return nil
	}
	return &journal{Format: journalFormat, Run: r.id, Round: r.round, Call: r.call, Allowed: r.gate.allowedTools(),
		Pending: w.write, Question: q, Entries: slices.Clone(r.entries)}
}

// heldRuns are the runs this process holds, by id.
type heldRuns struct {
	mu   sync.Mutex
	runs map[string]*heldRun
}

func (h *heldRuns) get(id string) *heldRun {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.runs[id]
}

func (h *heldRuns) add(r *heldRun) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs == nil {
		h.runs = map[string]*heldRun{}
	}
	if old := h.runs[r.id]; old != nil {
		old.cancel()
	}
	h.runs[r.id] = r
}

func (h *heldRuns) remove(r *heldRun) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.runs[r.id] == r {
		delete(h.runs, r.id)
	}
}

// evict stops the run paused longest while more than maxHeldRuns wait
// between rounds.
func (h *heldRuns) evict() {
	h.mu.Lock()
	var oldest *heldRun
	var oldestAt time.Time
	waiting := 0
	for _, r := range h.runs {
		r.mu.Lock()
		if r.out != nil {
			waiting++
			if oldest == nil || r.pausedAt.Before(oldestAt) {
				oldest, oldestAt = r, r.pausedAt
			}
		}
		r.mu.Unlock()
	}
	h.mu.Unlock()
	if waiting > maxHeldRuns {
		oldest.cancel()
	}
}

// stopAll stops every held run and waits (a little) for them to end.
func (h *heldRuns) stopAll() {
	h.mu.Lock()
	runs := make([]*heldRun, 0, len(h.runs))
	for _, r := range h.runs {
		r.cancel()
		runs = append(runs, r)
	}
	h.mu.Unlock()
	deadline := time.After(10 * time.Second)
	for _, r := range runs {
		select {
		case <-r.done:
		case <-deadline:
			return
		}
	}
}

// askRound answers the host's call with the round that asks w: the
// journal written when the run can be resumed elsewhere, the state
// signed.
func (g *Gateway) askRound(r *heldRun, w *waitingQuestion, round int, j *journal) (*mcp.CallToolResult, error) {
	st := roundState{Run: r.id, Round: round, Expires: g.states.now().Add(stateTTL).UnixMilli(), Call: r.call,
		Kind: w.kind, Question: w.binding}
	g.states.sweep()
	if j != nil {
		if g.states.countJournals() < maxJournals {
			if sum, err := g.states.writeJournal(j); err == nil {
				st.Journal = sum
			} else {
				g.log.Warn("the run can be resumed only by this process", "run", r.id, "error", err)
			}
		}
	}
	token, err := g.states.sign(st)
	if err != nil {
		return nil, err
	}
	g.held.evict()
	return inputRequired(w.kind, w.request, token), nil
}

func inputRequired(kind string, request mcp.InputRequest, token string) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{inputKey(kind): request}, RequestState: token}
}

// invalidParams is the error a host gets for a retry that cannot be
// accepted.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// runInRounds runs a modern host's call (execute or a skill): a new run,
// or the next round of one (requestState).
func (g *Gateway) runInRounds(ctx context.Context, req *mcp.CallToolRequest, r app.RunRequest, h host, call string) (*mcp.CallToolResult, error) {
	if token := req.Params.RequestState; token != "" {
		return g.resume(ctx, req, r, h, call, token)
	}
	run := newHeldRun(g, newRunID(), call)
	g.start(run, r, h, nil)
	return run.waitRound(ctx)
}

// start runs the program of a held run in the background; a resumed run
// gets the journal that answers what it already asked.
func (g *Gateway) start(run *heldRun, r app.RunRequest, h host, j *journal) {
	var a asker
	if h.elicit {
		a = run
	}
	pool := &tracked{run: run, pool: g.pool}
	run.gate = newGate(pool, g.opts.ConfirmWrites, a, h.cannotElicit)
	var caller, base mcptool.Caller = run.gate, pool
	if j != nil {
		for _, k := range j.Allowed {
			run.gate.allowed[k] = true
		}
		run.entries = slices.Clone(j.Entries)
		for _, e := range run.entries {
			run.size += e.size()
		}
		rp := newJournalReplay(run.gate, pool, j, g.holdGrace)
		caller, base = rp, rp
	}
	r.Caller = &forwarding{Caller: caller, pool: base, h: run.handlers(h)}
	runCtx, cancel := context.WithCancel(context.Background())
	run.cancel = cancel
	g.held.add(run)
	go func() {
		defer cancel()
		out := g.execute(runCtx, r)
		run.mu.Lock()
		run.result = out
		close(run.done)
		run.notify()
		run.mu.Unlock()
		g.held.remove(run)
	}()
}

// resume takes the host's answer to a round: to the run held here, or to
// a run this replica starts again from its journal.
func (g *Gateway) resume(ctx context.Context, req *mcp.CallToolRequest, r app.RunRequest, h host, call, token string) (*mcp.CallToolResult, error) {
	st, err := g.states.verify(token, call)
	if err != nil {
		return nil, invalidParams("%v: nothing was sent; call %s again without requestState to start over", err, req.Params.Name)
	}
	resp, ok := req.Params.InputResponses[inputKey(st.Kind)]
	if !ok || !answerFits(st.Kind, resp) {
		// Not answered (or not with an answer to this question): ask again,
		// with the same state.
		return g.askAgain(req, st, token)
	}
	run := g.held.get(st.Run)
	if st.Journal == "" && !run.waitsFor(st.Round) {
		// Only the process holding the run can take the answer: leave the
		// state unused, for the retry that reaches it.
		why := "its question came from an upstream server whose call is in progress there"
		if st.Kind == questionWrite {
			why = "the run could not be written down for other replicas to resume"
		}
		return nil, invalidParams("the run this answer belongs to is held by another replica of this workspace (%s), or it ended: nothing was sent; "+
			"send the answer to the replica that asked, or call %s again without requestState to start over", why, req.Params.Name)
	}
	if err := g.states.use(st); err != nil {
		return nil, invalidParams("%v: nothing was sent; call %s again without requestState to start over", err, req.Params.Name)
	}
	if run != nil {
		if run.deliver(st.Round, answered{resp: resp}) {
			return run.waitRound(ctx)
		}
		run.cancel() // it waits for an older round: the run went on elsewhere
	}
	if st.Journal == "" {
		return nil, invalidParams("the run this answer belongs to ended before the answer came: nothing was sent; call %s again without requestState to start over", req.Params.Name)
	}
	j, err := g.states.readJournal(st)
	if err == nil && (st.Kind != questionWrite || writeBinding(j.Pending.Server, j.Pending.Tool, j.Pending.Args) != st.Question) {
		err = errors.New("the run's journal waits for another call than this requestState answers")
	}
	if err != nil {
		return nil, invalidParams("resuming the run: %v; nothing was sent; call %s again without requestState to start over", err, req.Params.Name)
	}
	resumed := newHeldRun(g, st.Run, call)
	resumed.round = st.Round
	resumed.preset = &presetAnswer{binding: st.Question, resp: resp}
	g.start(resumed, r, h, j)
	return resumed.waitRound(ctx)
}

// askAgain repeats a round whose answer is missing: same question, same
// state.
func (g *Gateway) askAgain(req *mcp.CallToolRequest, st roundState, token string) (*mcp.CallToolResult, error) {
	if run := g.held.get(st.Run); run != nil {
		run.mu.Lock()
		w, round := run.out, run.round
		run.mu.Unlock()
		if w != nil && round == st.Round {
			return inputRequired(w.kind, w.request, token), nil
		}
	}
	if st.Journal != "" {
		if j, err := g.states.readJournal(st); err == nil {
			var p mcp.ElicitParams
			if json.Unmarshal(j.Question, &p) == nil {
				return inputRequired(st.Kind, &p, token), nil
			}
		}
	}
	return nil, invalidParams("inputResponses has no answer to %q, and the run it belongs to is no longer held here: nothing was sent; call %s again without requestState to start over", inputKey(st.Kind), req.Params.Name)
}

// answerFits reports whether resp can answer a question of kind.
func answerFits(kind string, resp mcp.InputResponse) bool {
	switch resp.(type) {
	case *mcp.ElicitResult:
		return true
	case *mcp.CreateMessageWithToolsResult, *mcp.CreateMessageResult:
		return kind == questionUpstream
	}
	return false
}
