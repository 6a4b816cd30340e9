package runtime

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/dop251/goja"
)

// hostError is what the host knows about an error object it created: only
// those report a kind other than "runtime" (a program can construct a
// ToolError, or set a kind property, but cannot fake these).
type hostError struct {
	kind  string
	limit string
	// server and tool are a ToolError's, carried to a skill's caller.
	server, tool string
}

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

// fromThrown turns a thrown (or rejected) value into a RunError: errors the
// host created by their kind (a limit, a ToolError), other errors as
// runtime errors with their mapped stack, and any other value by its string
// form. The run is finished from here on: code the inspection runs (a
// Proxy's traps, a toString) can start no tool call, timer or file
// operation. Error fields are read from own data properties (and the
// prototypes' for the name), so no getter runs.
func (r *run) fromThrown(v goja.Value) (out *RunError) {
	r.finished = true
	defer func() {
		if x := recover(); x != nil {
			if err, ok := x.(error); ok && isUncatchable(err) {
				panic(x)
			}
			out = &RunError{Kind: KindRuntime, Message: "the program threw a value that cannot be inspected"}
		}
	}()
	obj, ok := v.(*goja.Object)
	if ok && isProxy(obj) {
		return &RunError{Kind: KindRuntime, Message: "uncaught Proxy object (not inspected)"}
	}
	if ok {
		msg := r.dataText(obj, "message")
		stack := ""
		if st := r.dataProp(obj, "stack", false); st != nil && goja.IsString(st) {
			stack = cleanStack(st.String())
		}
		if he, ok := r.hostErrors[obj]; ok {
			return &RunError{Kind: he.kind, Limit: he.limit, Message: msg, Stack: stack, server: he.server, tool: he.tool}
		}
		if r.isError(obj) {
			name := r.dataText(obj, "name")
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

var proxyType = reflect.TypeOf(goja.Proxy{})

func isProxy(obj *goja.Object) bool { return obj.ExportType() == proxyType }

// isError reports whether Error.prototype is on obj's prototype chain,
// without running a program's Symbol.hasInstance or a Proxy's traps.
func (r *run) isError(obj *goja.Object) bool {
	for i := 0; i < 1000 && obj != nil && !isProxy(obj); i++ {
		if obj == r.intr.errorProto {
			return true
		}
		obj = obj.Prototype()
	}
	return false
}

// dataProp reads a data property of obj, from obj itself or (inherited)
// from its prototypes, without running getters; nil when there is none, or
// when a getter or a Proxy is in the way.
func (r *run) dataProp(obj *goja.Object, key string, inherited bool) goja.Value {
	k := r.vm.ToValue(key)
	for i := 0; i < 1000 && obj != nil && !isProxy(obj); i++ {
		v, err := r.intr.ownData(goja.Undefined(), obj, k)
		if err != nil {
			if isUncatchable(err) {
				panic(err)
			}
			return nil
		}
		if o, ok := v.(*goja.Object); ok && o == r.intr.accessor {
			return nil
		}
		if !goja.IsUndefined(v) || !inherited {
			return v
		}
		obj = obj.Prototype()
	}
	return nil
}

// dataText is a data property as text: a string as it is, another
// primitive in its string form, anything else "".
func (r *run) dataText(obj *goja.Object, key string) string {
	v := r.dataProp(obj, key, true)
	switch {
	case v == nil || goja.IsUndefined(v) || goja.IsNull(v):
		return ""
	case goja.IsString(v):
		return v.String()
	}
	switch v.(type) {
	case *goja.Object, *goja.Symbol:
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

// limitErrorValue is a JS error that reports a limit (thrown by setTimeout).
func (r *run) limitErrorValue(limit string) *goja.Object {
	obj := r.newError(r.lim.limitMessage(limit))
	r.hostErrors[obj] = hostError{kind: KindLimit, limit: limit}
	return obj
}

// finishedError is the error of an operation a program starts after its
// run finished: while its result is converted to JSON (toJSON, getters) or
// its error is reported.
func (r *run) finishedError(op string) *goja.Object {
	return r.newError(op + ": the run has finished, so nothing new can start (this ran while the program's result or error was being read, e.g. in a toJSON method or a getter)")
}
