package goja

import (
	"fmt"
	"runtime"
	"strconv"
	"testing"
)

// Patch 6 (string_alloc.go): short ASCII strings made in one allocation.

func TestShortStringsSemantics(t *testing.T) {
	vm := New()
	for _, tt := range []struct{ expr, want string }{
		// concatenation: ASCII with ASCII, empty operands, non-ASCII
		{`"item" + "00001" + ","`, "item00001,"},
		{`"" + "abc"`, "abc"},
		{`"abc" + ""`, "abc"},
		{`"" + ""`, ""},
		{`"a" + "é"`, "aé"},
		{`"é" + "a"`, "éa"},
		{`"x" + "\ud83d" + "\ude00"`, "x😀"},
		{`"n" + 12345`, "n12345"},
		{`12345 + "n"`, "12345n"},
		{`"a" + 1.5`, "a1.5"},
		{`"a" + true + null + undefined`, "atruenullundefined"},
		{`"a" + {toString() { return "b" }, valueOf() { return "c" }}`, "ac"},
		{"`a${1}b${'c'}${''}d`", "a1bcd"},
		{"`${'é'}a${2}`", "éa2"},
		{"`${''}${''}`", ""},
		{`"ab".concat("cd", 1, "")`, "abcd1"},
		// numbers to strings
		{`String(0)`, "0"},
		{`String(-0)`, "0"},
		{`String(7)`, "7"},
		{`String(-7)`, "-7"},
		{`String(255)`, "255"},
		{`String(99999)`, "99999"},
		{`String(-123456789)`, "-123456789"},
		{`String(2 ** 53 - 1)`, "9007199254740991"},
		{`String(-(2 ** 53 - 1))`, "-9007199254740991"},
		{`String(2 ** 53)`, "9007199254740992"},
		{`String(1e21)`, "1e+21"},
		{`String(NaN)`, "NaN"},
		{`String(-Infinity)`, "-Infinity"},
		{`String(0.1 + 0.2)`, "0.30000000000000004"},
		{`(12345).toString()`, "12345"},
		{`String(100000 % 100000)`, "0"},
		{`[1, 22, 333].join("-")`, "1-22-333"},
		// padStart and padEnd
		{`"5".padStart(5, "0")`, "00005"},
		{`"12345".padStart(5, "0")`, "12345"},
		{`"123456".padStart(5, "0")`, "123456"},
		{`"5".padEnd(5, "0")`, "50000"},
		{`"abc".padStart(10, "123")`, "1231231abc"},
		{`"abc".padEnd(10, "123")`, "abc1231231"},
		{`"abc".padStart(6, "12345")`, "123abc"},
		{`"abc".padEnd(6, "12345")`, "abc123"},
		{`"abc".padStart(8)`, "     abc"},
		{`"abc".padEnd(8)`, "abc     "},
		{`"abc".padStart(8, "")`, "abc"},
		{`"abc".padStart(8, undefined)`, "     abc"},
		{`"abc".padStart(5.9, "*")`, "**abc"},
		{`"abc".padStart(NaN, "*")`, "abc"},
		{`"abc".padStart(-3, "*")`, "abc"},
		{`"".padStart(3, "ab")`, "aba"},
		{`"abc".padStart(5, 7)`, "77abc"},
		{`"abc".padStart(6, "é")`, "éééabc"},
		{`"é".padStart(3, "a")`, "aaé"},
		{`"abc".padStart(5, "\ud83d\ude00")`, "😀abc"},
		{`"abc".padStart(4, "\ud83d\ude00") === "\ud83dabc"`, "true"},
		{`"abc".padEnd(4, "\ud83d\ude00") === "abc\ud83d"`, "true"},
		{`String.prototype.padStart.call(42, 4, "0")`, "0042"},
	} {
		v, err := vm.RunString(tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got := v.String(); got != tt.want {
			t.Errorf("%s = %q, want %q", tt.expr, got, tt.want)
		}
		// A string result is === the same string made from Go.
		if _, ok := v.(String); ok {
			vm.Set("want", tt.want)
			eq, err := vm.RunString(fmt.Sprintf("(%s) === want", tt.expr))
			if err != nil || !eq.ToBoolean() {
				t.Errorf("%s is not === %q (%v)", tt.expr, tt.want, err)
			}
		}
	}
	if _, err := vm.RunString(`"a" + Symbol()`); err == nil {
		t.Error(`"a" + Symbol() did not throw`)
	}
	if _, err := vm.RunString("`${Symbol()}`"); err == nil {
		t.Error("a Symbol in a template literal did not throw")
	}
}

// TestShortStringsAsValues uses the strings made by the patched paths the
// ways strings are used: keys, switch, typeof, comparison, Go export.
func TestShortStringsAsValues(t *testing.T) {
	vm := New()
	v, err := vm.RunString(`
		const k = "ke" + "y1", n = String(12345), p = "5".padStart(3, "0"), t = ` + "`a${1}`" + `;
		const o = {}; o[k] = 1; o[n] = 2; o[p] = 3; o[t] = 4;
		const m = new Map([[k, "k"], [n, "n"], [p, "p"], [t, "t"]]);
		let sw; switch (k) { case "key1": sw = "ok"; break; default: sw = "no"; }
		[o.key1, o["12345"], o["005"], o.a1, m.get("key1"), m.get("12345"), m.get("005"), m.get("a1"), sw,
		 typeof k, k < "key2", n > "12344", Object.keys(o).join(","), k.length, n.charCodeAt(0), p[2]].join("|")`)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := v.String(), "1|2|3|4|k|n|p|t|ok|string|true|true|12345,key1,005,a1|4|49|5"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	for _, expr := range []string{`"ab" + "cd"`, `String(98765)`, `"1".padStart(4, "0")`, "`${'x'}y`"} {
		v, err := vm.RunString(expr)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := v.Export().(string); !ok {
			t.Errorf("%s exports %T, want string", expr, v.Export())
		}
	}
}

// TestShortStringsSurviveCollections keeps some of a great many short
// strings (as JavaScript values, and as the Go strings taken out of them)
// across collections that reuse the memory of the rest, then checks every
// byte: the header shares its allocation with the bytes, which nothing
// else points to.
func TestShortStringsSurviveCollections(t *testing.T) {
	vm := New()
	const n = 60000
	v, err := vm.RunString(fmt.Sprintf(`
		const kept = [];
		for (let i = 0; i < %d; i++) {
			const a = "item" + String(i).padStart(6, "0") + ",", b = `+"`<${i}>`"+`, c = String(i * 7);
			if (i %% 7 === 0) kept.push(a, b, c);
		}
		kept`, n))
	if err != nil {
		t.Fatal(err)
	}
	var goStrings []string
	arr := v.ToObject(vm)
	length := int(arr.Get("length").ToInteger())
	for i := 0; i < length; i++ {
		goStrings = append(goStrings, arr.Get(strconv.Itoa(i)).String())
	}
	check := func() {
		t.Helper()
		k := 0
		for i := 0; i < n; i += 7 {
			want := []string{fmt.Sprintf("item%06d,", i), fmt.Sprintf("<%d>", i), strconv.Itoa(i * 7)}
			for j, w := range want {
				if got := arr.Get(strconv.Itoa(k + j)).String(); got != w {
					t.Fatalf("kept[%d] = %q, want %q", k+j, got, w)
				}
				if goStrings[k+j] != w {
					t.Fatalf("Go string %d = %q, want %q", k+j, goStrings[k+j], w)
				}
			}
			k += 3
		}
	}
	for round := 0; round < 3; round++ {
		// Garbage of the same sizes, so that freed memory is reused.
		if _, err := vm.RunString(`for (let i = 0; i < 200000; i++) { const g = "trash" + String(i) + "!"; }`); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		check()
	}
}

// TestShortStringsOneAllocation fails on the unpatched engine, which
// makes each of these strings in two allocations (the bytes, and the
// string header boxed in the interface value).
func TestShortStringsOneAllocation(t *testing.T) {
	const n = 100000
	mallocs := func(body string) float64 {
		vm := New()
		if _, err := vm.RunString(`var s = "abcdefgh", k = 123456, x;`); err != nil {
			t.Fatal(err)
		}
		prg := MustCompile("loop", fmt.Sprintf("for (let i = 0; i < %d; i++) { %s; }", n, body), false)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := vm.RunProgram(prg); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return float64(after.Mallocs-before.Mallocs) / n
	}
	loop := mallocs("x = s")
	for _, tt := range []struct {
		body   string
		concat bool
	}{
		{`x = "item" + s`, true},
		{`x = s + ","`, true},
		{`x = String(k)`, false},
		{`x = s.padStart(12, "0")`, false},
		{`x = s.padEnd(12, "-=")`, false},
		{"x = `<${s}>`", true},
	} {
		body := tt.body
		if tt.concat && bufStringMin <= 12 { // GOJA_BUFSTRING_MIN: it is a bufString
			continue
		}
		if got := mallocs(body) - loop; got > 1.05 {
			t.Errorf("%s: %.2f allocations an iteration, want 1", body, got)
		}
	}
}
