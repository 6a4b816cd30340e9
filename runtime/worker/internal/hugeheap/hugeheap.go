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
// map the room (Reserve: one allocation, collected at once), and the
// mappings that hold it are advised when a large input comes (Large).
//
// Nothing is touched, on either step: Reserve must run while the heap is
// fresh, as the process starts, because an allocation that reuses memory
// the heap has used before is zeroed by the Go runtime, page by page (a
// worker that had warmed up paid 40 ms of faults for it on every large
// result). Large only reads /proc/self/maps and calls madvise. The
// resident size grows only as the heap is used, in steps of 2 MiB, which is
// why only processes that end soon should reserve: a long-lived process
// would keep the larger pages. And the reservation sets off the process's
// first garbage collection early, about 5 ms of a fresh process's CPU: so
// a worker reserves only while it waits for its job (a worker the pool
// keeps warm), never one started for a job already on its way.
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
	once sync.Once
	// room is what Reserve reserved (0: nothing); limit the memory limit
	// the heap must stay far below (0: none).
	room, limit atomic.Int64
	// at is an address in the reserved room, or 0.
	at      atomic.Uintptr
	advised sync.Once
	// freeing is done once the reserved room is free heap again.
	freeing sync.WaitGroup
}

// Reserve makes the heap map room bytes now, without touching them, so that
// Large can advise them later. Call it first thing in a short-lived process
// that may read a large input (see the package comment). The room is
// allocated at once and collected by a garbage collection in the
// background (Settle waits for it). Only the first call does anything.
func Reserve(room int) {
	if raceEnabled || !supported || room <= 0 {
		return
	}
	state.once.Do(func() {
		at := reserve(room)
		if at == 0 {
			return
		}
		state.at.Store(at)
		state.room.Store(int64(room))
		state.freeing.Add(1)
		go func() {
			defer state.freeing.Done()
			runtime.GC()
		}()
	})
}

// Settle waits until the room Reserve allocated is free heap again, so that
// a caller that measures the heap (a memory watchdog) does not count it. It
// returns at once when nothing was reserved.
func Settle() { state.freeing.Wait() }

// Limit sets a memory limit the heap must stay far below for Large to
// advise: nothing is done when the limit is under four times the room, or
// when the heap is already above half of it less the room.
func Limit(memoryLimit int64) { state.limit.Store(memoryLimit) }

// Large says that an input of LargeBytes or more is about to be read: the
// first call in a process that reserved room advises the mappings that hold
// it (see the package comment). It touches no memory. Other calls do
// nothing.
func Large() {
	room := state.room.Load()
	if room == 0 {
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
	state.advised.Do(func() { advise(state.at.Load(), uintptr(room)) })
}
