package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// ResourceReader is an optional interface of a Caller: it lists and reads
// upstream servers' resources (for the resource_link blocks tools return).
// A Caller that wraps another implements it only if what it does to tool
// results (a policy, a transformation) applies to resources too; without
// it, readResource and listResources fail with a message saying so.
type ResourceReader interface {
	// ListResources returns the JSON array of a server's resources.
	ListResources(ctx context.Context, server string) (json.RawMessage, error)
	// ReadResource returns the JSON array of a resource's contents.
	ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error)
}

// NoticeDeliverer is an optional interface of a Caller: it delivers the
// notices servers send about calls (progress, log messages) to the sink
// the call's context carries (mcptool.WithNotices). As with ResourceReader,
// a wrapping Caller implements it only if its treatment of results applies
// to notices too; without it a run gets no notices.
type NoticeDeliverer interface {
	DeliversNotices() bool
}

// callOptions are the options a program gives a call: the optional last
// argument of callMCPTool and of every generated function.
type callOptions struct {
	timeout    time.Duration
	signal     *goja.Object // { aborted, addEventListener }
	onProgress goja.Callable
}

// parseCallOptions reads { timeoutMs?, signal?, onProgress? }; the message
// says what is wrong with it.
func (r *run) parseCallOptions(v goja.Value) (*callOptions, string) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return &callOptions{}, ""
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, "the options must be an object: { timeoutMs?, signal?, onProgress? }"
	}
	o := &callOptions{}
	get := func(name string) goja.Value {
		v, accessor := r.ownProp(obj, name)
		if accessor {
			return nil // a getter is not run
		}
		return v
	}
	if t := get("timeoutMs"); t != nil && !goja.IsUndefined(t) {
		n, ok := t.Export().(int64)
		f, okf := t.Export().(float64)
		switch {
		case ok && n > 0:
			o.timeout = time.Duration(n) * time.Millisecond
		case okf && f > 0 && !math.IsInf(f, 0) && !math.IsNaN(f):
			o.timeout = time.Duration(f * float64(time.Millisecond))
		default:
			return nil, "timeoutMs must be a positive number of milliseconds"
		}
	}
	if s := get("signal"); s != nil && !goja.IsUndefined(s) && !goja.IsNull(s) {
		so, ok := s.(*goja.Object)
		if !ok {
			return nil, "signal must be an AbortSignal (from new AbortController().signal)"
		}
		o.signal = so
	}
	if p := get("onProgress"); p != nil && !goja.IsUndefined(p) && !goja.IsNull(p) {
		f, ok := goja.AssertFunction(p)
		if !ok {
			return nil, "onProgress must be a function"
		}
		o.onProgress = f
	}
	return o, ""
}

// ownProp reads an own data property without running a getter; accessor
// is true for a getter or setter.
func (r *run) ownProp(obj *goja.Object, name string) (v goja.Value, accessor bool) {
	v, err := r.intr.ownData(goja.Undefined(), obj, r.vm.ToValue(name))
	if err != nil {
		return nil, false
	}
	if o, ok := v.(*goja.Object); ok && o == r.intr.accessor {
		return nil, true
	}
	return v, false
}

// upstreamCall is the state of one call with options, shared by the VM
// goroutine and the call's goroutine.
type upstreamCall struct {
	ctx    context.Context
	cancel context.CancelCauseFunc
	mu     sync.Mutex
	done   bool
}

// errAborted and errCallTimeout end a call early.
var (
	errAborted     = errors.New("the call was aborted (its signal)")
	errCallTimeout = errors.New("timeoutMs passed")
)

// startCall makes the context of one call (on the VM goroutine): the run's,
// ended by the call's timeout or signal, carrying the sink that turns the
// server's notices into the run's output (and onProgress calls). It returns
// a message when the call must not start (its signal is already aborted).
func (r *run) startCall(o *callOptions, server string) (*upstreamCall, string) {
	c := &upstreamCall{}
	ctx, cancel := context.WithCancelCause(r.ctx)
	c.ctx, c.cancel = ctx, cancel
	if o.timeout > 0 {
		t := time.AfterFunc(o.timeout, func() { cancel(errCallTimeout) })
		context.AfterFunc(ctx, func() { t.Stop() })
	}
	if o.signal != nil {
		if aborted, _ := r.ownProp(o.signal, "aborted"); aborted != nil && aborted.ToBoolean() {
			cancel(errAborted)
			return nil, "the call was not sent: its signal is already aborted"
		}
		add, ok := goja.AssertFunction(o.signal.Get("addEventListener"))
		if !ok {
			cancel(nil)
			return nil, "signal must be an AbortSignal (from new AbortController().signal)"
		}
		listener := r.vm.ToValue(func(goja.FunctionCall) goja.Value {
			cancel(errAborted)
			return goja.Undefined()
		})
		if _, err := add(o.signal, r.vm.ToValue("abort"), listener); err != nil {
			cancel(nil)
			return nil, "signal.addEventListener failed: " + err.Error()
		}
	}
	if d, ok := r.opts.Caller.(NoticeDeliverer); ok && d.DeliversNotices() {
		onProgress := o.onProgress
		c.ctx = mcptool.WithNotices(c.ctx, &mcptool.NoticeSink{Send: func(n mcptool.Notice) {
			// Counted against the output limit like console output, and
			// marked as the server's.
			r.logs.add("server", n.Text(), 0)
			if n.Kind != mcptool.NoticeProgress || onProgress == nil {
				return
			}
			// Posted under the lock that finish takes: a report the call
			// delivers runs before the call's promise settles; one after
			// the call ended is dropped.
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.done {
				return
			}
			r.loop.post(func() error {
				p := r.vm.NewObject()
				_ = p.Set("progress", n.Progress)
				if n.Total > 0 {
					_ = p.Set("total", n.Total)
				}
				if n.Message != "" {
					_ = p.Set("message", n.Message)
				}
				if _, err := onProgress(goja.Undefined(), p); err != nil {
					return r.loopError(err)
				}
				return nil
			})
		}})
	}
	return c, ""
}

// finish ends the call's context; no progress is delivered after it. It
// turns an outcome cut short by the call's own timeout or signal into a
// "canceled" ToolError that says which.
func (c *upstreamCall) finish(out callOutcome, server, tool string, timeout time.Duration) callOutcome {
	c.mu.Lock()
	c.done = true
	c.mu.Unlock()
	cause := context.Cause(c.ctx)
	c.cancel(nil)
	if out.kind == "" || out.kind == KindTool {
		return out
	}
	switch {
	case errors.Is(cause, errCallTimeout):
		return callOutcome{kind: KindCanceled, message: fmt.Sprintf("calling %s.%s: no answer within timeoutMs (%d ms); the call was cancelled", server, tool, timeout.Milliseconds())}
	case errors.Is(cause, errAborted):
		return callOutcome{kind: KindCanceled, message: fmt.Sprintf("calling %s.%s: the call was aborted (its signal); the server was told to cancel it", server, tool)}
	}
	return out
}

// abortControllerSource is mcpcode:runtime's AbortController: the small
// part of the standard one that calls use (goja has none).
const abortControllerSource = `(function () {
  class AbortSignal {
    constructor() { this.aborted = false; this.reason = undefined; this._listeners = []; }
    addEventListener(type, listener) { if (type === "abort" && typeof listener === "function") this._listeners.push(listener); }
    removeEventListener(type, listener) { this._listeners = this._listeners.filter((l) => l !== listener); }
  }
  class AbortController {
    constructor() { this.signal = new AbortSignal(); }
    abort(reason) {
      const s = this.signal;
      if (s.aborted) return;
      s.aborted = true;
      s.reason = reason === undefined ? new Error("aborted") : reason;
      for (const l of s._listeners.slice()) l.call(s, { type: "abort", target: s });
    }
  }
  return AbortController;
})()`

// installUpstream puts on the host object what mcpcode:runtime exports
// beside callMCPTool: readResource, listResources and AbortController.
func (r *run) installUpstream(host *goja.Object) error {
	ctor, err := r.vm.RunScript(internalScriptName, abortControllerSource)
	if err != nil {
		return fmt.Errorf("defining AbortController: %w", err)
	}
	up := r.vm.NewObject()
	if err := up.Set("AbortController", ctor); err != nil {
		return err
	}
	if err := up.Set("readResource", r.resourceFunction("readResource")); err != nil {
		return err
	}
	if err := up.Set("listResources", r.resourceFunction("listResources")); err != nil {
		return err
	}
	return host.Set("upstream", func(goja.FunctionCall) goja.Value { return up })
}

// resourceFunction is readResource(server, uri) or listResources(server):
// a promise of the server's JSON (the resource's contents, or the list of
// resources). A failure rejects with a ToolError (tool "" ).
func (r *run) resourceFunction(which string) func(goja.FunctionCall) goja.Value {
	return func(call goja.FunctionCall) goja.Value {
		promise, resolve, reject := r.vm.NewPromise()
		frames := r.vm.CaptureCallStack(32, nil)
		serverV, uriV := call.Argument(0), call.Argument(1)
		server, uri := primitiveText(serverV), primitiveText(uriV)
		fail := func(kind, msg string) goja.Value {
			_ = reject(r.newToolError(kind, msg, server, "", "", frames))
			return r.vm.ToValue(promise)
		}
		if r.finished {
			_ = reject(r.finishedError(which))
			return r.vm.ToValue(promise)
		}
		if !goja.IsString(serverV) || (which == "readResource" && !goja.IsString(uriV)) {
			if which == "readResource" {
				return fail(KindValidation, "readResource(server, uri): server and uri must be strings")
			}
			return fail(KindValidation, "listResources(server): server must be a string")
		}
		rr, ok := r.opts.Caller.(ResourceReader)
		if !ok {
			return fail(KindValidation, which+" is not available in this run (its caller does not pass resources on)")
		}
		r.loop.callsInFlight++
		r.inFlight++
		go func() {
			var data json.RawMessage
			var err error
			if which == "readResource" {
				data, err = rr.ReadResource(r.ctx, server, uri)
			} else {
				data, err = rr.ListResources(r.ctx, server)
			}
			r.loop.post(func() error {
				r.loop.callsInFlight--
				r.inFlight--
				defer r.release()
				if err != nil {
					kind := KindTransport
					if errors.Is(err, mcptool.ErrUnknownServer) {
						kind = KindValidation
					}
					return r.loopError(reject(r.newToolError(kind, err.Error(), server, "", "", frames)))
				}
				v, err := jsonToValue(r.vm, data)
				if err != nil {
					return r.loopError(reject(r.newToolError(KindTransport, fmt.Sprintf("%s: the answer is not valid JSON (%v)", which, err), server, "", "", frames)))
				}
				return r.loopError(resolve(v))
			})
		}()
		return r.vm.ToValue(promise)
	}
}
