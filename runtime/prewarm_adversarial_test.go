package runtime

import (
	"errors"
	"strings"
	"testing"

	"github.com/dop251/goja"
)

// TestAdversarialPrewarmedVMIsSandboxed (regression guard, passes): the VM
// Prewarm makes is taken by one realm only (a second realm, a skill's,
// gets a VM of its own with its own intrinsics), and it has every sandbox
// property of a VM made on demand: eval is the stub that throws, GoError
// is gone, and the run's stack limit replaces the default it was made
// with. Not parallel: Prewarm's VM is the process's.
func TestAdversarialPrewarmedVMIsSandboxed(t *testing.T) {
	Prewarm()
	vm1, in1, err := newSandboxVM(7)
	if err != nil {
		t.Fatal(err)
	}
	vm2, in2, err := newSandboxVM(7)
	if err != nil {
		t.Fatal(err)
	}
	if vm1 == vm2 || in1 == in2 || in1.toolError == in2.toolError || in1.errorProto == in2.errorProto {
		t.Fatal("two realms share a VM or its intrinsics")
	}
	for i, vm := range []*goja.Runtime{vm1, vm2} {
		v, err := vm.RunString(`
			const out = [];
			try { (0, globalThis["ev" + "al"])("1"); out.push("eval ran"); } catch (e) { out.push(String(e.message).includes("not available") ? "eval stub" : "eval threw " + e); }
			out.push(typeof GoError);
			out.push(typeof require, typeof process);
			out.join()`)
		if err != nil {
			t.Fatalf("vm %d: %v", i, err)
		}
		if got := v.String(); got != "eval stub,undefined,undefined,undefined" {
			t.Errorf("vm %d (prewarmed: %v): sandbox checks = %q", i, i == 0, got)
		}
		_, err = vm.RunString(`(function f(n) { return n === 0 ? 0 : f(n - 1) + 1; })(50)`)
		var overflow *goja.StackOverflowError
		if !errors.As(err, &overflow) {
			t.Errorf("vm %d: a 50-deep recursion under a 7-frame limit: %v, want a stack overflow", i, err)
		}
	}
	// What a program leaves on the prewarmed VM's intrinsics is not seen
	// by the next realm.
	if _, err := vm1.RunString(`Object.prototype.leak = 1; JSON.parse = () => "patched";`); err != nil {
		t.Fatal(err)
	}
	v, err := vm2.RunString(`[({}).leak === undefined, JSON.parse("2") === 2].join()`)
	if err != nil || v.String() != "true,true" {
		t.Errorf("the second realm sees the first's patches: %v %v", v, err)
	}
}

// TestAdversarialJSONToValueHostileResults (regression guard, passes):
// hostile tool results read as goja's JSON.parse reads them: escapes cut
// at the end of the input, surrogate halves in every arrangement, keys
// equal once unescaped (the interning fast path), __proto__ repeated,
// non-JSON numbers, and a nesting a million deep.
func TestAdversarialJSONToValueHostileResults(t *testing.T) {
	t.Parallel()
	vm := newJSONTestVM(t)
	for _, text := range []string{
		`"\`, `"\u`, `"\u00`, `"\ud800\`, `"\ud800\u`, `"\ud800\udc0`, `"\ud800\udc00`, `"\ud800\udc00"`,
		`"\ud800\ud800\udc00"`, `"\udbff\udfff"`, `"\ud800\u0022"`, `"\ud800\\"`, `"\u0022\u005c"`,
		`{"a":1,"\u0061":2}`, `{"\u0061":1,"a":2,"b":{"a":3}}`, `{"a":1,"a\u0000":2}`,
		`{"__proto__":1,"__proto__":{"x":1}}`, `{"__pr\u006fto__":{"y":2}}`, `[{"__proto__":[]}]`,
		`NaN`, `-Infinity`, `1e309`, `-1e309`, `[1e-400,-0,0e0,-0e-0,-0.0e1]`, `1.7976931348623157e308`, `4.9e-324`,
		`123456789012345678901234567890`, `-000`, `0x10`, `1_000`, `[.1]`, `[1.]`, `["\t"]`, "[\"\t\"]",
		"\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xc0\xaf\"", "{\"\xff\":1,\"\ufffd\":2}",
		"\ufeff{}", "{}\x00", `{"a":[}]}`, `[[[[]]]`, `{"a" : 1 , "b" :[ ] }`,
	} {
		sameAsJSONParse(t, vm, text)
	}
	if _, err := jsonToValue(vm, []byte(strings.Repeat(`{"a":[`, 500_000)+"1"+strings.Repeat("]}", 500_000))); err == nil || !strings.Contains(err.Error(), "levels deep") {
		t.Errorf("a million levels: %v, want the depth bound", err)
	}
}
