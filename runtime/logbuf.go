package runtime

import (
	"sync"
	"unicode/utf8"
)

// logBuffer keeps at most max characters of console output and counts what
// it drops; every entry counts as at least one character, so that a flood
// of empty lines is capped too. It is written on the VM goroutine and read
// when the run ends (possibly from another goroutine, hence the lock).
type logBuffer struct {
	mu      sync.Mutex
	max     int
	used    int
	omitted int
	entries []LogEntry
}

// add appends one entry, cut to the remaining budget; dropped is a number
// of characters the formatter already left out.
func (b *logBuffer) add(level, text string, dropped int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.omitted += dropped
	n := max(utf8.RuneCountInString(text), 1)
	room := b.max - b.used
	if n <= room {
		b.used += n
		b.entries = append(b.entries, LogEntry{Level: level, Text: text})
		return
	}
	if room > 0 {
		b.entries = append(b.entries, LogEntry{Level: level, Text: prefixRunes(text, room)})
		b.used += room
	}
	b.omitted += n - max(room, 0)
}

// room is the number of characters that can still be kept.
func (b *logBuffer) room() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.max - b.used
}

// snapshot returns the entries, with a final marker when output was cut.
func (b *logBuffer) snapshot(l Limits) ([]LogEntry, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]LogEntry, len(b.entries), len(b.entries)+1)
	copy(out, b.entries)
	if b.omitted > 0 {
		out = append(out, LogEntry{Level: "warn", Text: l.omittedMessage(b.omitted)})
	}
	return out, b.omitted
}

// prefixRunes returns the first n characters of s.
func prefixRunes(s string, n int) string {
	i := 0
	for n > 0 && i < len(s) {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n--
	}
	return s[:i]
}
