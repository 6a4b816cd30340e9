package goja

// Boxed integers without an allocation (a patch on upstream goja:
// PATCHES.md, patch 7).
//
// A valueInt in an interface value (Value) points at its 8 bytes. Go's
// conversion allocates them for every integer from 256 up (smaller ones
// point into a static table of the Go runtime), so upstream allocates at
// nearly every step of a counting loop (i++, i % n, sum += x) once the
// numbers pass 255. Here the integers below intBoxLimit point into shared
// read-only tables instead, made on first use in chunks of 1,024 (8 KB
// each, at most intBoxLimit × 8 bytes = 8 MB for the process, never
// freed), so the common integers of loops, indices, lengths and counts
// cost no allocation.

import (
	"sync/atomic"
	"unsafe"
)

const (
	intBoxChunkBits = 10
	intBoxLimit     = 1 << 20
)

var intBoxChunks [intBoxLimit >> intBoxChunkBits]atomic.Pointer[[1 << intBoxChunkBits]int64]

// valueIntTab is the type word of a valueInt in a Value interface.
var valueIntTab = func() unsafe.Pointer {
	var v Value = valueInt(1 << 30)
	return (*ifaceWords)(unsafe.Pointer(&v)).tab
}()

// boxedInt returns valueInt(i) as a Value, for 0 <= i < intBoxLimit.
func boxedInt(i int64) Value {
	slot := &intBoxChunks[i>>intBoxChunkBits]
	c := slot.Load()
	if c == nil {
		c = new([1 << intBoxChunkBits]int64)
		base := i &^ (1<<intBoxChunkBits - 1)
		for j := range c {
			c[j] = base + int64(j)
		}
		if !slot.CompareAndSwap(nil, c) {
			c = slot.Load()
		}
	}
	var v Value
	w := (*ifaceWords)(unsafe.Pointer(&v))
	w.tab, w.data = valueIntTab, unsafe.Pointer(&c[i&(1<<intBoxChunkBits-1)])
	return v
}
