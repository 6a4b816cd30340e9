package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptool"
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
		br := bufio.NewReaderSize(w.stdout, 64*kib)
		for {
			line, err := readWireLine(br, maxWireMessage)
			if err != nil {
				readErr <- err
				return
			}
			var m wireMessage
			if err := json.Unmarshal(line, &m); err != nil {
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
				return s.accept(m.Result, start)
			}
		case err := <-readErr:
			if errors.Is(err, errWireTooLarge) {
				w.kill()
				return s.failed(start, &RunError{Kind: KindCrashed, Message: fmt.Sprintf("the worker process sent a message of more than %s, far more than a run produces, so it was stopped", formatBytes(int64(maxWireMessage)))})
			}
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

// maxWireMessage bounds one message a worker sends: results are at most
// maxResultBytes plus logs, and tool-call arguments are rarely large. A
// variable so that tests can lower it.
var maxWireMessage = 64 * mib

var errWireTooLarge = errors.New("worker message too large")

// readWireLine reads one newline-terminated message of at most max bytes.
func readWireLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errWireTooLarge
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

// workerSession is the parent's side of one job. The parent does not trust
// the worker: it counts and records the tool calls it relays itself.
type workerSession struct {
	w      *worker
	out    *wireWriter
	caller mcptool.Caller
	lim    Limits
	// calls records the relayed calls: they replace what the worker reports.
	calls   *callBook
	relayed atomic.Int64
}

// accept completes a worker's result with what the parent knows itself:
// the tool calls it relayed, the run's duration, and the bounds on the
// result and the error's text.
func (s *workerSession) accept(res *Result, start time.Time) *Result {
	res.ToolCalls, res.Stats.BytesFromTools = s.calls.snapshot()
	res.Stats.ToolCalls = len(res.ToolCalls)
	res.Stats.DurationMs = time.Since(start).Milliseconds()
	if res.Logs == nil {
		res.Logs = []LogEntry{}
	}
	switch {
	case !res.OK:
		res.Result = json.RawMessage("null")
		if res.Error == nil {
			res.Error = &RunError{Kind: KindCrashed, Message: "the worker process reported a failure without an error"}
		}
	case len(res.Result) > maxResultBytes:
		res.OK, res.Result = false, json.RawMessage("null")
		res.Error = &RunError{Kind: KindLimit, Limit: LimitOutput, Message: s.lim.limitMessage(LimitOutput)}
	case len(res.Result) == 0:
		res.Result = json.RawMessage("null")
	}
	res.Error = res.Error.truncated()
	return res
}

// serve performs one relayed request and replies.
func (s *workerSession) serve(ctx context.Context, m *wireMessage) {
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
			reply.Error = s.lim.limitMessage(LimitToolCalls)
			break
		}
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
		s.calls.finish(i, time.Since(started), err == nil && res != nil && !res.IsError, resultBytes(res))
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
