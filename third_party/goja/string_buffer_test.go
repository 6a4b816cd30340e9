package goja

// Tests of linear string concatenation (string_buffer.go, PATCHES.md).
// Each test runs its program under an allocation budget a few times the
// size of what it builds: quadratic concatenation (the unpatched engine)
// allocates far more, and the program is interrupted as soon as it has.

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
)

// GOJA_BUFSTRING_MIN=1 makes every concatenation but those with an empty
// string go through buffers: the whole suite (and tc39) then tests them.
func init() {
	if v := os.Getenv("GOJA_BUFSTRING_MIN"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			panic("GOJA_BUFSTRING_MIN: want a positive number, got " + v)
		}
		bufStringMin = n
	}
}

// allocatedBytes is what this process has allocated so far, freed or not.
func allocatedBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// runWithAllocBudget runs src in vm and fails the test if the run allocates
// more than budget bytes (it is interrupted as soon as it does).
func runWithAllocBudget(t *testing.T, vm *Runtime, src string, budget uint64) Value {
	t.Helper()
	runtime.GC()
	start := allocatedBytes()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if allocatedBytes()-start > budget {
					vm.Interrupt(fmt.Sprintf("allocated more than %d bytes", budget))
					return
				}
			}
		}
	}()
	v, err := vm.RunString(src)
	close(done)
	wg.Wait()
	used := allocatedBytes() - start
	if err != nil {
		t.Fatalf("run: %v (allocated %d bytes)", err, used)
	}
	if used > budget {
		t.Fatalf("allocated %d bytes, budget %d", used, budget)
	}
	t.Logf("allocated %d bytes (budget %d)", used, budget)
	return v
}

// TestConcatLinearShapes builds strings of about 400,000 code units in the
// shapes programs write, checks each against the same string built with
// join, and bounds what building it allocated.
func TestConcatLinearShapes(t *testing.T) {
	const n = 20000
	tests := []struct {
		name string
		loop string // builds s from pieces piece(i), i = 0 … n-1
		want string // the same with join
	}{
		{"plus-assign", `for (let i = 0; i < n; i++) s += piece(i);`, `parts.join("")`},
		{"s = s + x", `for (let i = 0; i < n; i++) s = s + piece(i);`, `parts.join("")`},
		{"s = x + s", `for (let i = 0; i < n; i++) s = piece(i) + s;`, `parts.reverse().join("")`},
		{"template", "for (let i = 0; i < n; i++) s = `${s}${piece(i)}`;", `parts.join("")`},
		{"template piece", "for (let i = 0; i < n; i++) s += `${piece(i)}`;", `parts.join("")`},
		{"both ends", `for (let i = 0; i < n; i++) s = "<" + s + piece(i);`, `"<".repeat(n) + parts.join("")`},
		{"closure", `const add = (x) => { s += x; }; for (let i = 0; i < n; i++) add(piece(i));`, `parts.join("")`},
		{"property", `const o = { s: "" }; for (let i = 0; i < n; i++) o.s += piece(i); s = o.s;`, `parts.join("")`},
		{"element", `const a = [""]; for (let i = 0; i < n; i++) a[0] += piece(i); s = a[0];`, `parts.join("")`},
		{"concat method", `for (let i = 0; i < n; i++) s = s.concat(piece(i));`, `parts.join("")`},
		{"numbers", `for (let i = 0; i < n; i++) s += i;`, `Array.from({ length: n }, (_, i) => i).join("")`},
	}
	pieces := []struct {
		name string
		fn   string
	}{
		{"ascii", `(i) => "row " + i + ";"`},
		{"unicode", `(i) => "é" + i + "—"`},
		{"ascii then unicode", `(i) => i < n / 2 ? "row " + i + ";" : "é" + i`},
		{"astral", `(i) => "\u{1F600}" + (i % 10)`},
	}
	for _, tc := range tests {
		for _, p := range pieces {
			t.Run(tc.name+"/"+p.name, func(t *testing.T) {
				vm := New()
				vm.Set("n", n)
				if _, err := vm.RunString(`var piece = ` + p.fn + `;
					var parts = []; for (let i = 0; i < n; i++) parts.push(piece(i));
					var want = ` + tc.want + `;`); err != nil {
					t.Fatal(err)
				}
				want := vm.Get("want").String()
				// Each piece is about 10 code units; a linear build allocates the
				// pieces, the string values and the buffer's growth.
				v := runWithAllocBudget(t, vm, `(() => { let s = ""; `+tc.loop+` return s; })()`, 600*n+(4<<20))
				if v.String() != want {
					t.Fatalf("built %d characters, want %d; differs at %d", len(v.String()), len(want), firstDiff(v.String(), want))
				}
				if !v.StrictEquals(vm.Get("want")) || !vm.Get("want").StrictEquals(v) {
					t.Fatal("the built string is not === the joined one")
				}
				if v.Export() != want {
					t.Fatal("Export differs")
				}
			})
		}
	}
}

func firstDiff(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// TestConcatSurrogatePairAcrossPieces splits every astral character into
// its two halves in separate concatenations, appended and prepended: the
// result must hold the character, not two lone surrogates.
func TestConcatSurrogatePairAcrossPieces(t *testing.T) {
	const n = 30000
	vm := New()
	vm.Set("n", n)
	runWithAllocBudget(t, vm, `
		var a = "", p = "";
		for (let i = 0; i < n; i++) {
			a += "\uD83D"; a += "\uDE00" + "a";
			p = "a" + p; p = "\uDE00" + p; p = "\uD83D" + p;
		}
	`, 1000*n+(4<<20))
	v, err := vm.RunString(`
		const checks = {
			length: a.length === 3 * n && p.length === 3 * n,
			same: a === "\u{1F600}a".repeat(n) && p === "\u{1F600}a".repeat(n),
			codePoint: a.codePointAt(3 * n - 3) === 0x1F600 && p.codePointAt(3) === 0x1F600,
			codePoints: Array.from(a).length === 2 * n && [...p].length === 2 * n,
			regexp: a.match(/\u{1F600}/gu).length === n && /^(\u{1F600}a)+$/u.test(p),
			json: JSON.stringify(a) === '"' + "\u{1F600}a".repeat(n) + '"',
			wellFormed: encodeURIComponent(a).length === 13 * n && encodeURIComponent(p).length === 13 * n,
		};
		const failed = Object.keys(checks).filter((k) => !checks[k]);
		if (failed.length) throw new Error("failed: " + failed.join(", "));
		[a, p];
	`)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("\U0001F600a", n)
	for _, s := range v.Export().([]interface{}) {
		if s != want {
			t.Fatalf("exported string is not %d × 😀a", n)
		}
	}
}

// TestConcatDeepChain makes a string of a million one-character
// concatenations, alternately appended and prepended, then uses it in the
// ways that read a whole string: no recursion over the million steps, and
// the same answers as for the flat string.
func TestConcatDeepChain(t *testing.T) {
	const n = 1000000
	vm := New()
	vm.Set("n", n)
	runWithAllocBudget(t, vm, `
		var s = "";
		for (let i = 0; i < n; i++) s = (i % 2 ? s + "b" : "a" + s);
	`, 100*n+(16<<20))
	v, err := vm.RunString(`
		const flat = "a".repeat(n / 2) + "b".repeat(n / 2);
		const m = new Map([[s, 1]]);
		const set = new Set([flat]);
		const o = { [s]: 2 };
		const checks = {
			equal: s === flat && s == flat && Object.is(s, flat),
			length: s.length === n,
			index: s.indexOf("ab") === n / 2 - 1 && s.lastIndexOf("a") === n / 2 - 1,
			charAt: s.charAt(n / 2) === "b" && s[0] === "a" && s.charCodeAt(n - 1) === 98,
			slice: s.slice(n / 2 - 1, n / 2 + 1) === "ab",
			regexp: /^a+b+$/.test(s),
			json: JSON.parse(JSON.stringify(s)) === flat,
			keys: m.get(flat) === 1 && set.has(s) && o[flat] === 2,
			compare: s < flat + "c" && !(s < flat),
			upper: s.toUpperCase() === flat.toUpperCase(),
			split: s.split("ab").length === 2,
			replace: s.replace(/b/g, "").length === n / 2,
		};
		const failed = Object.keys(checks).filter((k) => !checks[k]);
		if (failed.length) throw new Error("failed: " + failed.join(", "));
		s;
	`)
	if err != nil {
		t.Fatal(err)
	}
	if v.String() != strings.Repeat("a", n/2)+strings.Repeat("b", n/2) {
		t.Fatal("wrong string")
	}
}

// TestConcatForOfHugeArray builds a CSV from 300,000 rows in a for…of loop.
func TestConcatForOfHugeArray(t *testing.T) {
	vm := New()
	if _, err := vm.RunString(`var rows = Array.from({ length: 300000 }, (_, i) => ({ id: i, name: "n" + i, tag: i % 3 ? "paid" : "é" }));`); err != nil {
		t.Fatal(err)
	}
	v := runWithAllocBudget(t, vm, `
		let csv = "id,name,tag\n";
		for (const r of rows) csv += r.id + "," + r.name + "," + r.tag + "\n";
		for (const r of rows.slice(0, 10)) csv += r.name;
		csv;
	`, 1500*300000+(16<<20))
	csv := v.String()
	lines := strings.Split(csv, "\n")
	if len(lines) != 300002 || lines[1] != "0,n0,é" || lines[300000] != "299999,n299999,paid" || lines[300001] != "n0n1n2n3n4n5n6n7n8n9" {
		t.Fatalf("wrong csv: %d lines, %q … %q", len(lines), lines[1], lines[len(lines)-1])
	}
}

// TestConcatSharedPrefix checks that a string stays what it was when the
// strings made from it grow: values share a buffer, and only the newest
// value at each end of it may extend it in place.
func TestConcatSharedPrefix(t *testing.T) {
	vm := New()
	v, err := vm.RunString(`
		const base = "x".repeat(300);
		let s = base + "-";                 // a buffer
		const a = s + "a", b = s + "b";     // a extends it in place; b must copy
		const c = a + "c";                  // extends a's
		const p = "p" + s, q = "q" + s;     // front: p in place, q copies
		const u = s + "ü", v = u + "v";     // becomes wide
		const w = "ω" + u, w2 = "ψ" + u;    // wide front
		const used = u.indexOf("ü");        // a view of u
		const z = "ζ" + u;                  // after u was viewed
		JSON.stringify([s, a, b, c, p, q, u, v, w, w2, z, used].map((x) => typeof x === "string" ? x.replace(/x+/, "X") : x));
	`)
	if err != nil {
		t.Fatal(err)
	}
	want := `["X-","X-a","X-b","X-ac","pX-","qX-","X-ü","X-üv","ωX-ü","ψX-ü","ζX-ü",301]`
	if v.String() != want {
		t.Fatalf("got %s, want %s", v, want)
	}
}

// TestConcatRandomAgainstModel applies random concatenations to a few
// variables, reads some of them in between (which hands out views of the
// buffers), and compares every variable with a model kept in Go.
func TestConcatRandomAgainstModel(t *testing.T) {
	var pieces [][]uint16
	for _, p := range []string{"a", "bc", "é", "ωψ", "\U0001F600", "xyz0123456789", strings.Repeat("q", 200), ""} {
		pieces = append(pieces, utf16.Encode([]rune(p)))
	}
	pieces = append(pieces, []uint16{0xD83D}, []uint16{0xDE00}) // halves of one pair
	rng := rand.New(rand.NewSource(1))
	var src strings.Builder
	const vars = 4
	model := make([][]uint16, vars)
	src.WriteString("const P = " + jsStringArray(pieces) + ";\nlet v0 = '', v1 = '', v2 = '', v3 = '', r = 0;\n")
	for step := 0; step < 20000; step++ {
		i, j := rng.Intn(vars), rng.Intn(vars)
		k := rng.Intn(len(pieces))
		piece := pieces[k]
		switch rng.Intn(7) {
		case 0, 1:
			fmt.Fprintf(&src, "v%d += P[%d];\n", i, k)
			model[i] = append(model[i][:len(model[i]):len(model[i])], piece...)
		case 2:
			fmt.Fprintf(&src, "v%d = P[%d] + v%d;\n", i, k, i)
			model[i] = append(append([]uint16{}, piece...), model[i]...)
		case 3:
			fmt.Fprintf(&src, "v%d = v%d + P[%d];\n", i, j, k)
			model[i] = append(model[j][:len(model[j]):len(model[j])], piece...)
		case 4:
			fmt.Fprintf(&src, "v%d = v%d + v%d;\n", i, i, j)
			model[i] = append(model[i][:len(model[i]):len(model[i])], model[j]...)
		case 5:
			fmt.Fprintf(&src, "r += v%d.indexOf(P[%d]) + v%d.charCodeAt(0);\n", i, k, j)
		case 6:
			fmt.Fprintf(&src, "if (v%d.length > 5000) v%d = v%d.slice(-100);\n", i, i, i)
			if len(model[i]) > 5000 {
				model[i] = model[i][len(model[i])-100:]
			}
		}
	}
	src.WriteString("[v0, v1, v2, v3];")
	vm := New()
	v, err := vm.RunString(src.String())
	if err != nil {
		t.Fatal(err)
	}
	got := v.(*Object).self.(*arrayObject).values
	for i := range model {
		s := got[i].(String)
		if s.Length() != len(model[i]) {
			t.Fatalf("v%d: length %d, want %d", i, s.Length(), len(model[i]))
		}
		for p := range model[i] {
			if s.CharAt(p) != model[i][p] {
				t.Fatalf("v%d differs at %d", i, p)
			}
		}
		if !s.StrictEquals(StringFromUTF16(model[i])) {
			t.Fatalf("v%d is not === its model", i)
		}
	}
}

// jsStringArray writes pieces as a JavaScript array of string literals.
func jsStringArray(pieces [][]uint16) string {
	var b strings.Builder
	b.WriteString("[")
	for i, p := range pieces {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(`"`)
		for _, c := range p {
			fmt.Fprintf(&b, "\\u%04x", c)
		}
		b.WriteString(`"`)
	}
	b.WriteString("]")
	return b.String()
}

// TestConcatSharedAcrossGoroutines concatenates one string in two runtimes
// at once: string values may be passed between runtimes, and only one of
// them may extend the buffer the string ends.
func TestConcatSharedAcrossGoroutines(t *testing.T) {
	vm0 := New()
	shared, err := vm0.RunString(`let s = ""; for (let i = 0; i < 1000; i++) s += "x"; s`)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	results := make([]string, 4)
	for g := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vm := New()
			vm.Set("s", shared)
			vm.Set("c", string(rune('a'+g)))
			v, err := vm.RunString(`let r = ""; for (let i = 0; i < 200; i++) { const t = s + c; r = t; } let u = s; for (let i = 0; i < 200; i++) u += c; r + "|" + u`)
			if err != nil {
				t.Error(err)
				return
			}
			results[g] = v.String()
		}()
	}
	wg.Wait()
	x := strings.Repeat("x", 1000)
	for g, r := range results {
		c := string(rune('a' + g))
		if want := x + c + "|" + x + strings.Repeat(c, 200); r != want {
			t.Fatalf("goroutine %d: got %d characters, differs at %d", g, len(r), firstDiff(r, want))
		}
	}
}

// TestConcatViewKeepsItsBOM: a non-ASCII string read whole (here as a
// property key, which keeps the view's bytes) stays intact when more is
// prepended to it afterwards: the slot before the view holds its BOM.
func TestConcatViewKeepsItsBOM(t *testing.T) {
	testScript(`
		let u = "ü".repeat(200) + "x";   // a buffer with room at the front
		u = "é" + u;
		const o = {};
		o[u] = 1;                         // the key is a view of the buffer
		const p = "ω" + u, q = "ψ" + p;   // prepended after the view was taken
		Object.keys(o)[0] === u && o[u] === 1 && p.length === 203 && q[1] === "ω" && q.endsWith("üx");
	`, valueTrue, t)
}
