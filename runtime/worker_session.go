package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Run runs p in a fresh worker process, with the same contract as Run.
func (p *WorkerPool) Run(ctx context.Context, prog *Program, opts RunOptions) *Result {
	start := time.Now()
	lim := opts.Limits.withDefaults()
	if prog == nil {
		return failedResult(&RunError{Kind: KindRuntime, Message: "no program to run"}, start)
	}
	caller := opts.Caller
	if caller == nil {
		caller = noCaller{}
	}
	job := &wireMessage{Type: "job", Job: &workerJob{Program: prog, Options: RunOptions{Workspace: opts.Workspace, Limits: lim, Input: opts.Input}}}
	w, err := p.take()
	if err != nil {
		return failedResult(&RunError{Kind: KindCrashed, Message: err.Error()}, start)
	}
	s := &workerSession{w: w, out: newWireWriter(w.stdin), caller: caller, lim: lim, calls: &callBook{}}
	if err := s.out.send(job); err != nil {
		// A warm worker that died while it waited: try once more with a
		// fresh one.
		w.kill()
		if w, err = p.start(); err != nil {
			return failedResult(&RunError{Kind: KindCrashed, Message: err.Error()}, start)
		}
		s = &workerSession{w: w, out: newWireWriter(w.stdin), caller: caller, lim: lim, calls: &callBook{}}
		if err := s.out.send(job); err != nil {
			defer w.kill()
			return s.died(start)
		}
	}
	// The process is stopped after the result is returned, not before: the
	// caller need not wait for the kernel to tear it down.
	defer p.retire(w)
	callCtx, cancelCalls := context.WithCancel(ctx)
	defer cancelCalls()

	msgs := make(chan *wireMessage)
	readErr := make(chan error, 1)
	runDone := make(chan struct{})
	defer close(runDone)
	go func() {
		dec := json.NewDecoder(w.stdout)
		for {
			var m wireMessage
			if err := dec.Decode(&m); err != nil {
				readErr <- err
				return
			}
			select {
			case msgs <- &m:
			case <-runDone:
				return
			}
		}
	}()
	deadline := time.NewTimer(lim.Timeout + workerGrace)
	defer deadline.Stop()
	for {
		select {
		case m := <-msgs:
			switch m.Type {
			case "tools", "call":
				go s.serve(callCtx, m)
			case "result":
				if m.Result == nil {
					return s.died(start)
				}
				m.Result.Stats.DurationMs = time.Since(start).Milliseconds()
				return m.Result
			}
		case <-readErr:
			return s.died(start)
		case <-deadline.C:
			w.kill()
			return s.failed(start, &RunError{Kind: KindLimit, Limit: LimitTimeout, Message: lim.limitMessage(LimitTimeout)})
		case <-ctx.Done():
			w.kill()
			return s.failed(start, &RunError{Kind: KindCanceled, Message: "the run was canceled: " + ctx.Err().Error()})
		}
	}
}

// workerSession is the parent's side of one job.
type workerSession struct {
	w      *worker
	out    *wireWriter
	caller ToolCaller
	lim    Limits
	// calls mirrors the relayed calls, for results of workers that died.
	calls *callBook
}

// serve performs one relayed request and replies.
func (s *workerSession) serve(ctx context.Context, m *wireMessage) {
	reply := &wireMessage{Type: "reply", ID: m.ID}
	switch m.Type {
	case "tools":
		tools, err := s.caller.Tools(ctx, m.Server)
		if err != nil {
			reply.Error = err.Error()
			reply.UnknownServer = errors.Is(err, ErrUnknownServer)
		} else {
			reply.Tools = tools
			if reply.Tools == nil {
				reply.Tools = []ToolInfo{}
			}
		}
	case "call":
		i := s.calls.start(m.Server, m.Tool)
		started := time.Now()
		res, err := s.caller.CallTool(ctx, m.Server, m.Tool, m.Args)
		switch {
		case err != nil:
			reply.Error = err.Error()
		case res == nil:
			reply.Error = "no result"
		default:
			reply.ToolResult = res
		}
		ok := err == nil && res != nil && !res.IsError
		var n int64
		if res != nil {
			n = int64(len(res.Content) + len(res.StructuredContent))
		}
		s.calls.finish(i, time.Since(started), ok, n)
	}
	_ = s.out.send(reply) // a dead worker is noticed by the reader
}

// failed is the result of a run the parent ended.
func (s *workerSession) failed(start time.Time, e *RunError) *Result {
	res := failedResult(e, start)
	res.ToolCalls, res.Stats.BytesFromTools = s.calls.snapshot()
	res.Stats.ToolCalls = len(res.ToolCalls)
	return res
}
