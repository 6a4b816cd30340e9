package runtime

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime/internal/argcheck"
)

// A skill is a function from a JSON input to a JSON result that runs in a
// realm of its own. Calling it (the default export of "skills/<name>")
// serialises the input from a snapshot (snapshot.go), validates it against
// the skill's input schema, and then, from the event loop, makes a fresh
// realm for the skill: a new goja runtime with its own globals and
// built-ins, whose host object is bound to the skill's scope (its grant,
// intersected with its callers', and the tools each was approved for). The
// skill's result is serialised in its realm and parsed in the caller's;
// its error becomes an error of the caller's realm. Nothing else crosses:
// no object, function or prototype of one realm is reachable from another,
// so a skill that patches Object.prototype, Array.prototype, Promise or
// JSON changes only its own realm.

// maxSkillDepth bounds skills calling skills (a skill that imports itself,
// say): each call is a realm.
const maxSkillDepth = 16

// skillCode returns the bundled code of an imported skill, nil when the
// program was bundled without it.
func (p *Program) skillCode(name string) *SkillCode {
	for _, c := range p.SkillCode {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// skillFunction is the default export of "skills/<name>" in this realm.
func (r *run) skillFunction(name string) goja.Value {
	code := r.prog.skillCode(name)
	return r.vm.ToValue(func(call goja.FunctionCall) goja.Value {
		promise, resolve, reject := r.vm.NewPromise()
		frames := r.vm.CaptureCallStack(32, nil)
		fail := func(kind, msg string) goja.Value {
			_ = reject(r.newToolError(kind, msg, "skills", name, "", frames))
			return r.vm.ToValue(promise)
		}
		switch {
		case r.finished:
			_ = reject(r.finishedError("skill " + name))
			return r.vm.ToValue(promise)
		case code == nil:
			_ = reject(r.newError(fmt.Sprintf("skill %q is not part of this program's bundle: bundle the program again", name)))
			return r.vm.ToValue(promise)
		case r.depth >= maxSkillDepth:
			_ = reject(r.newError(fmt.Sprintf("skill %q: skills call skills more than %d deep: a skill that calls itself must stop", name, maxSkillDepth)))
			return r.vm.ToValue(promise)
		}
		input, msg := r.snapshotArgs(call.Argument(0), "the input")
		if msg != "" {
			return fail(KindValidation, skillInputMessage(name, []string{msg}))
		}
		if problems := r.catalog.skillSchema(code).Problems(input); len(problems) > 0 {
			return fail(KindValidation, skillInputMessage(name, problems))
		}
		scope := r.childScope(code)
		r.loop.post(func() error {
			return r.callSkill(code, scope, input, func(value string, e *RunError) {
				r.loop.post(func() error { return r.settleSkill(name, value, e, resolve, reject, frames) })
			})
		})
		return r.vm.ToValue(promise)
	})
}

// skillInputMessage words a skill's input problems like a tool's argument
// problems.
func skillInputMessage(name string, problems []string) string {
	if len(problems) == 1 {
		return fmt.Sprintf("invalid input for skill %q (nothing was run): %s", name, problems[0])
	}
	return fmt.Sprintf("invalid input for skill %q (nothing was run):\n  %s", name, strings.Join(problems, "\n  "))
}

// childScope is the scope of a skill called from this realm: the skill's
// own grant intersected with every caller's.
func (r *run) childScope(code *SkillCode) *scopeDescriptor {
	sc := &scopeDescriptor{Skill: code.Name, Write: code.Grant.Write}
	if p := r.scope; p != nil {
		sc.Skills = slices.Clone(p.Skills)
		sc.Write = sc.Write && p.Write
		sc.chain = slices.Clone(p.chain)
		sc.tools = slices.Clone(p.tools)
	}
	sc.chain = append(sc.chain, code.Name)
	sc.Skills = append(sc.Skills, code.Name)
	slices.Sort(sc.Skills)
	sc.Skills = slices.Compact(sc.Skills)
	sc.tools = append(sc.tools, code.Grant.Tools)
	return sc
}

// callSkill runs one call of a skill in a fresh realm, on the loop
// goroutine; done gets the skill's result as JSON, or its error, once. The
// error is an interrupt that ends the run.
func (r *run) callSkill(code *SkillCode, scope *scopeDescriptor, input json.RawMessage, done func(string, *RunError)) error {
	compiled, err := r.compiledSkill(code)
	if err != nil {
		done("", &RunError{Kind: KindBundle, Message: fmt.Sprintf("skill %q cannot be compiled: %v", code.Name, err)})
		return nil
	}
	c, err := r.newRealm(scope, r.depth+1)
	if err != nil {
		done("", &RunError{Kind: KindRuntime, Message: fmt.Sprintf("starting skill %q: %v", code.Name, err)})
		return nil
	}
	return c.invoke(compiled, input, done)
}

// invoke runs the realm's bundle, then its default export with the input,
// and hands done the outcome once: the result's JSON, or the error. From
// then on the realm starts nothing, and its pending timers are dropped.
// The error is an interrupt that ends the run.
func (c *run) invoke(compiled *goja.Program, input json.RawMessage, done func(string, *RunError)) (err error) {
	defer func() {
		// An interrupt inside a callback unwinds to here.
		if x := recover(); x != nil {
			e, ok := x.(error)
			if !ok || !isUncatchable(e) {
				panic(x)
			}
			err = e
		}
	}()
	ignore := map[*goja.Promise]bool{}
	finish := func(value string, e *RunError) {
		if c.onFail == nil {
			return // settled already
		}
		c.onFail = nil
		c.finished = true
		c.clearTimers()
		c.reportRejections(ignore)
		c.release()
		done(value, e)
	}
	c.onFail = func(e *RunError) { finish("", e) }
	top, err := c.start(compiled)
	if err != nil {
		if isUncatchable(err) {
			return err
		}
		finish("", c.runError(err))
		return nil
	}
	rejected := func(v goja.Value) { finish("", c.fromThrown(v)) }
	fulfilled := func(v goja.Value) {
		c.finished = true // getters and toJSON of the result start nothing
		out := c.resultJSON(v)
		finish(string(out.value), out.err)
	}
	c.await(top, ignore, func(goja.Value) {
		v, err := c.callDefault(input)
		if err != nil {
			if isUncatchable(err) {
				panic(err)
			}
			finish("", c.classify(err))
			return
		}
		c.await(v, ignore, fulfilled, rejected)
	}, rejected)
	return nil
}

// await calls onFulfilled or onRejected when v settles, as await would (a
// thenable is adopted), with the then of the realm's own intrinsics. An
// interrupt panics.
func (c *run) await(v goja.Value, ignore map[*goja.Promise]bool, onFulfilled, onRejected func(goja.Value)) {
	p, err := c.awaitable(v)
	if err != nil {
		if isUncatchable(err) {
			panic(err)
		}
		c.onFail(c.classify(err))
		return
	}
	if p == nil {
		onFulfilled(v)
		return
	}
	ignore[p] = true
	native := func(f func(goja.Value)) goja.Value {
		return c.vm.ToValue(func(call goja.FunctionCall) goja.Value {
			f(call.Argument(0))
			return goja.Undefined()
		})
	}
	if _, err := c.intr.then(goja.Undefined(), c.vm.ToValue(p), native(onFulfilled), native(onRejected)); err != nil {
		if isUncatchable(err) {
			panic(err)
		}
		c.onFail(c.classify(err))
	}
}

// resultJSON converts a skill's result to JSON in its own realm, with the
// bounds of a program's result.
func (c *run) resultJSON(v goja.Value) vmOutcome {
	s, err := c.intr.stringifyResult(goja.Undefined(), v)
	if err != nil {
		if isUncatchable(err) {
			panic(err)
		}
		return vmOutcome{err: &RunError{Kind: KindRuntime, Message: fmt.Sprintf("the result of skill %q cannot be converted to JSON: %s", c.scope.Skill, exceptionText(err))}}
	}
	if s == nil || goja.IsUndefined(s) {
		return vmOutcome{value: json.RawMessage("null")}
	}
	return c.checkResult(s.String())
}

// clearTimers drops the realm's pending timers.
func (c *run) clearTimers() {
	for id := range c.timers {
		c.loop.clearTimer(id)
	}
	clear(c.timers)
}

// settleSkill settles a skill call's promise in the calling realm, on the
// loop goroutine: the result parsed from its JSON, or the error rebuilt.
func (r *run) settleSkill(name, value string, e *RunError, resolve, reject func(any) error, frames []goja.StackFrame) error {
	if e == nil {
		v, err := r.intr.parse(goja.Undefined(), r.vm.ToValue(value))
		if err != nil {
			if isUncatchable(err) {
				return err
			}
			return reject(r.newError(fmt.Sprintf("skill %q returned JSON that cannot be read: %s", name, exceptionText(err))))
		}
		return resolve(v)
	}
	return reject(r.skillError(name, e, frames))
}

// skillError is a skill's error as the caller's realm sees it: a ToolError
// of the same kind for the kinds a ToolError has (a permission refused, a
// tool's error, a limit), else an Error that says which skill failed; its
// stack is the skill's, then the caller's.
func (r *run) skillError(name string, e *RunError, frames []goja.StackFrame) *goja.Object {
	stack := framesStack("", frames)
	if _, rest, ok := strings.Cut(e.Stack, "\n"); ok {
		stack = "\n" + rest + stack
	}
	switch e.Kind {
	case KindTool, KindTransport, KindValidation, KindPermission, KindPolicy, KindLimit:
		obj := r.newHostToolError(e.Kind, e.Limit, e.Message, e.server, e.tool, "")
		_ = obj.DefineDataProperty("stack", r.vm.ToValue("ToolError: "+e.Message+stack), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		return obj
	}
	msg := fmt.Sprintf("skill %q failed: %s", name, e.Message)
	obj := r.newError(msg)
	_ = obj.DefineDataProperty("stack", r.vm.ToValue("Error: "+msg+stack), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return obj
}

// compiledSkill compiles a skill's code once per run (a Program that
// arrived as JSON has none compiled).
func (s *runShared) compiledSkill(code *SkillCode) (*goja.Program, error) {
	if code.compiled != nil {
		return code.compiled, nil
	}
	s.realmsMu.Lock()
	defer s.realmsMu.Unlock()
	if p, ok := s.compiled[code.Name]; ok {
		return p, nil
	}
	p, err := compileCode(code.Code)
	if err != nil {
		return nil, err
	}
	if s.compiled == nil {
		s.compiled = map[string]*goja.Program{}
	}
	s.compiled[code.Name] = p
	return p, nil
}

// skillSchema is the compiled input schema of a skill, once per run.
func (c *toolCatalog) skillSchema(code *SkillCode) *argcheck.Schema {
	schema := code.Grant.InputSchema
	if len(schema) == 0 {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	return c.schema("\x00skills", mcptool.Tool{Name: code.Name, InputSchema: schema})
}

// realmError is an error of a loop callback already classified in the
// realm it happened in (a skill's realm): the program's realm must not
// inspect another realm's values.
type realmError struct{ e *RunError }

func (e *realmError) Error() string { return e.e.Error() }

// classifyLoop classifies an error a loop callback returned.
func (r *run) classifyLoop(err error) *RunError {
	var re *realmError
	if errors.As(err, &re) {
		return re.e
	}
	return r.classify(err)
}

// loopError is what a loop callback of this realm returns for err: in a
// skill's realm an exception fails the skill's call (the caller gets the
// error); only an interrupt ends the run.
func (r *run) loopError(err error) error {
	if err == nil || isUncatchable(err) || r.scope == nil {
		return err
	}
	if r.onFail != nil {
		r.onFail(r.classify(err))
		return nil
	}
	return &realmError{r.classify(err)}
}
