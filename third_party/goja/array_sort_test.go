package goja

// Tests of the faster Array.prototype.sort (array_sort.go, PATCHES.md).

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

// sortTestValues makes arrays of the kinds programs sort.
const sortTestValues = `
function rng(seed) { let x = seed; return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648; }
function arrays(seed) {
  const r = rng(seed), n = 1 + Math.floor(r() * 300);
  const ints = [], floats = [], mixed = [], objs = [], strs = [];
  for (let i = 0; i < n; i++) {
    const k = Math.floor(r() * 50) - 25;
    ints.push(k);
    floats.push(r() < 0.1 ? -0 : r() < 0.1 ? 0 : k / 7);
    mixed.push(r() < 0.2 ? undefined : r() < 0.2 ? "s" + k : r() < 0.1 ? null : k);
    objs.push({ n: k, id: i });
    strs.push("k" + k + (r() < 0.3 ? "é" : ""));
  }
  const holes = ints.slice(); holes.length += 5; holes[n + 2] = 1; delete holes[0];
  const inherited = objs.map((o) => Object.create({ n: o.n }));
  const wrongType = objs.map((o, i) => (i % 3 ? o : { n: String(o.n), id: o.id }));
  return { ints, floats, mixed, objs, strs, holes, inherited, wrongType };
}
const comparators = {
  "a - b": (a, b) => a - b,
  "b - a": (a, b) => b - a,
  "function a - b": function (a, b) { return a - b; },
  "a.n - b.n": (a, b) => a.n - b.n,
  "b.n - a.n": (a, b) => b.n - a.n,
  "a.n - b.n || b.id - a.id": (a, b) => a.n - b.n || b.id - a.id,
  "by string": (a, b) => String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0,
  "none": undefined,
};
`

// referenceSort sorts a copy of arr as upstream does (sort.Stable over the
// sortable interface) and returns it.
func referenceSort(vm *Runtime, arr *Object, compare Value) *Object {
	cp := vm.newArrayValues(append([]Value(nil), arr.self.(*arrayObject).values...))
	ctx := arraySortCtx{obj: cp.self}
	if c, ok := compare.(*Object); ok {
		ctx.compare, _ = c.self.assertCallable()
	}
	sort.Stable(&ctx)
	return cp
}

// TestSortSameOrderAsUpstream sorts many arrays with many comparators and
// checks each result against upstream's sort of the same values.
func TestSortSameOrderAsUpstream(t *testing.T) {
	vm := New()
	if _, err := vm.RunString(sortTestValues); err != nil {
		t.Fatal(err)
	}
	arraysFn, _ := AssertFunction(vm.Get("arrays"))
	cmps := vm.Get("comparators").(*Object)
	describe, err := vm.RunString(`(a) => JSON.stringify(Array.from(a, (v, i) => i in a ? (v === undefined ? "undef" : Object.is(v, -0) ? "-0" : v) : "hole"))`)
	if err != nil {
		t.Fatal(err)
	}
	describeFn, _ := AssertFunction(describe)
	sortFn, err := vm.RunString(`(a, c) => a.sort(c)`)
	if err != nil {
		t.Fatal(err)
	}
	doSort, _ := AssertFunction(sortFn)
	checked := 0
	for seed := 1; seed <= 40; seed++ {
		set, err := arraysFn(nil, vm.ToValue(seed))
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range set.(*Object).Keys() {
			for _, name := range cmps.Keys() {
				if kind == "mixed" && name != "none" && name != "by string" {
					continue // strings minus numbers: NaN, a comparator that is not consistent
				}
				arr := set.(*Object).Get(kind).(*Object)
				c := cmps.Get(name)
				if c == nil {
					c = _undefined
				}
				want := referenceSort(vm, arr, c)
				cp := vm.newArrayValues(append([]Value(nil), arr.self.(*arrayObject).values...))
				got, err := doSort(nil, cp, c)
				if err != nil {
					t.Fatal(err)
				}
				g, _ := describeFn(nil, got)
				w, _ := describeFn(nil, want)
				if g.String() != w.String() {
					t.Fatalf("seed %d, %s sorted by %s:\n got %s\nwant %s", seed, kind, name, g, w)
				}
				checked++
			}
		}
	}
	t.Logf("%d sorts checked", checked)
}

// TestSortRunsProgramCode: a comparator of the recognized shape still runs
// getters and Proxy traps, and sees a value whose valueOf is a program's.
func TestSortRunsProgramCode(t *testing.T) {
	testScript(`
		let gets = 0, traps = 0, valueOfs = 0;
		const a = [3, 1, 2].map((n) => ({ get n() { gets++; return n; } }));
		a.sort((x, y) => x.n - y.n);
		const p = [3, 1, 2].map((n) => new Proxy({ n }, { get(t, k) { traps++; return t[k]; } }));
		p.sort((x, y) => x.n - y.n);
		const v = [3, 1, 2].map((n) => ({ valueOf() { valueOfs++; return n; } }));
		v.sort((x, y) => x - y);
		const ok = a.map((o) => o.n).join() === "1,2,3" && p.map((o) => o.n).join() === "1,2,3" && v.map(Number).join() === "1,2,3";
		ok && gets > 0 && traps > 0 && valueOfs > 0;
	`, valueTrue, t)
}

// TestSortComparatorThrows leaves the array as it was.
func TestSortComparatorThrows(t *testing.T) {
	testScript(`
		const a = [5, 4, 3, 2, 1, 0, 9, 8, 7, 6, 10, 11, 12, 13];
		let n = 0;
		try { a.sort((x, y) => { if (++n === 20) throw new Error("stop"); return x - y; }); } catch (e) {}
		a.join() === "5,4,3,2,1,0,9,8,7,6,10,11,12,13";
	`, valueTrue, t)
}

// TestSortFewerComparisons: the merge sort calls the comparator fewer
// times than upstream's sort.Stable on the same data.
func TestSortFewerComparisons(t *testing.T) {
	vm := New()
	rng := rand.New(rand.NewSource(1))
	vals := make([]string, 20000)
	for i := range vals {
		vals[i] = fmt.Sprint(rng.Intn(1 << 30))
	}
	if _, err := vm.RunString(`var calls = 0; var cmp = (a, b) => { calls++; return a - b; }; var data = [` + strings.Join(vals, ",") + `];`); err != nil {
		t.Fatal(err)
	}
	referenceSort(vm, vm.Get("data").(*Object), vm.Get("cmp"))
	upstream := vm.Get("calls").ToInteger()
	v, err := vm.RunString(`calls = 0; const s = data.slice().sort(cmp); for (let i = 1; i < s.length; i++) if (s[i - 1] > s[i]) throw new Error("not sorted"); calls`)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.ToInteger(); got >= upstream*85/100 {
		t.Fatalf("%d comparisons, upstream %d: want at least 15%% fewer", got, upstream)
	}
	t.Logf("%d comparisons, upstream %d", v.ToInteger(), upstream)
}

// TestSortNumericComparatorCallsNothing: sorting 200,000 numbers or rows
// by a number with (a, b) => a - b (or a.n - b.n) allocates about the
// copy of the array, not two values per comparison.
func TestSortNumericComparatorCallsNothing(t *testing.T) {
	vm := New()
	if _, err := vm.RunString(`var nums = [], rows = []; let x = 7;
		for (let i = 0; i < 200000; i++) { x = (x * 1103515245 + 12345) % 2147483648; nums.push(x); rows.push({ amount: x / 100 }); }`); err != nil {
		t.Fatal(err)
	}
	runWithAllocBudget(t, vm, `nums.sort((a, b) => b - a); rows.sort((p, q) => p.amount - q.amount);
		if (nums[0] < nums[1] || rows[0].amount > rows[1].amount) throw new Error("not sorted");`, 64<<20)
}
