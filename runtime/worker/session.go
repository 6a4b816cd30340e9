package worker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/internal/textfmt"
)

// maxErrorText bounds the message and the stack of a worker's error, as
// runtime.RunError documents: the parent cuts them itself.
const maxErrorText = 8 << 10

// Run bundles b inside a fresh worker process and runs the program there,
// with the contract of runtime.Run (the result, its bounds, the limits).
// A program that cannot be bundled gives a failed Result of error kind
// "bundle", as runtime.BundleErrorResult does. The wall-time limit
// (r.Limits.Timeout) covers bundling too: it counts from when the job is
// handed to the worker, and the worker is killed shortly after it.
//
// This process never parses or reads the program's source: b.Workspace and
// b.Entry are made absolute here (relative to the current directory) and
// read by the worker, which shares the filesystem. b.Skills is not sent:
// the worker builds the policy for b.Workspace with ServeOptions.Skills.
// r.Caller performs the program's tool calls in this process; r.Started is
// not used.
func (p *Pool) Run(ctx context.Context, b runtime.BundleOptions, r runtime.RunOptions) *runtime.Result {
	start := time.Now()
	bj, err := newBundleJob(b)
	if err != nil {
		return runtime.BundleErrorResult(err)
	}
	return p.run(ctx, &job{Bundle: bj}, r, start)
}

// RunProgram runs an already bundled program in a fresh worker process,
// with the contract of runtime.Run. It is for programs bundled before (by
// Bundle, or by runtime.Bundle from trusted source); r.Started is not
// used.
func (p *Pool) RunProgram(ctx context.Context, prog *runtime.Program, r runtime.RunOptions) *runtime.Result {
	start := time.Now()
	if prog == nil {
		return failedResult(&runtime.RunError{Kind: runtime.KindRuntime, Message: "no program to run"}, start)
	}
	return p.run(ctx, &job{Program: prog}, r, start)
}

// Bundle bundles b inside a fresh worker process and returns the program,
// with its analysis (Calls, Unverifiable, Skills), or the *runtime.BundleError
// that says why it cannot be bundled, its diagnostics intact. Bundling is
// bounded by Options.BundleTimeout and by the default memory limit: past
// either the worker is stopped and the error says so. Other errors (no
// worker could start, ctx ended) are not *runtime.BundleError.
//
// As with Run, this process neither parses nor reads the source, and
// b.Skills is not sent (the worker uses ServeOptions.Skills). The Program's
// code was produced from untrusted source by the worker: run it with
// RunProgram.
func (p *Pool) Bundle(ctx context.Context, b runtime.BundleOptions) (*runtime.Program, error) {
	bj, err := newBundleJob(b)
	if err != nil {
		return nil, err
	}
	name := b.Entry
	if name == "" {
		name = "the program"
	}
	lim := runtime.Limits{Timeout: p.opts.BundleTimeout}.WithDefaults()
	s, err := p.open(&job{Bundle: bj, BundleLimits: lim}, noCaller{}, nil, lim)
	if s == nil {
		return nil, fmt.Errorf("bundling in a worker: %w", err)
	}
	defer p.retire(s.w)
	var m *wireMessage
	var e *runtime.RunError
	if err != nil {
		e = s.diagnose()
	} else {
		m, e = s.exchange(ctx, lim.Timeout, lim.Exceeded(runtime.LimitTimeout))
	}
	switch {
	case e == nil:
	case e.Kind == runtime.KindLimit && e.Limit == runtime.LimitTimeout:
		return nil, fmt.Errorf("bundling %s took longer than %s, so its worker process was stopped: the program is too costly to bundle; make it smaller or simpler", name, lim.Timeout)
	case e.Kind == runtime.KindCanceled:
		return nil, fmt.Errorf("bundling %s was canceled: %w", name, ctx.Err())
	default:
		return nil, fmt.Errorf("bundling %s in a worker process failed: %s", name, textfmt.Truncate(e.Message, maxErrorText))
	}
	switch {
	case m.Type == "program" && m.Program != nil:
		return m.Program, nil
	case m.Type == "bundleError" && len(m.Diagnostics) > 0:
		return nil, &runtime.BundleError{Diagnostics: m.Diagnostics}
	}
	return nil, fmt.Errorf("bundling %s: the worker process answered %q instead of a program or diagnostics", name, m.Type)
}

// newBundleJob is b as the worker gets it: absolute paths, no policy.
func newBundleJob(b runtime.BundleOptions) (*bundleJob, error) {
	j := &bundleJob{Workspace: b.Workspace, Entry: b.Entry, Source: b.Source, Skill: b.Skill}
	for _, p := range []*string{&j.Workspace, &j.Entry} {
		if *p == "" || filepath.IsAbs(*p) {
			continue
		}
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, &runtime.BundleError{Diagnostics: []runtime.Diagnostic{{Text: fmt.Sprintf("resolving %s: %v", *p, err)}}}
		}
		*p = abs
	}
	return j, nil
}

// run hands a job that runs a program to a worker and returns its result.
func (p *Pool) run(ctx context.Context, j *job, r runtime.RunOptions, start time.Time) *runtime.Result {
	lim := r.Limits.WithDefaults()
	ws := r.Workspace
	if ws != "" && !filepath.IsAbs(ws) {
		if abs, err := filepath.Abs(ws); err == nil {
			ws = abs
		}
	}
	j.Options = &runtime.RunOptions{Workspace: ws, Limits: lim, Input: r.Input}
	caller := r.Caller
	if caller == nil {
		caller = noCaller{}
	}
	var policy runtime.SkillPolicy
	if p.opts.Skills != nil && ws != "" {
		policy = p.opts.Skills(ws)
	}
	s, err := p.open(j, caller, policy, lim)
	if s == nil {
		return failedResult(&runtime.RunError{Kind: runtime.KindCrashed, Message: err.Error()}, start)
	}
	// The process is stopped after the result is returned, not before: the
	// caller need not wait for the kernel to tear it down.
	defer p.retire(s.w)
	if err != nil {
		return s.failed(start, s.diagnose())
	}
	m, e := s.exchange(ctx, lim.Timeout+grace, lim.Exceeded(runtime.LimitTimeout))
	switch {
	case e != nil:
		return s.failed(start, e)
	case m.Type != "result":
		return s.failed(start, &runtime.RunError{Kind: runtime.KindCrashed, Message: fmt.Sprintf("the worker process answered %q instead of a result", m.Type)})
	case m.Result == nil:
		return s.failed(start, s.diagnose())
	}
	return s.accept(m.Result, start)
}

// open hands j to a worker. A nil session means no worker could be
// started; a session with an error means the job could not be sent (the
// worker died: diagnose it). policy checks the scopes the worker claims for
// its calls (nil: no write grant is honoured).
func (p *Pool) open(j *job, caller mcptool.Caller, policy runtime.SkillPolicy, lim runtime.Limits) (*session, error) {
	msg := &wireMessage{Type: "job", Job: j}
	w, err := p.take()
	if err != nil {
		return nil, err
	}
	s := newSession(w, caller, policy, lim)
	if err := s.out.send(msg); err != nil {
		// A warm worker that died while it waited: try once more with a
		// fresh one.
		w.kill()
		if w, err = p.start(); err != nil {
			return nil, err
		}
		s = newSession(w, caller, policy, lim)
		if err := s.out.send(msg); err != nil {
			return s, fmt.Errorf("sending the job to the worker: %w", err)
		}
	}
	return s, nil
}

// session is the parent's side of one job. The parent does not trust the
// worker: it counts and records the tool calls it relays itself, and checks
// the write grants the worker claims for them.
type session struct {
	w      *proc
	out    *wireWriter
	caller mcptool.Caller
	lim    runtime.Limits
	// calls records the relayed calls: they replace what the worker reports.
	calls   *callLog
	relayed atomic.Int64
	// policy is the workspace's skill policy; nil honours no write grant.
	policy runtime.SkillPolicy

	// cancels are the cancel functions of the relayed calls in flight, by
	// the worker's id (upstream.go).
	cancelMu       sync.Mutex
	cancels        map[int64]context.CancelFunc
	cancelledEarly map[int64]bool

	grantMu sync.Mutex
	// grants caches, per skill, the policy's grant (nil: none): one answer
	// for the whole run, as in-process, where grants are read when the
	// program is bundled.
	grants map[string]*runtime.SkillGrant
}

func newSession(w *proc, caller mcptool.Caller, policy runtime.SkillPolicy, lim runtime.Limits) *session {
	return &session{w: w, out: newWireWriter(w.stdin), caller: caller, lim: lim, calls: &callLog{}, policy: policy}
}

// scoped returns ctx carrying the scope the worker claims for a call, as
// far as the parent can check it. The worker is the untrusted side, so a
// claim of write stands only when the workspace's policy grants the named
// skill write; otherwise the scope keeps the skill's name with Write false.
// A claim without a skill (the program's own code) carries no scope, as
// in-process. The parent cannot check that the claimed skill's code made
// the call, nor the grants of the skills it runs under: a compromised
// worker can claim any skill that is granted write.
func (s *session) scoped(ctx context.Context, claim *mcptool.Scope) context.Context {
	if claim == nil || claim.Skill == "" {
		return ctx
	}
	g := s.grant(claim.Skill)
	sc := mcptool.Scope{Skill: claim.Skill, Write: claim.Write && g != nil && g.Write}
	return mcptool.WithScope(ctx, sc)
}

// refused says why the parent refuses a call the worker claims a skill
// makes: the tool is not among those the policy says the skill was
// approved for (the worker refuses such calls itself; this holds even if
// it does not). "" lets the call through, as does a session without a
// policy, which can check nothing.
func (s *session) refused(claim *mcptool.Scope, server, tool string) string {
	if claim == nil || claim.Skill == "" || s.policy == nil {
		return ""
	}
	g := s.grant(claim.Skill)
	if g != nil && slices.Contains(g.Tools, server+"."+tool) {
		return ""
	}
	return fmt.Errorf("%w: skill %q may not call %s.%s: a skill may call only the tools recorded when it was approved", mcptool.ErrDenied, claim.Skill, server, tool).Error()
}

// grant is the workspace policy's grant of skill; nil when there is none.
func (s *session) grant(skill string) *runtime.SkillGrant {
	if s.policy == nil {
		return nil
	}
	s.grantMu.Lock()
	defer s.grantMu.Unlock()
	if g, ok := s.grants[skill]; ok {
		return g
	}
	var out *runtime.SkillGrant
	if g, err := s.policy.Skill(skill); err == nil {
		g.Files = nil
		out = &g
	}
	if s.grants == nil {
		s.grants = map[string]*runtime.SkillGrant{}
	}
	s.grants[skill] = out
	return out
}

// exchange serves the worker's tool requests until it sends its last
// message, which it returns. It returns an error instead when the worker
// dies or sends a message that is too large, when ctx ends, and when the
// worker has not finished after limit (the error is then timeout): in
// each of those cases the worker is killed.
func (s *session) exchange(ctx context.Context, limit time.Duration, timeout *runtime.RunError) (*wireMessage, *runtime.RunError) {
	w := s.w
	callCtx, cancelCalls := context.WithCancel(ctx)
	defer cancelCalls()
	msgs := make(chan *wireMessage)
	readErr := make(chan error, 1)
	done := make(chan struct{})
	defer close(done)
	go func() {
		br := bufio.NewReaderSize(w.stdout, 64<<10)
		for {
			line, err := readWireLine(br, maxWireMessage)
			if err != nil {
				readErr <- err
				return
			}
			var m wireMessage
			if err := json.Unmarshal(line, &m); err != nil {
				readErr <- fmt.Errorf("decoding a message from the worker: %w", err)
				return
			}
			select {
			case msgs <- &m:
			case <-done:
				return
			}
		}
	}()
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	for {
		select {
		case m := <-msgs:
			switch m.Type {
			case "tools", "call", "resources", "readResource":
				go s.serve(callCtx, m)
			case "cancel":
				s.cancelCall(m.ID) // upstream.go
			default:
				return m, nil
			}
		case err := <-readErr:
			if errors.Is(err, errWireTooLarge) {
				w.kill()
				return nil, &runtime.RunError{Kind: runtime.KindCrashed, Message: fmt.Sprintf("the worker process sent a message of more than %s, far more than a run produces, so it was stopped", textfmt.Bytes(int64(maxWireMessage)))}
			}
			return nil, s.diagnose()
		case <-deadline.C:
			w.kill()
			return nil, timeout
		case <-ctx.Done():
			w.kill()
			return nil, &runtime.RunError{Kind: runtime.KindCanceled, Message: "the run was canceled: " + ctx.Err().Error()}
		}
	}
}

// accept completes a worker's result with what the parent knows itself:
// the tool calls it relayed, the run's duration, and the bounds on the
// result and the error's text.
func (s *session) accept(res *runtime.Result, start time.Time) *runtime.Result {
	res.ToolCalls, res.Stats.BytesFromTools = s.calls.snapshot()
	res.Stats.ToolCalls = len(res.ToolCalls)
	res.Stats.DurationMs = time.Since(start).Milliseconds()
	if res.Logs == nil {
		res.Logs = []runtime.LogEntry{}
	}
	switch {
	case !res.OK:
		res.Result = json.RawMessage("null")
		if res.Error == nil {
			res.Error = &runtime.RunError{Kind: runtime.KindCrashed, Message: "the worker process reported a failure without an error"}
		}
	case len(res.Result) > runtime.MaxResultBytes:
		res.OK, res.Result = false, json.RawMessage("null")
		res.Error = s.lim.Exceeded(runtime.LimitResultSize)
	case len(res.Result) == 0:
		res.Result = json.RawMessage("null")
	}
	if e := res.Error; e != nil && (len(e.Message) > maxErrorText || len(e.Stack) > maxErrorText) {
		cut := *e
		cut.Message = textfmt.Truncate(e.Message, maxErrorText)
		cut.Stack = textfmt.Truncate(e.Stack, maxErrorText)
		res.Error = &cut
	}
	return res
}

// serve performs one relayed request and replies.
func (s *session) serve(ctx context.Context, m *wireMessage) {
	reply := &wireMessage{Type: "reply", ID: m.ID}
	switch m.Type {
	case "tools":
		tools, err := s.caller.Tools(ctx, m.Server)
		if err != nil {
			reply.Error = err.Error()
			reply.UnknownServer = errors.Is(err, mcptool.ErrUnknownServer)
		} else {
			reply.Tools = tools
			if reply.Tools == nil {
				reply.Tools = []mcptool.Tool{}
			}
		}
	case "call":
		if s.relayed.Add(1) > int64(s.lim.MaxToolCalls) {
			// The worker enforces the limit itself; this holds even if it
			// does not.
			reply.Error = s.lim.Exceeded(runtime.LimitToolCalls).Message
			break
		}
		if msg := s.refused(m.Scope, m.Server, m.Tool); msg != "" {
			reply.Error = msg
			break
		}
		i := s.calls.start(m.Server, m.Tool)
		started := time.Now()
		ctx, done := s.callContext(ctx, m) // cancellable by the worker, with its notices (upstream.go)
		defer done()
		res, err := s.caller.CallTool(s.scoped(ctx, m.Scope), m.Server, m.Tool, m.Args)
		switch {
		case err != nil:
			reply.Error = err.Error()
		case res == nil:
			reply.Error = "no result"
		case m.StructuredOnly && res.StructuredSuffices():
			// The program uses the structured content alone: its text copy
			// (as large) stays here. It is counted all the same.
			reply.ToolResult = &mcptool.Result{StructuredContent: res.StructuredContent}
		default:
			reply.ToolResult = res
		}
		s.calls.finish(i, time.Since(started), err == nil && res != nil && !res.IsError, resultBytes(res))
	case "resources", "readResource":
		s.serveResource(ctx, m, reply) // upstream.go
	}
	_ = s.out.send(reply) // a dead worker is noticed by the reader
}

// failed is the result of a run the parent ended.
func (s *session) failed(start time.Time, e *runtime.RunError) *runtime.Result {
	res := failedResult(e, start)
	res.ToolCalls, res.Stats.BytesFromTools = s.calls.snapshot()
	res.Stats.ToolCalls = len(res.ToolCalls)
	return res
}

// failedResult is a failed Result with e as its error.
func failedResult(e *runtime.RunError, start time.Time) *runtime.Result {
	return &runtime.Result{
		Result: json.RawMessage("null"), Logs: []runtime.LogEntry{}, ToolCalls: []runtime.ToolCallRecord{}, Error: e,
		Stats: runtime.Stats{DurationMs: time.Since(start).Milliseconds()},
	}
}

// resultBytes is the size of a tool's answer, as runtime.Stats counts it in
// BytesFromTools.
func resultBytes(res *mcptool.Result) int64 {
	if res == nil {
		return 0
	}
	return int64(len(res.Content) + len(res.StructuredContent))
}

// noCaller serves jobs that were given no mcptool.Caller.
type noCaller struct{}

func (noCaller) Tools(context.Context, string) ([]mcptool.Tool, error) {
	return nil, fmt.Errorf("%w: this run has no tool caller, so no servers are available", mcptool.ErrUnknownServer)
}

func (noCaller) CallTool(context.Context, string, string, json.RawMessage) (*mcptool.Result, error) {
	return nil, errors.New("this run has no tool caller")
}
