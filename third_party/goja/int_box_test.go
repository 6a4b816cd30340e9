package goja

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// Patch 7 (int_box.go): integers below intBoxLimit boxed without an
// allocation.

func TestIntBoxSemantics(t *testing.T) {
	vm := New()
	for _, tt := range []struct{ expr, want string }{
		{`255 + 1`, "256"},
		{`let a = 1023; a++; a`, "1024"},
		{`(1 << 20) - 1 + 0`, "1048575"},
		{`(1 << 20) + 0`, "1048576"},
		{`-257 + 0`, "-257"},
		{`300 - 300`, "0"},
		{`Object.is(-300 % 300, -0)`, "true"},
		{`Object.is(600 % 300, 0)`, "true"},
		{`1000 * 1000 + 48575 === 1048575`, "true"},
		{`[5000, 5000 + 1, 5001].map(x => typeof x + x).join()`, "number5000,number5001,number5001"},
		{`new Set([70000, 69999 + 1, 70000 * 1]).size`, "1"},
		{`new Map([[4096 + 1, "a"]]).get(4097)`, "a"},
		{`Object.is(123456 + 1, 123457)`, "true"},
		{`let s = 0; for (let i = 0; i < 3000; i++) s += i; s`, "4498500"},
		{`let o = {}; o[512 + 1] = 1; Object.keys(o)[0]`, "513"},
		{`[10, 2000, 300].sort((a, b) => a - b).join()`, "10,300,2000"},
		{`(999999 + 1).toString(16)`, "f4240"},
		{`JSON.stringify([1024 + 0, 2 ** 20 - 1])`, "[1024,1048575]"},
	} {
		v, err := vm.RunString(tt.expr)
		if err != nil {
			t.Errorf("%s: %v", tt.expr, err)
			continue
		}
		if got := v.String(); got != tt.want {
			t.Errorf("%s = %s, want %s", tt.expr, got, tt.want)
		}
	}
	for _, n := range []int64{256, 1000, 1 << 19, 1<<20 - 1} {
		v, err := vm.RunString(fmt.Sprintf("%d + 0", n))
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := v.Export().(int64); !ok || got != n {
			t.Errorf("%d exports %#v", n, v.Export())
		}
		if !v.StrictEquals(valueInt(n)) || v != Value(valueInt(n)) {
			t.Errorf("%d is not equal to valueInt(%d)", n, n)
		}
	}
}

// TestIntBoxTablesShared fills the same chunks from many runtimes at once
// (run it with -race), then checks that every boxed integer handed out
// reads as itself and that the tables hold exactly their integers.
func TestIntBoxTablesShared(t *testing.T) {
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vm := New()
			// Chunks near the top of the range: first used here.
			v, err := vm.RunString(`
				const got = [];
				for (let i = 1040000; i < 1048576; i += 7) got.push(i + 0);
				let ok = true;
				for (let k = 0; k < got.length; k++) if (got[k] !== 1040000 + 7 * k) ok = false;
				ok && got.length`)
			if err != nil {
				errs <- err
				return
			}
			if v.ToInteger() != (1048576-1040000+6)/7 {
				errs <- fmt.Errorf("got %v", v)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	runtime.GC()
	for c := range intBoxChunks {
		chunk := intBoxChunks[c].Load()
		if chunk == nil {
			continue
		}
		for j, v := range chunk {
			if want := int64(c<<intBoxChunkBits + j); v != want {
				t.Fatalf("table %d slot %d holds %d, want %d", c, j, v, want)
			}
		}
	}
}

// TestIntBoxNoAllocation fails on the unpatched engine, which allocates
// each integer from 256 up that becomes a value (here the loop counter and
// the remainder: two an iteration).
func TestIntBoxNoAllocation(t *testing.T) {
	const n = 200000
	vm := New()
	prg := MustCompile("loop", fmt.Sprintf("(() => { let x; for (let i = 256; i < %d; i++) { x = i %% 100000 + 300; } return x; })()", n+256), false)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := vm.RunProgram(prg); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if got := float64(after.Mallocs-before.Mallocs) / n; got > 0.05 {
		t.Errorf("%.2f allocations an iteration, want none", got)
	}
}
