// Package hugeheap lets a short-lived process back its Go heap with
// transparent huge pages once it knows that a large input is coming.
//
// Every 4 KiB page of heap a process touches for the first time is a page
// fault: about 13 µs each on the virtualised machine this was measured on
// (64 MB touched page by page: 16,384 faults, 214-277 ms; advised with
// MADV_HUGEPAGE: 4-6 ms). A 5 MB tool result read off a pipe and the 17 MB
// of JS values built from it are thousands of faults. The Go runtime maps
// heap memory as the heap grows, and a fresh mapping does not keep advice
// given to the address space reserved for it; so when a large input comes
// (Large), the heap is first made to map room for it (one allocation, never
// touched, collected at once) and the mappings that hold the room are
// advised; the input's values are then allocated there.
//
// Nothing is touched: the room must come from memory the heap never used,
// because an allocation that reuses memory the heap has used before is
// zeroed by the Go runtime, page by page. In a process that has done little
// before its input comes (a worker that has bundled a program) the heap is
// a few megabytes, and an allocation of the room is taken from fresh
// memory. Large only allocates, collects, reads /proc/self/maps and calls
// madvise. The resident size grows only as the heap is used, in steps of
// 2 MiB, which is why only processes that end soon should use it: a
// long-lived process would keep the larger pages.
//
// The room used to be reserved as a worker started, while it waited for
// its job; the collection that frees it cost every worker about 9 ms of
// CPU, far more than a small job takes. Now only a process that gets a
// large input pays it (about a millisecond there, against tens of
// milliseconds of page faults saved).
//
// Under THP "never" nothing changes, under "always" the advice is given
// already; on systems other than Linux, and under the race detector (whose
// shadow memory would be mapped for the whole allocation), nothing is done.
package hugeheap

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
)

// LargeBytes is the size of an input from which its caller should call
// Large.
const LargeBytes = 1 << 20

var state struct {
	// room is the heap Large reserves (0: none); limit the memory limit
	// the heap must stay far below (0: none).
	room, limit atomic.Int64
	once        sync.Once
}

// Setup says how much room Large reserves (0: none) and the memory limit
// the heap must stay far below (0: none): nothing is done when the limit
// is under four times the room, or when the heap is already above half of
// it less the room.
func Setup(room int, memoryLimit int64) {
	state.room.Store(int64(room))
	state.limit.Store(memoryLimit)
}

// Large says that an input of LargeBytes or more is about to be read: the
// first call in a process set up with room reserves it (an allocation that
// touches no memory, collected at once) and advises the mappings that hold
// it, so that the input's values are allocated on huge pages (see the
// package comment). Other calls do nothing.
func Large() {
	room := state.room.Load()
	if raceEnabled || !supported || room <= 0 {
		return
	}
	if limit := state.limit.Load(); limit > 0 {
		if limit < 4*room {
			return
		}
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 || int64(s[0].Value.Uint64())+room > limit/2 {
			return
		}
	}
	state.once.Do(func() {
		at := reserve(int(room))
		if at == 0 {
			return
		}
		// The room is garbage already (reserve keeps no reference): free
		// it, so that the input's values are allocated there.
		runtime.GC()
		advise(at, uintptr(room))
	})
}
