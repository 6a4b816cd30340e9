package goja

// Linear string concatenation (a patch on upstream goja: PATCHES.md).
//
// Upstream, every concatenation copies both operands into a new string, so
// a loop of s += piece copies s at every step: quadratic in the length, and
// a loop that builds a megabyte allocates gigabytes. Here a long result is a
// bufString: a view of a growable buffer. Concatenating onto the end of the
// newest view of a buffer (or onto the start of the view that begins it)
// writes the new piece into the buffer's spare room and returns a wider
// view; older views keep seeing exactly what they saw, because the buffer
// only ever grows outward from what has been written. When the room runs
// out, the content moves to a buffer with room proportional to it, so the
// copying is linear in the final length. Using a bufString as a flat string
// (any other operation) does not copy it: an ASCII view is a Go string over
// the buffer's bytes; a UTF-16 view is a slice of it (see pin).
//
// Unlike a rope (V8's cons strings), nothing is flattened when the result
// is used, so peak memory is the buffer (at most twice the content, 1.5
// times for large strings) rather than the pieces plus a flat copy, and
// reading the string while it is being built does not make the loop
// quadratic. The buffer is ordinary Go memory, so whatever measures the Go
// heap counts it.

import (
	"hash/maphash"
	"io"
	"reflect"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"

	"github.com/dop251/goja/unistring"
)

// bufStringMin is the length (in UTF-16 code units) from which a
// concatenation makes a bufString; shorter results stay flat, as upstream.
// A variable so that tests can run everything through buffers
// (GOJA_BUFSTRING_MIN, string_buffer_test.go).
var bufStringMin = 128

// stringBuffer holds the content of bufStrings. Exactly one of ascii and
// wide is set: ascii when every code unit of every view is below 0x80,
// wide otherwise (and then every view of it has a code unit that is not
// ASCII, the invariant of unicodeString).
type stringBuffer struct {
	ascii []byte
	wide  []uint16

	// front and back bound what has been written; every view lies within.
	// A view ending at back may extend the buffer after it, one starting at
	// front before it; each claims the room by a compare-and-swap, so of
	// two views with the same end (strings are shared between runtimes and
	// goroutines) only one extends it in place. front holds the position
	// shifted left by one, and its low bit pins the front (see pin).
	front atomic.Int64
	back  atomic.Int64

	// appended and prepended say which ends have grown, so that when the
	// content moves it gets room at the ends that are used.
	appended, prepended atomic.Bool
}

// bufString is the string in buf[start:end] (code units).
type bufString struct {
	buf        *stringBuffer
	start, end int
}

// isWideString says whether s has a code unit that is not ASCII.
func isWideString(s String) bool {
	switch s := s.(type) {
	case asciiString:
		return false
	case unicodeString:
		return true
	case *importedString:
		s.ensureScanned()
		return s.u != nil
	case *bufString:
		return s.buf.wide != nil
	}
	return true
}

// lengthAtMost is s.Length() or more, without scanning an imported string.
func lengthAtMost(s String) int {
	if i, ok := s.(*importedString); ok && !i.scanned {
		return len(i.s) // UTF-8 bytes: never fewer than UTF-16 code units
	}
	return s.Length()
}

// concatString returns a + b.
func concatString(a, b String) String {
	if a, ok := a.(asciiString); ok {
		if b, ok := b.(asciiString); ok && len(a)+len(b) < bufStringMin {
			return concatASCII(a, b) // patch 6
		}
	}
	pair := [2]String{a, b}
	if r := concatBuffered(pair[:]); r != nil {
		return r
	}
	return a.Concat(b)
}

// concatBuffered returns the concatenation of strs as a bufString, or nil
// when it is shorter than bufStringMin (the caller concatenates flat).
func concatBuffered(strs []String) String {
	if len(strs) < 2 {
		return nil
	}
	upper := 0
	for _, s := range strs {
		upper += lengthAtMost(s)
	}
	if upper < bufStringMin {
		return nil
	}
	total, wide := 0, false
	for _, s := range strs {
		total += s.Length()
		wide = wide || isWideString(s)
	}
	if total < bufStringMin {
		return nil
	}
	first, _ := strs[0].(*bufString)
	last, _ := strs[len(strs)-1].(*bufString)
	if first != nil {
		if r := first.extendBack(strs[1:], total-first.Length(), wide); r != nil {
			return r
		}
	}
	if last != nil {
		if r := last.extendFront(strs[:len(strs)-1], total-last.Length(), wide); r != nil {
			return r
		}
	}
	// Out of room (or the string is wide now). When the first string is
	// the newest at the back of its buffer, or the last one the newest at
	// the front of its own, the string grows there: its content moves to a
	// buffer with room at that end, and at the other end if that one grew
	// too. When both are, the longer is the one being built. Anything else
	// (a string made from one that is not the newest) gets an exact buffer.
	backTip := first != nil && first.end == int(first.buf.back.Load())
	frontTip := last != nil && last.start == int(last.buf.front.Load()>>1)
	if backTip && frontTip && first.Length() < last.Length() {
		backTip = false
	}
	growFront, growBack := false, false
	if backTip {
		growBack, growFront = true, first.buf.prepended.Load()
	} else if frontTip {
		growFront, growBack = true, last.buf.appended.Load()
	}
	return newBufString(strs, total, wide, growFront, growBack)
}

// concatBufferedValues is concatBuffered of strings on the VM's stack.
func concatBufferedValues(vals []Value) String {
	if len(vals) == 1 { // `${s}`: s itself
		if b, ok := vals[0].(*bufString); ok {
			return b
		}
		return nil
	}
	upper := 0
	for _, v := range vals {
		upper += lengthAtMost(v.(String))
	}
	if upper < bufStringMin {
		return nil
	}
	strs := make([]String, len(vals))
	for i, v := range vals {
		strs[i] = v.(String)
	}
	return concatBuffered(strs)
}

// room is the spare room a buffer of n code units gets at an end that grows.
func room(n int) int {
	if n < 1<<20 {
		return n
	}
	return n / 2
}

// newBufString copies strs into a new buffer, with room at the ends asked.
func newBufString(strs []String, total int, wide, growFront, growBack bool) *bufString {
	front, back := 0, 0
	if growFront {
		front = room(total)
	}
	if growBack {
		back = room(total)
	}
	b := &stringBuffer{}
	b.appended.Store(growBack)
	b.prepended.Store(growFront)
	start := front
	if wide {
		start++ // the slot of the BOM a unicodeString view begins with
		b.wide = make([]uint16, start+total+back)
		b.wide[start-1] = unistring.BOM
	} else {
		b.ascii = make([]byte, start+total+back)
	}
	b.write(start, strs)
	b.front.Store(int64(start) << 1)
	b.back.Store(int64(start + total))
	return &bufString{buf: b, start: start, end: start + total}
}

// extendBack appends strs (n code units) in place when s is the newest
// view at the end of its buffer and the buffer has room; nil otherwise.
func (s *bufString) extendBack(strs []String, n int, wide bool) *bufString {
	b := s.buf
	if wide && b.wide == nil || s.end+n > b.len() || !b.back.CompareAndSwap(int64(s.end), int64(s.end+n)) {
		return nil
	}
	b.appended.Store(true)
	b.write(s.end, strs)
	return &bufString{buf: b, start: s.start, end: s.end + n}
}

// extendFront prepends strs (n code units) in place when s is the view at
// the front of its buffer, the front is not pinned and there is room.
func (s *bufString) extendFront(strs []String, n int, wide bool) *bufString {
	b := s.buf
	start := s.start - n
	if wide && b.wide == nil || start < 0 || b.wide != nil && start < 1 ||
		!b.front.CompareAndSwap(int64(s.start)<<1, int64(start)<<1) {
		return nil
	}
	b.prepended.Store(true)
	b.write(start, strs)
	if b.wide != nil {
		b.wide[start-1] = unistring.BOM
	}
	return &bufString{buf: b, start: start, end: s.end}
}

func (b *stringBuffer) len() int {
	if b.wide != nil {
		return len(b.wide)
	}
	return len(b.ascii)
}

// write copies strs into the buffer from pos on. The room was claimed.
func (b *stringBuffer) write(pos int, strs []String) {
	for _, s := range strs {
		pos = b.writeOne(pos, s)
	}
}

func (b *stringBuffer) writeOne(pos int, s String) int {
	switch s := s.(type) {
	case asciiString:
		if b.wide == nil {
			return pos + copy(b.ascii[pos:], s)
		}
		for i := 0; i < len(s); i++ {
			b.wide[pos+i] = uint16(s[i])
		}
		return pos + len(s)
	case unicodeString:
		return pos + copy(b.wide[pos:], s[1:])
	case *importedString:
		s.ensureScanned()
		if s.u != nil {
			return b.writeOne(pos, s.u)
		}
		return b.writeOne(pos, asciiString(s.s))
	case *bufString:
		if s.buf.wide != nil {
			return pos + copy(b.wide[pos:], s.buf.wide[s.start:s.end])
		}
		if b.wide == nil {
			return pos + copy(b.ascii[pos:], s.buf.ascii[s.start:s.end])
		}
		for i, c := range s.buf.ascii[s.start:s.end] {
			b.wide[pos+i] = uint16(c)
		}
		return pos + s.end - s.start
	default:
		panic(unknownStringTypeErr(s))
	}
}

// pin makes the front of a wide buffer stay where it is if it is at start,
// so that the BOM before it stays a BOM, and says whether it did. A view
// handed out as a unicodeString begins with that slot.
func (b *stringBuffer) pin(start int) bool {
	for {
		f := b.front.Load()
		if int(f>>1) != start {
			return false
		}
		if f&1 == 1 || b.front.CompareAndSwap(f, f|1) {
			return true
		}
	}
}

// flat is s as an asciiString or unicodeString. It copies only a UTF-16
// view that does not start at the front of its buffer (something was
// prepended before it since).
func (s *bufString) flat() String {
	b := s.buf
	if b.wide == nil {
		return asciiString(unsafe.String(&b.ascii[s.start], s.end-s.start))
	}
	if b.pin(s.start) {
		return unicodeString(b.wide[s.start-1 : s.end : s.end])
	}
	u := make(unicodeString, s.end-s.start+1)
	u[0] = unistring.BOM
	copy(u[1:], b.wide[s.start:s.end])
	return u
}

func (s *bufString) Length() int {
	return s.end - s.start
}

func (s *bufString) CharAt(idx int) uint16 {
	if s.buf.wide != nil {
		return s.buf.wide[s.start+idx]
	}
	return uint16(s.buf.ascii[s.start+idx])
}

func (s *bufString) Concat(other String) String {
	return concatString(s, other)
}

func (s *bufString) Substring(start, end int) String {
	b := s.buf
	if b.wide == nil {
		return asciiString(unsafe.String(&b.ascii[s.start], s.end-s.start)[start:end])
	}
	part := b.wide[s.start+start : s.start+end]
	for _, c := range part {
		if c >= utf8.RuneSelf {
			u := make(unicodeString, len(part)+1)
			u[0] = unistring.BOM
			copy(u[1:], part)
			return u
		}
	}
	a := make([]byte, len(part))
	for i, c := range part {
		a[i] = byte(c)
	}
	return asciiString(a)
}

func (s *bufString) baseObject(r *Runtime) *Object {
	ss := r.getStringSingleton()
	ss.value = s
	ss.setLength()
	return ss.val
}

func (s *bufString) ToBoolean() bool          { return true } // never empty
func (s *bufString) toString() String         { return s }
func (s *bufString) ToString() Value          { return s }
func (s *bufString) ExportType() reflect.Type { return reflectTypeString }

// StrictEquals tells strings of other lengths apart without reading them.
func (s *bufString) StrictEquals(other Value) bool {
	if o, ok := other.(String); ok && o.Length() != s.Length() {
		return false
	}
	return s.flat().StrictEquals(other)
}

// Everything else reads the string whole, as the flat string it views.

func (s *bufString) ToInteger() int64            { return s.flat().ToInteger() }
func (s *bufString) string() unistring.String    { return s.flat().string() }
func (s *bufString) String() string              { return s.flat().String() }
func (s *bufString) ToFloat() float64            { return s.flat().ToFloat() }
func (s *bufString) ToNumber() Value             { return s.flat().ToNumber() }
func (s *bufString) ToObject(r *Runtime) *Object { return r._newString(s, r.getStringPrototype()) }
func (s *bufString) SameAs(other Value) bool     { return s.flat().SameAs(other) }
func (s *bufString) Equals(other Value) bool     { return s.flat().Equals(other) }

func (s *bufString) Export() interface{}        { return s.flat().Export() }
func (s *bufString) CompareTo(other String) int { return s.flat().CompareTo(other) }
func (s *bufString) Reader() io.RuneReader      { return s.flat().Reader() }
func (s *bufString) utf16Reader() utf16Reader   { return s.flat().utf16Reader() }
func (s *bufString) utf16RuneReader() io.RuneReader {
	return s.flat().utf16RuneReader()
}
func (s *bufString) utf16Runes() []rune                  { return s.flat().utf16Runes() }
func (s *bufString) index(sub String, start int) int     { return s.flat().index(sub, start) }
func (s *bufString) lastIndex(sub String, start int) int { return s.flat().lastIndex(sub, start) }
func (s *bufString) toLower() String                     { return s.flat().toLower() }
func (s *bufString) toUpper() String                     { return s.flat().toUpper() }
func (s *bufString) toTrimmedUTF8() string               { return s.flat().toTrimmedUTF8() }
func (s *bufString) hash(h *maphash.Hash) uint64         { return s.flat().hash(h) }
