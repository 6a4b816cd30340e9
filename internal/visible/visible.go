// Package visible makes text that came from a program or a server safe to
// print: every control and format character is shown as an escape instead
// of acting on the terminal or hiding in the text. That covers ANSI escape
// sequences (ESC and the other C0 controls), DEL, the C1 controls (CSI
// among them), the bidirectional controls (U+202A-U+202E, U+2066-U+2069,
// U+200E, U+200F, U+061C), zero-width characters (U+200B-U+200D, U+2060,
// U+FEFF), the line and paragraph separators U+2028 and U+2029, tag
// characters and every other Unicode format character, the variation
// selectors (U+FE00-U+FE0F, U+E0100-U+E01EF: invisible, they can carry
// a hidden byte each), the other default-ignorable characters (U+034F,
// the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, which JavaScript
// accepts in identifiers and which show as nothing), and bytes that are
// not UTF-8.
//
// Escapes are JavaScript's (\u001b, \u202e, \u{e0001}, \r; \xff for a byte
// that is not UTF-8), so that in a program's string literals, regular
// expressions and identifiers the escape means the character it stands
// for. A program's line breaks are shown by Lines, which splits where
// JavaScript ends a line (a U+2028 inside a // comment ends the comment).
package visible

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Hidden reports whether r is shown as an escape.
func Hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// Text escapes s for printing, keeping newlines and tabs.
func Text(s string) string { return escape(s, "\n\t") }

// Line escapes s for printing on one line: newlines and tabs too.
func Line(s string) string { return escape(s, "") }

func escape(s, keep string) string {
	if clean(s, keep) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case strings.ContainsRune(keep, r) || !Hidden(r):
			b.WriteString(s[i : i+size])
		default:
			b.WriteString(runeEscape(r))
		}
		i += size
	}
	return b.String()
}

// clean reports whether s needs no escape.
func clean(s, keep string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			if c < 0x20 && strings.IndexByte(keep, c) >= 0 {
				continue
			}
			return false
		}
	}
	return true
}

// runeEscape is the JavaScript escape of r.
func runeEscape(r rune) string {
	switch r {
	case '\r':
		return `\r`
	case '\n':
		return `\n`
	case '\t':
		return `\t`
	}
	if r > 0xffff {
		return fmt.Sprintf(`\u{%x}`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// JSON escapes, in encoded JSON, every hidden character as a \u escape
// (astral ones as a surrogate pair): the JSON still decodes to the same
// values, and printed it shows them. JSON outside strings is ASCII, so
// only strings change.
func JSON(data []byte) []byte {
	if clean(string(data), "\n\t") {
		return data
	}
	var b bytes.Buffer
	b.Grow(len(data) + 16)
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == '\n' || r == '\t' || !Hidden(r) && !(r == utf8.RuneError && size == 1):
			b.Write(data[i : i+size])
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r > 0xffff:
			r1, r2 := utf16Pair(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.Bytes()
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// SourceLine is one line of a program as Lines splits it.
type SourceLine struct {
	// Text is the line, escaped.
	Text string
	// End names the line terminator that ended it when it is not a plain
	// newline: "\r\n", "\r", "U+2028", "U+2029"; "" for "\n" and the last
	// line.
	End string
	// Continued marks a piece of a long line that WrappedLines broke (not
	// the line's first piece).
	Continued bool
}

// Lines splits a program where JavaScript ends its lines (\n, \r\n, \r,
// U+2028, U+2029), each line escaped for printing. A reviewer then sees a
// line break wherever the language has one: code after a U+2028 in a //
// comment is on a line of its own, not hidden in the comment.
func Lines(src string) []SourceLine {
	out := rawLines(src)
	for i := range out {
		out[i].Text = Line(out[i].Text)
	}
	return out
}

// rawLines is Lines without the escaping.
func rawLines(src string) []SourceLine {
	var out []SourceLine
	start := 0
	for i := 0; i < len(src); {
		r, size := utf8.DecodeRuneInString(src[i:])
		end := ""
		switch r {
		case '\n':
		case '\r':
			end = `\r`
			if strings.HasPrefix(src[i+1:], "\n") {
				end, size = `\r\n`, 2
			}
		case '\u2028':
			end = "U+2028"
		case '\u2029':
			end = "U+2029"
		default:
			i += size
			continue
		}
		out = append(out, SourceLine{Text: src[start:i], End: end})
		i += size
		start = i
	}
	if start < len(src) || len(out) == 0 {
		out = append(out, SourceLine{Text: src[start:]})
	}
	return out
}
