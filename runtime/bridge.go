package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime/internal/argcheck"
)

// toolCatalog caches, for one run, each server's tools (looked up on first
// use, so a run starts only the servers it calls) and each tool's compiled
// input schema. Safe for concurrent use by the call goroutines.
type toolCatalog struct {
	caller mcptool.Caller

	mu      sync.Mutex
	servers map[string]*serverEntry
	schemas map[string]*schemaEntry
}

type serverEntry struct {
	once  sync.Once
	tools map[string]mcptool.Tool
	names []string
	err   error
}

type schemaEntry struct {
	once   sync.Once
	schema *argcheck.Schema
}

func newToolCatalog(c mcptool.Caller) *toolCatalog {
	return &toolCatalog{caller: c, servers: map[string]*serverEntry{}, schemas: map[string]*schemaEntry{}}
}

func (c *toolCatalog) server(ctx context.Context, name string) *serverEntry {
	c.mu.Lock()
	e, ok := c.servers[name]
	if !ok {
		e = &serverEntry{}
		c.servers[name] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		tools, err := c.caller.Tools(ctx, name)
		if err != nil {
			e.err = err
			return
		}
		e.tools = make(map[string]mcptool.Tool, len(tools))
		for _, t := range tools {
			e.tools[t.Name] = t
			e.names = append(e.names, t.Name)
		}
	})
	return e
}

func (c *toolCatalog) schema(server string, info mcptool.Tool) *argcheck.Schema {
	key := server + "\x00" + info.Name
	c.mu.Lock()
	e, ok := c.schemas[key]
	if !ok {
		e = &schemaEntry{}
		c.schemas[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.schema = argcheck.Compile(info.InputSchema) })
	return e.schema
}

// callOutcome is what one call goroutine hands back to the VM goroutine.
type callOutcome struct {
	result shapedResult
	// kind is "" on success, else the ToolError kind.
	kind    string
	message string
}

// perform does one call off the VM goroutine: look the tool up, check the
// scope's permission, validate the arguments, call, and shape the result.
// Nothing is sent upstream unless every check passed; book records the
// calls that are sent.
func (c *toolCatalog) perform(ctx context.Context, sc *scopeDescriptor, server, tool string, args json.RawMessage, book *callBook) callOutcome {
	if msg := usesMessage(sc, server, tool); msg != "" {
		// Before anything else: a skill cannot even start a server it was
		// not approved to call.
		return callOutcome{kind: KindPermission, message: msg}
	}
	srv := c.server(ctx, server)
	if srv.err != nil {
		if errors.Is(srv.err, mcptool.ErrUnknownServer) {
			return callOutcome{kind: KindValidation, message: srv.err.Error()}
		}
		return callOutcome{kind: KindTransport, message: fmt.Sprintf("listing the tools of server %q: %v", server, srv.err)}
	}
	info, ok := srv.tools[tool]
	if !ok {
		return callOutcome{kind: KindValidation, message: unknownToolMessage(server, tool, srv.names)}
	}
	if sc != nil && !sc.Write && !info.Hints.IsReadOnly() {
		return callOutcome{kind: KindPermission, message: permissionMessage(sc, server, tool)}
	}
	if problems := c.schema(server, info).Problems(args); len(problems) > 0 {
		return callOutcome{kind: KindValidation, message: validationMessage(server, tool, problems)}
	}
	if sc != nil && sc.Skill != "" {
		// The caller may need to know whose code calls: a write an approved
		// skill was granted is not asked about again.
		ctx = mcptool.WithScope(ctx, mcptool.Scope{Skill: sc.Skill, Write: sc.Write})
	}
	if info.HasOutputSchema() {
		// shapeToolResult then uses the structured content alone when the
		// result has some (and is not an error): a caller may leave out
		// its text copy (the worker relay does).
		ctx = mcptool.WithStructuredOnly(ctx)
	}
	idx := book.start(server, tool)
	started := time.Now()
	res, err := c.caller.CallTool(ctx, server, tool, args)
	book.finish(idx, time.Since(started), err == nil && res != nil && !res.IsError, resultBytes(res))
	if errors.Is(err, mcptool.ErrPolicy) {
		// Refused before anything was sent by a data policy (privacy flows).
		return callOutcome{kind: KindPolicy, message: err.Error()}
	}
	if errors.Is(err, mcptool.ErrDenied) {
		// Refused before anything was sent (a person declined, or a policy).
		return callOutcome{kind: KindPermission, message: err.Error()}
	}
	if err != nil {
		return callOutcome{kind: KindTransport, message: fmt.Sprintf("calling %s.%s: %v", server, tool, err)}
	}
	if res == nil {
		return callOutcome{kind: KindTransport, message: fmt.Sprintf("calling %s.%s: no result", server, tool)}
	}
	shaped, err := shapeToolResult(info, res)
	if err != nil {
		return callOutcome{kind: KindTransport, message: fmt.Sprintf("calling %s.%s: %v", server, tool, err)}
	}
	if shaped.failed {
		return callOutcome{kind: KindTool, message: shaped.message, result: shaped}
	}
	return callOutcome{result: shaped}
}

// resultBytes is the size of a tool's answer, as counted in
// Stats.BytesFromTools.
func resultBytes(res *mcptool.Result) int64 {
	if res == nil {
		return 0
	}
	return int64(len(res.Content) + len(res.StructuredContent))
}

func unknownToolMessage(server, tool string, names []string) string {
	msg := fmt.Sprintf("unknown tool %q on server %q", tool, server)
	if best := argcheck.Closest(tool, names, 3); len(best) > 0 {
		return msg + fmt.Sprintf(" (did you mean %s?)", strings.Join(quoteEach(best), " or "))
	}
	if len(names) == 0 {
		return msg + "; the server has no tools"
	}
	shown := names
	if len(shown) > 10 {
		shown = shown[:10]
	}
	return msg + "; its tools include " + strings.Join(shown, ", ")
}

func quoteEach(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

func permissionMessage(sc *scopeDescriptor, server, tool string) string {
	if len(sc.Skills) <= 1 {
		return fmt.Sprintf("skill %q may not call %s.%s: the tool is not read-only and the skill's SKILL.md does not grant write (approve with --allow-write)", sc.Skill, server, tool)
	}
	return fmt.Sprintf("skill %q may not call %s.%s: the tool is not read-only and not every skill it runs under (%s) grants write in its SKILL.md (approve with --allow-write)", sc.Skill, server, tool, strings.Join(sc.Skills, ", "))
}

// usesMessage says why a skill may not call a tool that is not among the
// tools recorded when it (or a skill that calls it) was approved, or
// returns "". The program's own code (sc nil) may call any tool.
func usesMessage(sc *scopeDescriptor, server, tool string) string {
	if sc == nil {
		return ""
	}
	ref := server + "." + tool
	for i, tools := range sc.tools {
		if slices.Contains(tools, ref) {
			continue
		}
		owner := sc.chain[i]
		recorded := "none"
		if len(tools) > 0 {
			recorded = strings.Join(tools, ", ")
		}
		rule := fmt.Sprintf("a skill may call only the tools recorded when it was approved (mcpcode-tools in skills/%s/SKILL.md: %s); propose it again to have the tool reviewed", owner, recorded)
		if owner == sc.Skill {
			return fmt.Sprintf("skill %q may not call %s: %s", sc.Skill, ref, rule)
		}
		return fmt.Sprintf("skill %q may not call %s: it runs for skill %q, and %s", sc.Skill, ref, owner, rule)
	}
	return ""
}

func validationMessage(server, tool string, problems []string) string {
	if len(problems) == 1 {
		return fmt.Sprintf("invalid arguments for %s.%s (nothing was sent): %s", server, tool, problems[0])
	}
	return fmt.Sprintf("invalid arguments for %s.%s (nothing was sent):\n  %s", server, tool, strings.Join(problems, "\n  "))
}

// newCaller returns the native call function of this realm, bound to its
// scope (none in the program's realm: the caller's full rights). Every
// failure, whatever the arguments are (a revoked Proxy included), is a
// rejected promise.
func (r *run) newCaller() func(goja.FunctionCall) goja.Value {
	sc := r.scope
	return func(call goja.FunctionCall) goja.Value {
		promise, resolve, reject := r.vm.NewPromise()
		r.opts.hooks.sawCallAttempt(r.finished)
		if r.finished {
			_ = reject(r.finishedError("callMCPTool"))
			return r.vm.ToValue(promise)
		}
		frames := r.vm.CaptureCallStack(32, nil)
		serverV, toolV := call.Argument(0), call.Argument(1)
		server, tool := primitiveText(serverV), primitiveText(toolV)
		fail := func(kind, msg string) goja.Value {
			_ = reject(r.newToolError(kind, msg, server, tool, "", frames))
			return r.vm.ToValue(promise)
		}
		if !goja.IsString(serverV) || !goja.IsString(toolV) {
			return fail(KindValidation, "callMCPTool(server, tool, args): server and tool must be strings")
		}
		r.callsStarted++
		if r.callsStarted > r.lim.MaxToolCalls {
			return fail(KindLimit, r.lim.limitMessage(LimitToolCalls))
		}
		args, msg := r.snapshotArgs(call.Argument(2), "the arguments")
		if msg != "" {
			return fail(KindValidation, fmt.Sprintf("invalid arguments for %s.%s (nothing was sent): %s", server, tool, msg))
		}
		copts, msg := r.parseCallOptions(call.Argument(3)) // { timeoutMs, signal, onProgress } (upstream.go)
		if msg != "" {
			return fail(KindValidation, fmt.Sprintf("invalid options for %s.%s (nothing was sent): %s", server, tool, msg))
		}
		uc, msg := r.startCall(copts, server)
		if msg != "" {
			return fail(KindCanceled, fmt.Sprintf("calling %s.%s: %s", server, tool, msg))
		}
		r.loop.callsInFlight++
		r.inFlight++
		hookDone := r.opts.hooks.callGoroutine()
		go func() {
			defer hookDone()
			out := uc.finish(r.catalog.perform(uc.ctx, sc, server, tool, args, r.calls), server, tool, copts.timeout)
			r.loop.post(func() error {
				r.loop.callsInFlight--
				r.inFlight--
				defer r.release()
				return r.loopError(r.settleCall(out, resolve, reject, server, tool, frames))
			})
		}()
		return r.vm.ToValue(promise)
	}
}

// primitiveText is a primitive's string form, without running any program
// code: objects and symbols are only named.
func primitiveText(v goja.Value) string {
	switch v.(type) {
	case *goja.Object:
		return "[object]"
	case *goja.Symbol:
		return "[symbol]"
	}
	if v == nil {
		return "undefined"
	}
	return v.String()
}

// settleCall resolves or rejects a call's promise on the VM goroutine.
func (r *run) settleCall(out callOutcome, resolve, reject func(any) error, server, tool string, frames []goja.StackFrame) error {
	if out.kind == "" {
		// Built straight from the bytes, as JSON.parse would (jsonvalue.go).
		v, err := jsonToValue(r.vm, out.result.value)
		if err != nil {
			msg := fmt.Sprintf("calling %s.%s: the result is not valid JSON (%v)", server, tool, err)
			if errors.Is(err, errJSONTooDeep) {
				msg = fmt.Sprintf("calling %s.%s: the result cannot be used: %v", server, tool, err)
			}
			return reject(r.newToolError(KindTransport, msg, server, tool, "", frames))
		}
		return resolve(v)
	}
	return reject(r.newToolError(out.kind, out.message, server, tool, string(out.result.value), frames))
}

// newToolError builds a ToolError whose stack is where the call was made.
func (r *run) newToolError(kind, msg, server, tool, resultJSON string, frames []goja.StackFrame) *goja.Object {
	limit := ""
	if kind == KindLimit {
		limit = LimitToolCalls
	}
	obj := r.newHostToolError(kind, limit, msg, server, tool, resultJSON)
	_ = obj.DefineDataProperty("stack", r.vm.ToValue(framesStack("ToolError: "+msg, frames)), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return obj
}

// newHostToolError builds a ToolError the host vouches for: its kind (and
// limit) are reported as they are when it is uncaught.
func (r *run) newHostToolError(kind, limit, msg, server, tool, resultJSON string) *goja.Object {
	result := goja.Undefined()
	if resultJSON != "" {
		if v, err := r.intr.parse(goja.Undefined(), r.vm.ToValue(resultJSON)); err == nil {
			result = v
		}
	}
	obj, err := r.vm.New(r.intr.toolError, r.vm.ToValue(msg), r.vm.ToValue(kind), r.vm.ToValue(server), r.vm.ToValue(tool), result)
	if err != nil {
		if isUncatchable(err) {
			panic(err)
		}
		obj = r.vm.NewTypeError(msg)
	}
	r.hostErrors[obj] = hostError{kind: kind, limit: limit, server: server, tool: tool}
	return obj
}

func isUncatchable(err error) bool {
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	return errors.As(err, &ie) || errors.As(err, &so)
}
