package runtime

import (
	"fmt"

	"github.com/dop251/goja"
)

// installJSONParse makes a sandbox VM's JSON.parse build its value straight
// from the text (jsonToValue), as tool results are built: goja's own goes
// through encoding/json's token API, about three times slower and with
// twice the garbage (docs/BENCHMARKS.md). What a program gets is the same
// (jsonvalue_test.go holds the two to that). With a reviver, goja's own
// runs. A syntax error is a SyntaxError saying where the text went wrong;
// text nested deeper than maxJSONDepth is one too, instead of a stack
// that grows without end.
func installJSONParse(vm *goja.Runtime) error {
	global := vm.GlobalObject()
	jsonObj, ok := global.Get("JSON").(*goja.Object)
	if !ok {
		return fmt.Errorf("no JSON object")
	}
	original, ok := goja.AssertFunction(jsonObj.Get("parse"))
	if !ok {
		return fmt.Errorf("JSON.parse is not a function")
	}
	syntaxError, ok := global.Get("SyntaxError").(*goja.Object)
	if !ok {
		return fmt.Errorf("no SyntaxError")
	}
	parse := vm.ToValue(func(call goja.FunctionCall) goja.Value {
		if _, ok := goja.AssertFunction(call.Argument(1)); ok {
			v, err := original(goja.Undefined(), call.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		}
		if _, ok := call.Argument(0).(*goja.Symbol); ok {
			panic(vm.NewTypeError("Cannot convert a Symbol value to a string"))
		}
		text := call.Argument(0).ToString().String()
		v, err := jsonToValue(vm, []byte(text))
		if err != nil {
			e, nerr := vm.New(syntaxError, vm.ToValue("JSON.parse: "+err.Error()))
			if nerr != nil {
				panic(nerr)
			}
			panic(e)
		}
		return v
	}).(*goja.Object)
	// The name and length the built-in has (both read-only, configurable).
	if err := parse.DefineDataProperty("name", vm.ToValue("parse"), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	if err := parse.DefineDataProperty("length", vm.ToValue(2), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	return jsonObj.DefineDataProperty("parse", parse, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}
