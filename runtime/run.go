package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpcode/mcpcode/internal/layout"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// runHooks are test hooks; every field may be nil.
type runHooks struct {
	// callAttempt is called on the VM goroutine each time the program calls
	// callMCPTool, before anything is checked, with whether the run had
	// already finished.
	callAttempt func(finished bool)
	// calls counts the goroutines of the calls that were let through, each
	// until it is done with the Caller: Wait sees every call that could
	// reach the Caller reach it, or not.
	calls *sync.WaitGroup
}

func (h *runHooks) sawCallAttempt(finished bool) {
	if h != nil && h.callAttempt != nil {
		h.callAttempt(finished)
	}
}

// callGoroutine is called before a call's goroutine starts; the goroutine
// calls the returned function when it is done with the Caller.
func (h *runHooks) callGoroutine() (done func()) {
	if h == nil || h.calls == nil {
		return func() {}
	}
	h.calls.Add(1)
	return h.calls.Done
}

// stuckGrace is how long Run waits, after stopping the VM at a limit, for
// the VM goroutine to notice. A goroutine stuck in one long native call
// (which Interrupt cannot stop) is left behind after it: its results are
// discarded, and it ends when the call returns.
const stuckGrace = 500 * time.Millisecond

// Run runs a program in this process (isolation "none"): a fresh VM, the
// program's top-level code, then its default export (called with the input
// when it is a function, and awaited like await does, thenables included).
// It returns when the program's work is done (its result settled and no
// calls or timers pending) or at a limit, and also at the deadline when the
// VM is stuck in a native call. The result must be JSON of at most 4 MiB
// (else a limit error "output"); the error's message and stack are cut to
// 8 KiB each.
//
// In-process isolation does not contain everything a program can do inside
// one native call: memory is watched only on a best-effort basis (a single
// huge allocation such as "x".repeat(2**40) can end the process), a deeply
// nested JSON.parse("[".repeat(5e6), reviver) overflows the Go stack and kills the
// process, and JSON.stringify of very deeply nested objects takes quadratic
// time that Interrupt cannot stop. Use a worker pool (runtime/worker) to
// contain those: the worker process dies or is killed instead.
func Run(ctx context.Context, p *Program, opts RunOptions) *Result {
	start := time.Now()
	if !opts.Started.IsZero() && opts.Started.Before(start) {
		start = opts.Started
	}
	lim := opts.Limits.WithDefaults()
	if p == nil {
		return failedResult(&RunError{Kind: KindRuntime, Message: "no program to run"}, start)
	}
	remaining := lim.Timeout - time.Since(start)
	if remaining <= 0 {
		return failedResult(lim.Exceeded(LimitTimeout), start)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r, err := newRun(runCtx, p, opts, lim)
	if err != nil {
		return failedResult(&RunError{Kind: KindRuntime, Message: err.Error()}, start)
	}

	base := opts.MemoryBase
	if base == 0 {
		base = MemoryBase() // before the program allocates anything
	}
	done := make(chan vmOutcome, 1)
	go func() { done <- r.vmMain() }()
	stopWatch := make(chan struct{})
	defer close(stopWatch)
	go r.watchMemory(stopWatch, base)
	deadline := time.NewTimer(remaining)
	defer deadline.Stop()

	var out vmOutcome
	select {
	case out = <-done:
	case <-deadline.C:
		out = r.stopAndWait(done, r.limitError(LimitTimeout))
	case <-ctx.Done():
		out = r.stopAndWait(done, &RunError{Kind: KindCanceled, Message: "the run was canceled: " + ctx.Err().Error()})
	}
	cancel() // calls still in flight are abandoned
	return r.result(out, start)
}

// vmOutcome is what the VM goroutine produces.
type vmOutcome struct {
	value json.RawMessage
	err   *RunError
}

// run is one realm of a run: a goja runtime with its own globals, host
// object and grant. The program's own code runs in the first realm; each
// call of a skill creates another (skill.go). What the realms share (the
// event loop, the limits, the logs, the tool calls, the workspace files)
// is the runShared they point to; only JSON text passes between realms.
type run struct {
	*runShared

	vm   *goja.Runtime
	intr *intrinsics
	host *goja.Object
	// scope says whose code the realm runs: nil for the program's own.
	scope *scopeDescriptor
	// depth is how many skill calls deep the realm is (0: the program).
	depth int

	// VM goroutine only:
	hostErrors map[*goja.Object]hostError // error objects the host created
	// finished is set once the realm's work is over and its result or
	// error is being read: from then on nothing new may start in it.
	finished   bool
	exported   goja.Value
	rejections []*goja.Promise
	rejected   map[*goja.Promise]bool
	// timers are the realm's pending timers, cleared when a skill's call
	// settles.
	timers map[int64]bool
	// onFail fails the skill call a skill's realm runs, until it settles;
	// nil in the program's realm.
	onFail func(*RunError)
	// inFlight counts the realm's tool calls in flight: a finished skill's
	// realm can run code until they are settled.
	inFlight int
}

// runShared is what every realm of one run shares.
type runShared struct {
	prog *Program
	opts RunOptions
	lim  Limits
	ctx  context.Context

	loop    *eventLoop
	logs    *logBuffer
	calls   *callBook
	catalog *toolCatalog
	fs      *workspaceFS

	// VM goroutine only:
	callsStarted int

	stopOnce sync.Once
	stopC    chan struct{}
	stopErr  atomic.Pointer[RunError]

	realmsMu sync.Mutex
	vms      []*goja.Runtime
	compiled map[string]*goja.Program // skills' code arrived as JSON
}

func newRun(ctx context.Context, p *Program, opts RunOptions, lim Limits) (*run, error) {
	caller := opts.Caller
	if caller == nil {
		caller = noCaller{}
	}
	s := &runShared{
		prog: p, opts: opts, lim: lim, ctx: ctx,
		loop:    newEventLoop(),
		logs:    &logBuffer{max: lim.MaxOutput},
		calls:   &callBook{},
		catalog: newToolCatalog(caller),
		fs:      &workspaceFS{},
		stopC:   make(chan struct{}),
	}
	if opts.Workspace != "" {
		s.fs.dir = filepath.Join(opts.Workspace, layout.FilesDir)
	}
	return s.newRealm(nil, 0)
}

// newRealm makes a fresh realm with the given scope (nil: the program's).
func (s *runShared) newRealm(scope *scopeDescriptor, depth int) (*run, error) {
	vm, intr, err := newSandboxVM(s.lim.MaxStackDepth)
	if err != nil {
		return nil, err
	}
	r := &run{
		runShared: s, vm: vm, intr: intr, scope: scope, depth: depth,
		hostErrors: map[*goja.Object]hostError{},
		rejected:   map[*goja.Promise]bool{},
		timers:     map[int64]bool{},
	}
	s.realmsMu.Lock()
	s.vms = append(s.vms, vm)
	s.realmsMu.Unlock()
	if e := s.stopErr.Load(); e != nil {
		vm.Interrupt(e) // stopped while it was being made
	}
	vm.SetPromiseRejectionTracker(r.trackRejection)
	if err := r.installConsole(); err != nil {
		return nil, fmt.Errorf("setting up console: %w", err)
	}
	if err := r.installTimers(); err != nil {
		return nil, fmt.Errorf("setting up timers: %w", err)
	}
	if err := r.installHost(); err != nil {
		return nil, fmt.Errorf("setting up the runtime modules: %w", err)
	}
	return r, nil
}

// installHost builds the host object the bundle's wrapper receives. Only
// the virtual modules' top-level code reads it; nothing of it is global.
// Everything on it is bound to this realm and its scope.
func (r *run) installHost() error {
	host := r.vm.CreateObject(nil)
	r.host = host
	if err := host.Set("caller", func(goja.FunctionCall) goja.Value {
		return r.vm.ToValue(r.newCaller())
	}); err != nil {
		return err
	}
	if err := host.Set("skill", func(call goja.FunctionCall) goja.Value {
		return r.skillFunction(primitiveText(call.Argument(0)))
	}); err != nil {
		return err
	}
	if err := host.Set("ToolError", r.intr.toolError); err != nil {
		return err
	}
	if err := host.Set("main", func(call goja.FunctionCall) goja.Value {
		r.exported = call.Argument(0)
		return goja.Undefined()
	}); err != nil {
		return err
	}
	if err := r.installUpstream(host); err != nil { // readResource, listResources, AbortController (upstream.go)
		return err
	}
	return r.installFS(host)
}

// release forgets a skill's realm that can run no more code (finished,
// with nothing in flight), so that a run calling a skill many times does
// not keep every realm.
func (r *run) release() {
	if r.scope == nil || !r.finished || r.inFlight > 0 {
		return
	}
	r.realmsMu.Lock()
	defer r.realmsMu.Unlock()
	if i := slices.Index(r.vms, r.vm); i >= 0 {
		r.vms = slices.Delete(r.vms, i, i+1)
	}
}

// stop ends the run with e: every realm's VM is interrupted and the loop
// woken.
func (s *runShared) stop(e *RunError) {
	s.stopOnce.Do(func() {
		s.stopErr.Store(e)
		s.realmsMu.Lock()
		for _, vm := range s.vms {
			vm.Interrupt(e)
		}
		s.realmsMu.Unlock()
		close(s.stopC)
	})
}

// stopAndWait stops the run and waits a little for the VM goroutine.
func (r *run) stopAndWait(done <-chan vmOutcome, e *RunError) vmOutcome {
	r.stop(e)
	select {
	case out := <-done:
		return out
	case <-time.After(stuckGrace):
		return vmOutcome{err: r.stopErr.Load()}
	}
}

func (r *runShared) limitError(limit string) *RunError {
	return &RunError{Kind: KindLimit, Limit: limit, Message: r.lim.limitMessage(limit)}
}

// vmMain runs on the VM goroutine: the top-level code, then the event loop
// until the program's work is done.
func (r *run) vmMain() (out vmOutcome) {
	defer r.fs.close()
	defer func() {
		if x := recover(); x != nil {
			if ie, ok := x.(*goja.InterruptedError); ok {
				// A limit hit while the host read a value (a thrown
				// object's looping message getter, say) is that limit.
				out = vmOutcome{err: r.classify(ie)}
				return
			}
			out = vmOutcome{err: r.classify(fmt.Errorf("internal error in the runtime: %v", x))}
		}
	}()
	compiled := r.prog.compiled
	if compiled == nil {
		var err error
		if compiled, err = compileCode(r.prog.Code); err != nil {
			return vmOutcome{err: &RunError{Kind: KindBundle, Message: "the program cannot be compiled: " + err.Error()}}
		}
	}
	top, err := r.start(compiled)
	if err != nil {
		return vmOutcome{err: r.runError(err)}
	}
	return r.drive(top)
}

// start runs a realm's bundle: its wrapper's top-level code, whose
// (promise) value it returns. The error is the VM's, or a *RunError.
func (r *run) start(compiled *goja.Program) (goja.Value, error) {
	wrapper, err := r.vm.RunProgram(compiled)
	if err != nil {
		return nil, err
	}
	fn, ok := goja.AssertFunction(wrapper)
	if !ok {
		return nil, &RunError{Kind: KindBundle, Message: "the program was not bundled by this version of mcpcode"}
	}
	return fn(goja.Undefined(), r.host)
}

// runError is err as a RunError: one already, or classified.
func (r *run) runError(err error) *RunError {
	var re *RunError
	if !isUncatchable(err) && errors.As(err, &re) {
		return re
	}
	return r.classify(err)
}

// drive runs the event loop until the top-level code and the default
// export's result have settled and nothing is pending.
func (r *run) drive(top goja.Value) vmOutcome {
	waiting, _ := promiseOf(top)
	ignore := map[*goja.Promise]bool{waiting: true}
	topDone := false
	var final goja.Value = goja.Undefined()
	for {
		if e := r.stopErr.Load(); e != nil {
			return vmOutcome{err: e}
		}
		if waiting != nil {
			switch waiting.State() {
			case goja.PromiseStateRejected:
				return vmOutcome{err: r.fromThrown(waiting.Result())}
			case goja.PromiseStateFulfilled:
				v := waiting.Result()
				waiting = nil
				if topDone {
					final = v // a promise never fulfills with a thenable
					break
				}
				topDone = true
				v, err := r.callDefault(r.opts.Input)
				if err != nil {
					return vmOutcome{err: r.classify(err)}
				}
				p, err := r.awaitable(v)
				if err != nil {
					return vmOutcome{err: r.classify(err)}
				}
				if p != nil {
					waiting = p
					ignore[p] = true
					continue
				}
				final = v
			}
		}
		if r.loop.pending() == 0 {
			if waiting != nil {
				return vmOutcome{err: &RunError{Kind: KindRuntime, Message: "the program never finished: it awaits a promise that nothing will settle (no tool calls or timers are pending)"}}
			}
			break
		}
		if err := r.loop.step(r.stopC); err != nil {
			return vmOutcome{err: r.classifyLoop(err)}
		}
	}
	r.finished = true
	r.reportRejections(ignore)
	s, err := r.intr.stringifyResult(goja.Undefined(), final)
	if err != nil {
		if isUncatchable(err) {
			return vmOutcome{err: r.classify(err)}
		}
		return vmOutcome{err: &RunError{Kind: KindRuntime, Message: "the program's result cannot be converted to JSON: " + exceptionText(err)}}
	}
	if s == nil || goja.IsUndefined(s) {
		return vmOutcome{value: json.RawMessage("null")}
	}
	return r.checkResult(s.String())
}

// maxResultDepth is how deeply the result may nest: Go's encoding/json
// refuses deeper JSON, so the Result could not be sent or printed.
const maxResultDepth = 10000

// checkResult accepts the result's JSON when it is small enough and can be
// encoded again.
func (r *run) checkResult(s string) vmOutcome {
	if len(s) > MaxResultBytes {
		return vmOutcome{err: &RunError{Kind: KindLimit, Limit: LimitResultSize, Message: fmt.Sprintf(
			"the program's result is %s of JSON, over the limit of %s: return less (slice, filter or summarize the data, or write it to a file with mcpcode:fs and return its name)",
			sizeText(int64(len(s))), formatBytes(MaxResultBytes))}}
	}
	if !json.Valid([]byte(s)) {
		return vmOutcome{err: &RunError{Kind: KindRuntime, Message: fmt.Sprintf(
			"the program's result cannot be returned: its JSON nests more than %d levels deep: return a flatter value", maxResultDepth)}}
	}
	return vmOutcome{value: json.RawMessage(s)}
}

// callDefault returns the default export, called with the input when it is
// a function.
func (r *run) callDefault(in json.RawMessage) (goja.Value, error) {
	v := r.exported
	if v == nil {
		return goja.Undefined(), nil
	}
	fn, ok := goja.AssertFunction(v)
	if !ok {
		return v, nil
	}
	if in == nil {
		return fn(goja.Undefined())
	}
	input, err := r.intr.parse(goja.Undefined(), r.vm.ToValue(string(in)))
	if err != nil {
		if isUncatchable(err) {
			return nil, err
		}
		return nil, fmt.Errorf("the input is not valid JSON: %s", exceptionText(err))
	}
	return fn(goja.Undefined(), input)
}

var promiseType = reflect.TypeOf((*goja.Promise)(nil))

// promiseOf returns v's promise when v is a native promise, without
// exporting (copying) anything else.
func promiseOf(v goja.Value) (*goja.Promise, bool) {
	obj, ok := v.(*goja.Object)
	if !ok || obj.ExportType() != promiseType {
		return nil, false
	}
	p, ok := obj.Export().(*goja.Promise)
	return p, ok
}

// awaitable returns the promise to wait for before v is the program's
// result, as await would: v itself when it is a native promise, a promise
// that adopts v's state when v is another object (a thenable's then runs
// as a job), and nil for a primitive.
func (r *run) awaitable(v goja.Value) (*goja.Promise, error) {
	if p, ok := promiseOf(v); ok {
		return p, nil
	}
	if _, ok := v.(*goja.Object); !ok {
		return nil, nil
	}
	pv, err := r.intr.resolve(goja.Undefined(), v)
	if err != nil {
		return nil, err
	}
	p, _ := promiseOf(pv)
	return p, nil
}

// trackRejection remembers promises rejected without a handler, so that
// failures a program forgot to await are reported as warnings.
func (r *run) trackRejection(p *goja.Promise, op goja.PromiseRejectionOperation) {
	switch op {
	case goja.PromiseRejectionReject:
		if !r.rejected[p] {
			r.rejected[p] = true
			r.rejections = append(r.rejections, p)
		}
	case goja.PromiseRejectionHandle:
		delete(r.rejected, p)
	}
}

func (r *run) reportRejections(ignore map[*goja.Promise]bool) {
	for _, p := range r.rejections {
		if !r.rejected[p] || ignore[p] {
			continue
		}
		e := r.fromThrown(p.Result())
		text := e.Message
		if e.Stack != "" {
			text = e.Stack
		}
		r.logs.add("warn", "unhandled promise rejection (a failure that was never awaited): "+text, 0)
	}
}

// result assembles the Result.
func (r *run) result(out vmOutcome, start time.Time) *Result {
	if e := out.err; e != nil && (e.server != "" || e.tool != "") {
		plain := *e
		plain.server, plain.tool = "", ""
		out.err = &plain
	}
	logs, omitted := r.logs.snapshot(r.lim)
	calls, bytes := r.calls.snapshot()
	res := &Result{
		OK:          out.err == nil,
		Result:      out.value,
		Logs:        logs,
		LogsOmitted: omitted,
		Error:       out.err.truncated(),
		ToolCalls:   calls,
		Stats:       Stats{DurationMs: time.Since(start).Milliseconds(), ToolCalls: len(calls), BytesFromTools: bytes},
	}
	if res.Result == nil || !res.OK {
		res.Result = json.RawMessage("null")
	}
	return res
}

func failedResult(e *RunError, start time.Time) *Result {
	return &Result{
		Result: json.RawMessage("null"), Logs: []LogEntry{}, ToolCalls: []ToolCallRecord{}, Error: e.truncated(),
		Stats: Stats{DurationMs: time.Since(start).Milliseconds()},
	}
}

// compileCode compiles a bundle's code (in worker processes, where the
// Program arrives as JSON). Source maps are read only inline.
func compileCode(code string) (*goja.Program, error) {
	ast, err := parser.ParseFile(nil, bundleFileName, code, 0, parser.WithSourceMapLoader(refuseSourceMapFile))
	if err != nil {
		return nil, err
	}
	return goja.CompileAST(ast, true)
}

// noCaller serves runs that were given no mcptool.Caller.
type noCaller struct{}

func (noCaller) Tools(context.Context, string) ([]mcptool.Tool, error) {
	return nil, fmt.Errorf("%w: this run has no tool caller, so no servers are available", mcptool.ErrUnknownServer)
}

func (noCaller) CallTool(context.Context, string, string, json.RawMessage) (*mcptool.Result, error) {
	return nil, fmt.Errorf("this run has no tool caller")
}
