package goja

// Tests of property reads on primitive strings without the wrapper
// (patch 5, string_props.go).

import (
	"fmt"
	"runtime"
	"testing"
)

// TestStringPropsSemantics: what a primitive string's properties read as,
// through every path the patch takes (named property, "length", index) and
// those it leaves to the wrapper (indices past the end, non-integer keys);
// string methods called on other values convert them (a Symbol throws).
func TestStringPropsSemantics(t *testing.T) {
	testScript(`
		const out = [];
		const s = "abc", u = "é😀", long = "x".repeat(200) + "y";
		let built = ""; for (let i = 0; i < 300; i++) built += "ab";
		out.push(s.length, "".length, u.length, long.length, built.length, built[599], built.slice(-3));
		out.push(s[0], s[2], s[3], s[-1], s["1"], s[1.5], u[1] === "\ud83d", u[2] === "\ude00");
		out.push(s.toUpperCase(), s.padStart(5, "-"), s.constructor === String, s.hasOwnProperty("length"), s.hasOwnProperty("toString"));
		String.prototype.extra = 1;
		String.prototype[5] = "five";
		out.push(s.extra, s[5], s["5"], s.nope);
		Object.defineProperty(String.prototype, "strictThis", { get() { "use strict"; return typeof this; }, configurable: true });
		Object.defineProperty(String.prototype, "sloppyThis", { get() { return typeof this; }, configurable: true });
		out.push(s.strictThis, s.sloppyThis);
		let missing = "";
		try { s.nope(); } catch (e) { missing = e instanceof TypeError; }
		let assigned = "";
		try { (function () { "use strict"; s.length = 1; })(); } catch (e) { assigned = e instanceof TypeError; }
		let symbolThis = "";
		try { String.prototype.padStart.call(Symbol("q"), 3); } catch (e) { symbolThis = e instanceof TypeError; }
		out.push(missing, assigned, s.length, symbolThis, String.prototype.padStart.call(42, 4, "0"), String.prototype.trim.call(new String(" w ")));
		const saved = Object.getPrototypeOf(String.prototype);
		Object.setPrototypeOf(String.prototype, new Proxy({}, { get(t, k, r) { return "proxied " + String(k) + " " + typeof r; } }));
		out.push(s.zzz, s[7]);
		Object.setPrototypeOf(String.prototype, saved);
		delete String.prototype.extra; delete String.prototype[5];
		out.push(s.extra, s[5]);
		out.join("|");
	`, asciiString("3|0|3|201|600|b|bab|a|c|||b||true|true|ABC|--abc|true|true|false|1|five|five||string|object|true|true|3|true|0042|w|proxied zzz string|proxied 7 string||"), t)
}

// TestTemplateSubstitutions: a template literal converts what it
// substitutes as ToString does (thisString in _toString).
func TestTemplateSubstitutions(t *testing.T) {
	testScript("let threw = false; try { `${Symbol(\"t\")}`; } catch (e) { threw = e instanceof TypeError; }"+
		"const s = \"abc\", u = \"é\"; `${s}${u}${1}${null}${undefined}${{ toString() { return \"o\"; } }}${new String(\"w\")}|${threw}`",
		newStringValue("abcé1nullundefinedow|true"), t)
}

// TestStringPropsAllocateNoWrapper: reading a primitive string's length,
// a method, calling a method and reading a character by index allocate no
// more than the same reads on a String object (upstream boxes the string
// into the wrapper singleton at each read: 16 bytes more each time), and a
// string method does not box its this again (thisString).
func TestStringPropsAllocateNoWrapper(t *testing.T) {
	const n = 200000
	for _, tt := range []struct{ name, primitive, reference string }{
		{"length", "x = s.length", "x = o.length"},
		{"a method", "x = s.padStart", "x = o.padStart"},
		{"a method call", "x = s.padStart(1)", "x = o.padStart(1)"},
		{"an index", "x = s[i & 7]", "x = o[i & 7]"},
		// A method that returns its this: nothing more than reading
		// length; a template literal: nothing more than the same
		// concatenation with +.
		{"a method's this", "x = s.padStart(1)", "x = s.length"},
		{"a template literal", "x = `a${s}`", "x = 'a' + s"},
	} {
		perIter := func(body string) float64 {
			vm := New()
			if _, err := vm.RunString(`var s = "abcdefgh", o = new String(s), x;`); err != nil {
				t.Fatal(err)
			}
			prg := MustCompile("loop", fmt.Sprintf("for (let i = 0; i < %d; i++) { %s; }", n, body), false)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if _, err := vm.RunProgram(prg); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			return float64(after.TotalAlloc-before.TotalAlloc) / n
		}
		p, r := perIter(tt.primitive), perIter(tt.reference)
		if p > r+8 {
			t.Errorf("%s: %q allocates %.1f bytes an iteration, %q %.1f", tt.name, tt.primitive, p, tt.reference, r)
		}
	}
}
