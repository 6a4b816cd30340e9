package runtime

import (
	"errors"
	"fmt"
	"slices"

	"github.com/dop251/goja"
)

// toolErrorKinds are the kinds a ToolError may carry.
var toolErrorKinds = []string{KindTool, KindTransport, KindValidation, KindLimit, KindPermission}

// classify turns an error from the VM into a RunError.
func (r *run) classify(err error) *RunError {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(*RunError); ok {
			out := *e
			out.Stack = framesStack(e.Message, ie.Stack())
			return &out
		}
		return &RunError{Kind: KindRuntime, Message: fmt.Sprint(ie.Value())}
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		e := r.limitError(LimitStack)
		frames := so.Stack()
		if len(frames) > 10 {
			frames = frames[:10]
		}
		e.Stack = framesStack("RangeError: "+e.Message, frames)
		return e
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return r.fromThrown(ex.Value())
	}
	return &RunError{Kind: KindRuntime, Message: err.Error()}
}

// fromThrown turns a thrown (or rejected) value into a RunError: limit
// errors by their tag, ToolErrors by their kind, other errors as runtime
// errors with their mapped stack, and any other value by its string form.
func (r *run) fromThrown(v goja.Value) (out *RunError) {
	defer func() {
		if x := recover(); x != nil { // a hostile value whose accessors throw
			out = &RunError{Kind: KindRuntime, Message: "the program threw a value that cannot be inspected"}
		}
	}()
	obj, ok := v.(*goja.Object)
	if ok {
		msg := propString(obj, "message")
		stack := ""
		if st := obj.Get("stack"); st != nil && goja.IsString(st) {
			stack = cleanStack(st.String())
		}
		if limit, ok := r.tagged[obj]; ok {
			return &RunError{Kind: KindLimit, Limit: limit, Message: msg, Stack: stack}
		}
		if r.vm.InstanceOf(obj, r.intr.toolError) {
			kind := propString(obj, "kind")
			if slices.Contains(toolErrorKinds, kind) {
				e := &RunError{Kind: kind, Message: msg, Stack: stack}
				if kind == KindLimit {
					e.Limit = LimitToolCalls
				}
				return e
			}
		}
		if r.vm.InstanceOf(obj, r.intr.errorCtor) {
			name := propString(obj, "name")
			if name == "" {
				name = "Error"
			}
			return &RunError{Kind: KindRuntime, Message: name + ": " + msg, Stack: stack}
		}
	}
	f := &formatter{vm: r.vm, in: r.intr, limit: 4096}
	f.args([]goja.Value{v})
	return &RunError{Kind: KindRuntime, Message: "uncaught " + f.b.String()}
}

func propString(obj *goja.Object, name string) string {
	v := obj.Get(name)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return ""
	}
	return v.String()
}

// newError makes a plain JS Error.
func (r *run) newError(msg string) *goja.Object {
	obj, err := r.vm.New(r.intr.errorCtor, r.vm.ToValue(msg))
	if err != nil {
		if isUncatchable(err) {
			panic(err)
		}
		return r.vm.NewTypeError(msg)
	}
	return obj
}

// limitError is a JS error that reports a limit (thrown by setTimeout).
func (r *run) limitErrorValue(limit string) *goja.Object {
	obj := r.newError(r.lim.limitMessage(limit))
	r.tagged[obj] = limit
	return obj
}
