// Package hugeheap lets a short-lived process back its Go heap with
// transparent huge pages once it knows that a large input is coming.
//
// Every 4 KiB page of heap a process touches for the first time is a page
// fault: about 13 µs each on the virtualised machine this was measured on
// (64 MB touched page by page: 16,384 faults, 214-277 ms; advised with
// MADV_HUGEPAGE: 4-6 ms). A 5 MB tool result read off a pipe and the 17 MB
// of JS values built from it are thousands of faults. The Go runtime maps
// heap memory as the heap grows, and a fresh mapping does not keep advice
// given to the address space reserved for it; so the heap is first made to
// map the room asked for (one allocation, collected at once), then the
// mappings that hold it and the heap before it are advised. Nothing is
// touched: the resident size grows only as the heap is used, in steps of 2
// MiB, which is why only processes that end soon (a worker, a one-shot
// run) should allow it: a long-lived process would keep the larger pages.
//
// Under THP "never" nothing changes, under "always" the advice is given
// already; on systems other than Linux, and under the race detector (whose
// shadow memory would be mapped for the whole allocation), nothing is done.
package hugeheap

import (
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// LargeBytes is the size of an input from which its caller should call
// Large.
const LargeBytes = 1 << 20

var state struct {
	once sync.Once
	// room is what Allow allowed (0: not allowed); limit the memory limit
	// the heap must stay far below (0: none).
	room, limit atomic.Int64
}

// Allow lets this process advise huge pages for room bytes of heap when
// Large is first called. memoryLimit, when not 0, is a bound the heap must
// stay far below: nothing is done when it is under four times room, or
// when the heap is already above half of it less room (a watchdog that
// counts the heap must not see the allocation as data).
func Allow(room int, memoryLimit int64) {
	if raceEnabled || !supported || (memoryLimit > 0 && memoryLimit < 4*int64(room)) {
		return
	}
	state.limit.Store(memoryLimit)
	state.room.Store(int64(room))
}

// Large says that an input of LargeBytes or more is about to be read: the
// first call in a process that allowed it advises the heap (see the
// package comment); it costs a garbage collection. Other calls do
// nothing.
func Large() {
	if state.room.Load() == 0 {
		return
	}
	state.once.Do(func() {
		room, limit := state.room.Load(), state.limit.Load()
		if limit > 0 {
			s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
			metrics.Read(s)
			if s[0].Value.Kind() != metrics.KindUint64 || int64(s[0].Value.Uint64())+room > limit/2 {
				return
			}
		}
		advise(int(room))
	})
}
