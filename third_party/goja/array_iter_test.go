package goja

// Tests of array iteration without result objects (array_iter.go).

import "testing"

// TestArrayIterSemantics: the fast step sees what the built-in next sees.
func TestArrayIterSemantics(t *testing.T) {
	testScript(`
		const out = [];
		const a = [1, , 3];
		for (const x of a) { out.push(x); if (out.length === 1) a.push(4); }
		const b = [1, 2, 3, 4];
		for (const x of b) { out.push(x); b.length = 2; }
		let gets = 0;
		const c = [0, 0]; Object.defineProperty(c, 1, { get() { gets++; return 7; } });
		out.push(...c);
		let traps = 0;
		const p = new Proxy([5, 6], { get(t, k) { traps++; return t[k]; } });
		out.push(...p);
		for (const [i, v] of ["x", "y"].entries()) out.push(i + v);
		out.push(...[9, 8].keys(), ...new Uint8Array([2, 3]));
		let threw = "";
		const d = [1]; Object.defineProperty(d, 0, { get() { throw new Error("boom"); } });
		try { for (const x of d) {} } catch (e) { threw = e.message; }
		const [first, ...rest] = [10, 20, 30];
		out.push(first, rest.length, Array.from([40, 50]).join("+"));
		out.join() + "|" + gets + "|" + (traps > 0) + "|" + threw;
	`, asciiString("1,,3,4,1,2,0,7,5,6,0x,1y,0,1,2,3,10,2,40+50|1|true|boom"), t)
}

// TestArrayIterReplacedNextIsCalled: a program that replaces the built-in
// next (or the iterator method) gets its own.
func TestArrayIterReplacedNextIsCalled(t *testing.T) {
	testScript(`
		const out = [];
		const proto = Object.getPrototypeOf([][Symbol.iterator]());
		const next = proto.next;
		let calls = 0;
		proto.next = function () { calls++; return next.call(this); };
		for (const x of [1, 2]) out.push(x);
		proto.next = next;
		const saved = Array.prototype[Symbol.iterator];
		Array.prototype[Symbol.iterator] = function* () { yield "own"; };
		for (const x of [1, 2]) out.push(x);
		Array.prototype[Symbol.iterator] = saved;
		for (const x of [3]) out.push(x);
		out.join() + "|" + calls;
	`, asciiString("1,2,own,3|3"), t)
}

// TestArrayIterAllocatesNoResults: a for…of over 300,000 elements makes no
// result object per element (upstream makes one each).
func TestArrayIterAllocatesNoResults(t *testing.T) {
	vm := New()
	if _, err := vm.RunString(`var big = Array.from({ length: 300000 }, (_, i) => i);`); err != nil {
		t.Fatal(err)
	}
	v := runWithAllocBudget(t, vm, `let s = 0; for (const x of big) s += x; s`, 40<<20)
	if v.ToInteger() != 299999*300000/2 {
		t.Fatalf("sum %v", v)
	}
}
