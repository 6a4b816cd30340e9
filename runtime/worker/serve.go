package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// ServeOptions configures the worker side (Serve).
type ServeOptions struct {
	// Skills returns the skill policy for a workspace; the worker calls it
	// for each job that bundles (the policy reads SKILL.md files from disk,
	// so it is not sent over the wire). Nil: no skills can be imported.
	Skills func(workspace string) runtime.SkillPolicy
}

// Serve is the entry point of a worker process (`mcpcode __worker`): it
// reads one job from in, limits this process for it (memory, address
// space, regexp match time), does it (bundles the source, runs the
// program, or both, with tool calls relayed to the parent over in and out),
// writes the outcome to out and returns. It must be the only thing running
// in its process, and nothing else may write to out. The error says why no
// outcome could be written (no job, a broken pipe); a program's failure is
// an outcome, not an error.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts ServeOptions) error {
	// The run's memory is counted from what this process holds before its
	// job comes (the program can have put nothing in it): here, the heap of
	// a process just started. What a waiting worker prepares for its job
	// (prepare) is counted as the job's: a little, and the same for every
	// job.
	base := runtime.HeapBytes()
	rd := newWireReader(in, maxParentMessage)
	w := newWireWriter(out)
	first, err := rd.next()
	if err != nil {
		return fmt.Errorf("reading the job from the parent: %w", err)
	}
	if first.Type == "warmUp" {
		// A worker the pool keeps waiting for a job: it prepares what its
		// job will use (startup.go). A worker started for a job that is
		// already on its way is not asked to (a one-shot run).
		prepare()
		if first, err = rd.next(); err != nil {
			return fmt.Errorf("reading the job from the parent: %w", err)
		}
	}
	arrived := time.Now()
	j := first.Job
	if first.Type != "job" || j == nil || (j.Program == nil) == (j.Bundle == nil) || (j.Program != nil && j.Options == nil) {
		return fmt.Errorf("the parent's first message is %q, want a job with a program or source", first.Type)
	}
	if j.Options != nil {
		// A job that runs needs a VM: made on another core while the
		// source is bundled (nothing when the wait made one already).
		runtime.Prewarm()
	}
	lim := j.BundleLimits.WithDefaults()
	if j.Options != nil {
		lim = j.Options.Limits.WithDefaults()
	}
	if err := limitProcess(lim); err != nil {
		return fmt.Errorf("limiting the worker process: %w", err)
	}

	var prog *runtime.Program
	if j.Bundle != nil {
		var err error
		prog, err = runtime.Bundle(j.Bundle.options(opts))
		switch {
		case j.Options == nil && err != nil:
			return w.sendOrFail(&wireMessage{Type: "bundleError", Diagnostics: diagnosticsOf(err)})
		case j.Options == nil:
			return w.sendOrFail(&wireMessage{Type: "program", Program: prog})
		case err != nil:
			return w.sendOrFail(&wireMessage{Type: "result", Result: runtime.BundleErrorResult(err)})
		}
	} else {
		prog = j.Program
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	relay := &relayCaller{w: w, pending: map[int64]chan *wireMessage{}, sinks: map[int64]*mcptool.NoticeSink{}}
	go func() {
		relay.readReplies(rd)
		cancel() // the parent went away: nobody wants the result
	}()
	ropts := *j.Options
	ropts.Limits = lim
	ropts.Caller = relay
	ropts.Started = arrived // the wall time covers bundling
	ropts.MemoryBase = base
	res := runtime.Run(ctx, prog, ropts)
	if err := w.send(&wireMessage{Type: "result", Result: res}); err != nil {
		// The result cannot be encoded (Run checks it, so this is a bug):
		// report that rather than nothing.
		fallback := failedResult(&runtime.RunError{Kind: runtime.KindRuntime, Message: "the worker could not send the program's result: " + err.Error()}, arrived)
		fallback.Logs, fallback.LogsOmitted = res.Logs, res.LogsOmitted
		if err2 := w.send(&wireMessage{Type: "result", Result: fallback}); err2 != nil {
			return fmt.Errorf("sending the result to the parent: %w", err)
		}
	}
	return nil
}

// options is the job as runtime.BundleOptions, with the worker's policy.
func (b *bundleJob) options(opts ServeOptions) runtime.BundleOptions {
	bo := runtime.BundleOptions{Workspace: b.Workspace, Entry: b.Entry, Source: b.Source, Skill: b.Skill}
	if opts.Skills != nil {
		bo.Skills = opts.Skills(b.Workspace)
	}
	return bo
}

// diagnosticsOf is a bundling error as diagnostics for the wire.
func diagnosticsOf(err error) []runtime.Diagnostic {
	var be *runtime.BundleError
	if errors.As(err, &be) && len(be.Diagnostics) > 0 {
		return be.Diagnostics
	}
	return []runtime.Diagnostic{{Text: err.Error()}}
}

// sendOrFail sends the job's last message.
func (w *wireWriter) sendOrFail(m *wireMessage) error {
	if err := w.send(m); err != nil {
		return fmt.Errorf("sending the %s to the parent: %w", m.Type, err)
	}
	return nil
}

// relayCaller is the mcptool.Caller inside a worker: it forwards each
// request to the parent, which owns the upstream connections, and waits for
// the reply.
type relayCaller struct {
	w *wireWriter

	mu      sync.Mutex
	nextID  int64
	pending map[int64]chan *wireMessage
	sinks   map[int64]*mcptool.NoticeSink // of calls that asked for notices (upstream.go)
	closed  error
}

func (c *relayCaller) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	reply, err := c.request(ctx, &wireMessage{Type: "tools", Server: server})
	if err != nil {
		return nil, err
	}
	if reply.Error != "" {
		if reply.UnknownServer {
			return nil, &unknownServerError{msg: reply.Error}
		}
		return nil, errors.New(reply.Error)
	}
	return reply.Tools, nil
}

func (c *relayCaller) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	m := &wireMessage{Type: "call", Server: server, Tool: tool, Args: args}
	if sc, ok := mcptool.ScopeOf(ctx); ok {
		// Whose code calls travels with the call: the parent's Caller may
		// act on it (a write granted to a skill is not asked about again).
		m.Scope = &sc
	}
	sink := mcptool.NoticesOf(ctx)
	m.Notices = sink != nil
	m.StructuredOnly = mcptool.StructuredOnly(ctx)
	reply, err := c.requestWith(ctx, m, sink)
	if err != nil {
		return nil, err
	}
	if reply.Error != "" {
		return nil, relayedError(reply.Error)
	}
	if reply.ToolResult == nil {
		return nil, errors.New("the parent sent no result")
	}
	return reply.ToolResult, nil
}

func (c *relayCaller) request(ctx context.Context, m *wireMessage) (*wireMessage, error) {
	return c.requestWith(ctx, m, nil)
}

// requestWith sends m and waits for its reply; the parent's notices about
// it go to sink. When ctx ends first, the parent is told to cancel it.
func (c *relayCaller) requestWith(ctx context.Context, m *wireMessage, sink *mcptool.NoticeSink) (*wireMessage, error) {
	ch := make(chan *wireMessage, 1)
	c.mu.Lock()
	if c.closed != nil {
		c.mu.Unlock()
		return nil, c.closed
	}
	c.nextID++
	m.ID = c.nextID
	c.pending[m.ID] = ch
	if sink != nil {
		c.sinks[m.ID] = sink
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, m.ID)
		delete(c.sinks, m.ID)
		c.mu.Unlock()
	}()
	if err := c.w.send(m); err != nil {
		return nil, fmt.Errorf("relaying to the parent: %w", err)
	}
	select {
	case reply, ok := <-ch:
		if !ok {
			return nil, c.closed
		}
		return reply, nil
	case <-ctx.Done():
		if m.Type == "call" {
			// The program gave the call up (its timeout or signal, or the
			// run ended): the parent cancels it upstream.
			_ = c.w.send(&wireMessage{Type: "cancel", ID: m.ID})
		}
		return nil, ctx.Err()
	}
}

// readReplies hands each reply to its waiting request until the parent
// closes the pipe.
func (c *relayCaller) readReplies(rd *wireReader) {
	for {
		m, err := rd.next()
		if err != nil {
			c.mu.Lock()
			c.closed = errors.New("the parent process went away")
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		if m.Type == "notice" && m.Notice != nil {
			c.mu.Lock()
			sink := c.sinks[m.ID]
			c.mu.Unlock()
			if sink != nil && sink.Send != nil {
				sink.Send(*m.Notice)
			}
			continue
		}
		if m.Type != "reply" {
			continue
		}
		c.mu.Lock()
		ch := c.pending[m.ID]
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// unknownServerError carries mcptool.ErrUnknownServer across the process
// boundary.
type unknownServerError struct{ msg string }

func (e *unknownServerError) Error() string { return e.msg }
func (e *unknownServerError) Unwrap() error { return mcptool.ErrUnknownServer }

// relayedError rebuilds the parent's error of a call: a refusal keeps its
// sentinel (mcptool.ErrDenied, mcptool.ErrPolicy, whose errors start with
// the sentinel's text), so that the worker reports it with its own kind.
func relayedError(msg string) error {
	for _, sentinel := range []error{mcptool.ErrDenied, mcptool.ErrPolicy} {
		if p := sentinel.Error() + ": "; len(msg) > len(p) && msg[:len(p)] == p {
			return fmt.Errorf("%w: %s", sentinel, msg[len(p):])
		}
	}
	return errors.New(msg)
}
