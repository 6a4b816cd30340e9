package goja

import (
	"fmt"
	"strings"
	"testing"
)

// Patch 8 (prop_cache.go): globals and methods of primitive strings read
// through a per-runtime cache. Each script warms the cache with a loop,
// then changes the property the way its name says, and must see the
// change at once.

func TestPropCacheSeesChanges(t *testing.T) {
	for _, tt := range []struct{ name, read, change, want string }{
		{"global assigned", `String(1)`, `String = (x) => "S" + x`, "S1"},
		{"global assigned through globalThis", `String(2)`, `globalThis.String = (x) => "T" + x`, "T2"},
		{"global deleted", `Math.max(1, 2)`, `delete globalThis.Math`, "ReferenceError"},
		{"global deleted, then set again", `String(3)`, `delete globalThis.String; globalThis.String = () => "again"`, "again"},
		{"global redefined as a getter", `String(4)`, `Object.defineProperty(globalThis, "String", { get() { return () => "getter" }, configurable: true })`, "getter"},
		{"global redefined with a value", `String(5)`, `Object.defineProperty(globalThis, "String", { value: () => "defined" })`, "defined"},
		{"global redefined as a plain property", `String(5)`, `Object.defineProperty(globalThis, "String", { value: () => "plain", writable: true, enumerable: true, configurable: true })`, "plain"},
		{"method redefined as a plain property", `"h".padStart(3)`, `Object.defineProperty(String.prototype, "padStart", { value: () => "plain", writable: true, enumerable: true, configurable: true })`, "plain"},
		{"global made read-only", `typeof Math`, `Object.defineProperty(globalThis, "Math", { writable: false }); Math = 1`, "object"},
		{"global shadowed by a global lexical declaration", `String(6)`, `vm.runString("let String = () => 'lexical'")`, "lexical"},
		{"method assigned", `"b".padStart(3)`, `String.prototype.padStart = function () { return "P" + this }`, "Pb"},
		{"method deleted", `typeof "c".padStart`, `delete String.prototype.padStart`, "undefined"},
		{"method deleted, found on Object.prototype", `"d".padStart(3)`, `delete String.prototype.padStart; Object.prototype.padStart = function () { return "O" + this }`, "Od"},
		{"method redefined as a getter", `"e".padStart(3)`, `Object.defineProperty(String.prototype, "padStart", { get() { return () => "G" + typeof this } })`, "Gobject"}, // sloppy: a wrapper
		{"method getter sees a primitive this (strict)", `"f".padStart()`, `Object.defineProperty(String.prototype, "padStart", { get: function () { "use strict"; const t = typeof this; return () => t } })`, "string"},
		{"prototype frozen", `"g".padStart(3, "-")`, `Object.freeze(String.prototype); String.prototype.padStart = null`, "--g"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			vm := New()
			vm.Set("vm", map[string]any{"runString": func(s string) { vm.RunString(s) }})
			// The same instructions read the property before and after
			// the change.
			v, err := vm.RunString(`
				const read = () => { try { return "" + (` + tt.read + `) } catch (e) { return e.name } };
				for (let i = 0; i < 50; i++) read();
				const before = read();
				` + tt.change + `;
				[before, read()]`)
			if err != nil {
				t.Fatal(err)
			}
			got := v.Export().([]any)
			if got[1] != tt.want {
				t.Errorf("got %q (before the change: %q), want %q", got[1], got[0], tt.want)
			}
			if got[0] == tt.want && !strings.Contains(tt.name, "read-only") && !strings.Contains(tt.name, "frozen") {
				t.Errorf("the change made no difference: %q", got[0])
			}
		})
	}
	t.Run("many globals (collisions)", func(t *testing.T) {
		vm := New()
		v, err := vm.RunString(`let r = 0; for (let i = 0; i < 3; i++) { ` + manyGlobals(100) + ` } r`)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := v.String(), fmt.Sprint(3*100*99/2); got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	})
}

// TestPropCacheRedefinePlainValues redefines plain properties holding
// values Go cannot compare (UTF-16 strings are slices): the invalidation
// compares only property entries.
func TestPropCacheRedefinePlainValues(t *testing.T) {
	vm := New()
	v, err := vm.RunString(`
		String.prototype.x = "é"; globalThis.y = "ü";
		Object.defineProperty(String.prototype, "x", { value: "è", writable: true, enumerable: true, configurable: true });
		Object.defineProperty(globalThis, "y", { value: "ö", writable: true, enumerable: true, configurable: true });
		"".x + y`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != "èö" {
		t.Errorf("got %q", got)
	}
}

// manyGlobals defines globals g0…g(n-1) holding 0…n-1 and adds them to r.
func manyGlobals(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "globalThis.g%d ??= %d; ", i, i)
	}
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "r += g%d; ", i)
	}
	return b.String()
}

func TestPropCacheSeparateRuntimes(t *testing.T) {
	a, b := New(), New()
	if _, err := a.RunString(`for (let i = 0; i < 10; i++) String(i); String = () => "a";`); err != nil {
		t.Fatal(err)
	}
	v, err := b.RunString(`for (let i = 0; i < 10; i++) String(i); String(1)`)
	if err != nil || v.String() != "1" {
		t.Fatalf("second runtime: %v %v", v, err)
	}
	v, err = a.RunString(`String(1)`)
	if err != nil || v.String() != "a" {
		t.Fatalf("first runtime: %v %v", v, err)
	}
}

func TestPropCacheNewGlobalObject(t *testing.T) {
	vm := New()
	if _, err := vm.RunString(`for (let i = 0; i < 10; i++) Math.max(i, 1);`); err != nil {
		t.Fatal(err)
	}
	g := vm.NewObject()
	g.Set("Math", vm.ToValue(map[string]any{"max": func(a, b int) int { return -1 }}))
	vm.SetGlobalObject(g)
	v, err := vm.RunString(`Math.max(1, 2)`)
	if err != nil || v.ToInteger() != -1 {
		t.Fatalf("got %v %v, want the new global's Math", v, err)
	}
}

// TestPropCacheHolds fails on the unpatched engine: after a loop, the
// global and the string method it read are served from the cache.
func TestPropCacheHolds(t *testing.T) {
	vm := New()
	if _, err := vm.RunString(`for (let i = 0; i < 10; i++) String(i).padStart(3, "0");`); err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	c := &vm.propCache
	for _, e := range c.entries {
		if e.epoch == c.epoch && e.prop != nil {
			switch {
			case e.obj == vm.globalObject && e.name == "String":
				found["String"] = true
			case e.obj == vm.global.StringPrototype && e.name == "padStart":
				found["padStart"] = true
			}
		}
	}
	if !found["String"] || !found["padStart"] {
		t.Errorf("cached: %v, want String and padStart", found)
	}
}
