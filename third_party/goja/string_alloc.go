package goja

// Short ASCII strings in one allocation (a patch on upstream goja:
// PATCHES.md, patch 6).
//
// Upstream, making a new ASCII string value costs two allocations: its
// bytes, and the string header that converting an asciiString to an
// interface (String, Value) boxes on the heap. Here the strings made most
// often (a short concatenation, a number converted to a string, a padded
// string) are made by newASCII, which puts the header and the bytes in one
// allocation with no pointers for the collector to scan: the header at the
// front, the bytes after it, and the interface's data word pointing at the
// header. The header's pointer points into the same allocation, so the
// collector never needs to follow it: whatever holds the interface, or a
// copy of the Go string taken out of it, keeps the whole allocation alive.

import (
	"strconv"
	"unsafe"
)

// ifaceWords is the layout of a non-empty interface value.
type ifaceWords struct {
	tab, data unsafe.Pointer
}

// asciiStringTab is the type word of an asciiString in a String interface.
var asciiStringTab = func() unsafe.Pointer {
	var s String = asciiString("x")
	return (*ifaceWords)(unsafe.Pointer(&s)).tab
}()

const stringHeaderSize = int(unsafe.Sizeof(""))

// newASCII returns an ASCII string value of n > 0 bytes and the bytes
// themselves, which the caller fills (only ASCII) before handing the value
// to anything else.
func newASCII(n int) (String, []byte) {
	mem := make([]byte, stringHeaderSize+n)
	b := mem[stringHeaderSize:]
	*(*string)(unsafe.Pointer(&mem[0])) = unsafe.String(&b[0], n)
	var s String
	w := (*ifaceWords)(unsafe.Pointer(&s))
	w.tab, w.data = asciiStringTab, unsafe.Pointer(&mem[0])
	return s, b
}

// concatASCII returns a + b.
func concatASCII(a, b asciiString) String {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0:
		return a
	}
	s, buf := newASCII(len(a) + len(b))
	copy(buf[copy(buf, a):], b)
	return s
}

// formatIntASCII returns the decimal form of i.
func formatIntASCII(i int64) String {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], i, 10)
	s, buf := newASCII(len(d))
	copy(buf, d)
	return s
}

// padASCII is String.prototype.padStart (start) or padEnd of s to n > len(s)
// code units with the non-empty filler.
func padASCII(s, filler asciiString, n int, start bool) String {
	v, buf := newASCII(n)
	pad := buf[:n-len(s)]
	if start {
		copy(buf[len(pad):], s)
	} else {
		copy(buf, s)
		pad = buf[len(s):]
	}
	for i := 0; i < len(pad); i += len(filler) {
		copy(pad[i:], filler)
	}
	return v
}

// joinASCII returns the concatenation of strs, asciiStrings of length
// bytes in all.
func joinASCII(strs []Value, length int) String {
	if length == 0 {
		return stringEmpty
	}
	s, buf := newASCII(length)
	n := 0
	for _, v := range strs {
		n += copy(buf[n:], v.(asciiString))
	}
	return s
}
