package visible

import (
	"io"
	"sync"
	"unicode/utf8"
)

// Writer passes what is written to it on to another writer with every
// hidden character escaped as Text escapes it (newlines and tabs are
// kept): whatever reaches the terminal through it cannot move the cursor,
// erase a line, set the clipboard (OSC 52), reorder text or hide it. The
// CLI writes everything a person reads through one, so a command cannot
// forget to escape; a field that must stay on one line (a name in a
// table) still needs Line, for Writer keeps newlines.
//
// A character split across two writes is escaped whole: the end of a
// write that is the start of a UTF-8 sequence is held until the next write
// or Flush. Writer is safe for concurrent use.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a UTF-8 sequence cut at the end of a write
}

// NewWriter returns a Writer that escapes on its way to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write escapes p and writes it; it reports len(p) on success.
func (v *Writer) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.pending) == 0 && clean(string(p), "\n\t") {
		if _, err := v.w.Write(p); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	data := append(v.pending, p...)
	v.pending = nil
	cut := len(data) - incompleteTail(data)
	if cut < len(data) {
		v.pending = append([]byte(nil), data[cut:]...)
	}
	if cut > 0 {
		if _, err := io.WriteString(v.w, escape(string(data[:cut]), "\n\t")); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// Flush writes what a last write left of a UTF-8 sequence, as the escapes
// of its bytes.
func (v *Writer) Flush() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if len(v.pending) == 0 {
		return nil
	}
	s := escape(string(v.pending), "")
	v.pending = nil
	_, err := io.WriteString(v.w, s)
	return err
}

// incompleteTail is the length of the start of a UTF-8 sequence at the end
// of b that more bytes could complete (0 when there is none).
func incompleteTail(b []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(b); n++ {
		c := b[len(b)-n]
		if c < 0x80 {
			return 0 // ASCII: nothing pending
		}
		if utf8.RuneStart(c) {
			if utf8.FullRune(b[len(b)-n:]) {
				return 0
			}
			return n
		}
	}
	return 0
}
