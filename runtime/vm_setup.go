package runtime

import (
	"fmt"
	"sync"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"

	// Bounds the backtracking regular expressions goja runs in this
	// process (see the package).
	_ "github.com/mcpcode/mcpcode/runtime/internal/regexptimeout"
)

// internalScriptName names the runtime's own helper script in stack traces
// (frames from it are dropped when stacks are cleaned).
const internalScriptName = "mcpcode:internal"

// internalSource defines, in a fresh VM and before any program code runs,
// the ToolError class and the intrinsics the host needs, captured so that
// a program replacing JSON.stringify, JSON.parse, Promise.resolve,
// Promise.prototype.then, Function.prototype.call or Object.prototype's
// setters cannot change them. ToolError defines its
// fields rather than assigning them, so that no setter a program puts on a
// prototype runs when the host builds one.
const internalSource = `(function () {
  const defineProperty = Object.defineProperty;
  const getOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty);
  const accessor = {};
  const field = (o, k, v) => defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  class ToolError extends Error {
    constructor(message, kind, server, tool, result) {
      super(message);
      field(this, "kind", kind);
      field(this, "server", server);
      field(this, "tool", tool);
      if (result !== undefined) field(this, "result", result);
    }
  }
  defineProperty(ToolError.prototype, "name", { value: "ToolError", writable: true, configurable: true });
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const resolve = Promise.resolve.bind(Promise);
  const callThen = Function.prototype.call.bind(Promise.prototype.then);
  const keys = Object.keys;
  const stringValue = Function.prototype.call.bind(String.prototype.valueOf);
  const numberValue = Function.prototype.call.bind(Number.prototype.valueOf);
  const booleanValue = Function.prototype.call.bind(Boolean.prototype.valueOf);
  const from = Array.from;
  const bigintToString = (k, v) => typeof v === "bigint" ? v.toString() : v;
  return {
    ToolError: ToolError,
    parse: (s) => parse(s),
    stringify: (v) => stringify(v),
    stringifyResult: (v) => stringify(v, bigintToString),
    stringifyIndented: (v) => stringify(v, bigintToString, 2),
    entries: (v) => from(v),
    ownData: (o, k) => {
      const d = getOwnPropertyDescriptor(o, k);
      return d === undefined ? undefined : hasOwn(d, "value") ? d.value : accessor;
    },
    accessor: accessor,
    resolve: (v) => resolve(v),
    then: (p, onFulfilled, onRejected) => { callThen(p, onFulfilled, onRejected); },
    unbox: (o, c) => c === "String" ? stringValue(o) : c === "Number" ? numberValue(o) : booleanValue(o),
    ownEntries: (o, sink) => {
      const ks = keys(o);
      for (let i = 0; i < ks.length; i++) {
        const d = getOwnPropertyDescriptor(o, ks[i]);
        if (d === undefined) continue;
        if (!hasOwn(d, "value")) return ks[i];
        sink(ks[i], d.value);
      }
    },
    items: (a, sink) => {
      const n = a.length;
      for (let i = 0; i < n; i++) {
        const d = getOwnPropertyDescriptor(a, i);
        if (d === undefined) { sink(undefined); continue; }
        if (!hasOwn(d, "value")) return i;
        sink(d.value);
      }
    },
  };
})()`

var (
	internalOnce    sync.Once
	internalProgram *goja.Program
	internalErr     error
)

func compiledInternal() (*goja.Program, error) {
	internalOnce.Do(func() {
		internalProgram, internalErr = goja.Compile(internalScriptName, internalSource, true)
	})
	return internalProgram, internalErr
}

// intrinsics are the VM values the host uses, captured before program code
// runs.
type intrinsics struct {
	toolError         *goja.Object
	errorCtor         *goja.Object
	errorProto        *goja.Object
	mapCtor           *goja.Object
	setCtor           *goja.Object
	parse             goja.Callable
	stringify         goja.Callable
	stringifyResult   goja.Callable
	stringifyIndented goja.Callable
	entries           goja.Callable
	// ownData reads an own data property without running getters (a
	// Proxy's traps still run): undefined when there is none, accessor
	// when the property is a getter or setter.
	ownData  goja.Callable
	accessor *goja.Object
	// resolve is Promise.resolve: it adopts a thenable as await does.
	resolve goja.Callable
	// then is Promise.prototype.then as the realm had it before any code
	// ran: then(promise, onFulfilled, onRejected).
	then goja.Callable
	// unbox(object, className) is the primitive in a String, Number or
	// Boolean object, read by the built-in valueOf (no valueOf or toString
	// a program defined runs).
	unbox goja.Callable
	// ownEntries(object, sink) calls sink(key, value) for each of an
	// object's own enumerable string-keyed data properties, and
	// items(array, sink) sink(value) for each element (undefined for a
	// hole), reading no getter: at the first getter or setter they stop
	// and return its key. For objects that are not Proxies no program code
	// runs.
	ownEntries, items goja.Callable
}

// newSandboxVM returns a fresh VM with nothing of the host reachable:
// goja's own globals minus eval (direct eval would give code access to the
// bundle's scope) and GoError, with source maps disabled for any code
// compiled at run time (Function, so that no sourceMappingURL comment makes
// goja read a host file), and the call depth bounded.
func newSandboxVM(maxStack int) (*goja.Runtime, *intrinsics, error) {
	if v, ok := takeSpareVM(); ok {
		if v.err == nil {
			v.vm.SetMaxCallStackSize(maxStack)
		}
		return v.vm, v.intr, v.err
	}
	return buildSandboxVM(maxStack)
}

// buildSandboxVM makes the VM newSandboxVM returns.
func buildSandboxVM(maxStack int) (*goja.Runtime, *intrinsics, error) {
	vm := goja.New()
	vm.SetParserOptions(parser.WithDisableSourceMaps)
	vm.SetMaxCallStackSize(maxStack)
	global := vm.GlobalObject()
	for _, name := range []string{"GoError"} {
		if err := global.Delete(name); err != nil {
			return nil, nil, fmt.Errorf("removing global %s: %w", name, err)
		}
	}
	evalStub := vm.ToValue(func(goja.FunctionCall) goja.Value {
		panic(vm.NewTypeError("eval is not available in mcpcode programs"))
	})
	if err := global.Set("eval", evalStub); err != nil {
		return nil, nil, fmt.Errorf("replacing eval: %w", err)
	}

	if err := installJSONParse(vm); err != nil {
		return nil, nil, fmt.Errorf("installing JSON.parse: %w", err)
	}

	prg, err := compiledInternal()
	if err != nil {
		return nil, nil, fmt.Errorf("compiling the runtime's helpers: %w", err)
	}
	v, err := vm.RunProgram(prg)
	if err != nil {
		return nil, nil, fmt.Errorf("running the runtime's helpers: %w", err)
	}
	obj := v.ToObject(vm)
	in := &intrinsics{
		toolError: obj.Get("ToolError").ToObject(vm),
		errorCtor: global.Get("Error").ToObject(vm),
		mapCtor:   global.Get("Map").ToObject(vm),
		setCtor:   global.Get("Set").ToObject(vm),
	}
	in.errorProto = in.errorCtor.Get("prototype").ToObject(vm)
	in.accessor = obj.Get("accessor").ToObject(vm)
	for name, dst := range map[string]*goja.Callable{
		"parse": &in.parse, "stringify": &in.stringify, "stringifyResult": &in.stringifyResult,
		"stringifyIndented": &in.stringifyIndented, "entries": &in.entries,
		"ownData": &in.ownData, "resolve": &in.resolve, "then": &in.then, "unbox": &in.unbox, "ownEntries": &in.ownEntries, "items": &in.items,
	} {
		fn, ok := goja.AssertFunction(obj.Get(name))
		if !ok {
			return nil, nil, fmt.Errorf("runtime helper %s is not a function", name)
		}
		*dst = fn
	}
	return vm, in, nil
}

// spareVM is a sandbox VM made ahead of its run by Prewarm.
type spareVM struct {
	vm   *goja.Runtime
	intr *intrinsics
	err  error
}

var (
	spareMu sync.Mutex
	// spare receives the VM Prewarm is making, until a run takes it; nil
	// when none is being made or waiting.
	spare chan spareVM
)

// Prewarm makes, in the background, the sandbox VM the first run in this
// process needs whatever its program (the runtime's helper script compiled
// and run in a fresh VM): the next realm created takes it. A worker process
// calls it as it starts, so that this work overlaps with reading and
// bundling its job on another core instead of following it. (Warming
// esbuild up as well was measured: its once-per-process tables then took
// as long in the background as in the job's own bundle, which started
// right after, and the VM came later.) A second call while a VM is waiting
// does nothing. The VM is made exactly as newSandboxVM makes one; nothing
// of a program has been near it.
func Prewarm() {
	spareMu.Lock()
	defer spareMu.Unlock()
	if spare != nil {
		return
	}
	ch := make(chan spareVM, 1)
	spare = ch
	go func() {
		vm, intr, err := buildSandboxVM(DefaultLimits().MaxStackDepth)
		ch <- spareVM{vm: vm, intr: intr, err: err}
	}()
}

// takeSpareVM returns the VM Prewarm made, waiting for it if it is still
// being made (less time than making another), or false when there is none.
func takeSpareVM() (spareVM, bool) {
	spareMu.Lock()
	ch := spare
	spare = nil
	spareMu.Unlock()
	if ch == nil {
		return spareVM{}, false
	}
	return <-ch, true
}
