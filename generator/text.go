package generator

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// jsQuote returns s as a double-quoted string literal that is valid both in
// JavaScript/TypeScript and in JSON: quotes, backslashes, control and format
// characters, U+2028/U+2029 and invalid UTF-8 are escaped, so no input can
// end the literal or the line.
func jsQuote(s string) string {
	var sb strings.Builder
	sb.Grow(len(s) + 2)
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteString(`\ufffd`)
		case r == '"':
			sb.WriteString(`\"`)
		case r == '\\':
			sb.WriteString(`\\`)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case needsEscape(r):
			writeUnicodeEscape(&sb, r)
		default:
			sb.WriteRune(r)
		}
	}
	sb.WriteByte('"')
	return sb.String()
}

// needsEscape reports whether r must not appear raw in generated text:
// control characters, line and paragraph separators, and invisible format
// characters (bidi overrides, BOM) that could hide what code does.
func needsEscape(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r) ||
		(r >= 0xd800 && r <= 0xdfff)
}

func writeUnicodeEscape(sb *strings.Builder, r rune) {
	if r > 0xffff {
		r1, r2 := utf16Surrogates(r)
		fmt.Fprintf(sb, `\u%04x\u%04x`, r1, r2)
		return
	}
	fmt.Fprintf(sb, `\u%04x`, r)
}

func utf16Surrogates(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// commentLines turns untrusted text into lines that are safe inside a /** */
// block or after "// ": line breaks of every kind (including U+2028/U+2029)
// split lines, "*/" cannot close the comment, control and format characters
// are shown escaped, and a line starting with "@" is escaped to "\@" so the
// text cannot inject JSDoc tags or @ts-ignore / @ts-nocheck directives.
// Trailing blank lines are dropped.
func commentLines(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var lines []string
	var sb strings.Builder
	flush := func() {
		line := strings.TrimRight(sb.String(), " \t")
		if trimmed := strings.TrimLeft(line, " \t"); strings.HasPrefix(trimmed, "@") {
			line = line[:len(line)-len(trimmed)] + `\` + trimmed
		}
		lines = append(lines, line)
		sb.Reset()
	}
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteRune(utf8.RuneError)
		case r == '\n' || r == '\r' || r == 0x2028 || r == 0x2029:
			flush()
		case r == '\t':
			sb.WriteByte('\t')
		case r == '/' && strings.HasSuffix(sb.String(), "*"):
			sb.WriteString(`\/`)
		case needsEscape(r):
			writeUnicodeEscape(&sb, r)
		default:
			sb.WriteRune(r)
		}
	}
	flush()
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// oneLine returns text as a single safe comment line cut to about max
// runes ("…" marks a cut).
func oneLine(text string, max int) string {
	lines := commentLines(text)
	var parts []string
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	joined := strings.Join(parts, " ")
	// Re-run the sanitizer: joining may have put "@" or "*/" together again.
	joined = strings.Join(commentLines(joined), " ")
	return cutRunes(joined, max)
}

// firstSentence returns the first sentence (or first line) of text as one
// safe comment line of at most about max runes.
func firstSentence(text string, max int) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexAny(text, "\n\r\u2028\u2029"); i >= 0 {
		text = text[:i]
	}
	for i := 0; i+1 < len(text); i++ {
		if (text[i] == '.' || text[i] == '!' || text[i] == '?') && (text[i+1] == ' ' || text[i+1] == '\t') {
			text = text[:i+1]
			break
		}
	}
	return oneLine(text, max)
}

// cutRunes cuts s to at most max runes, ending with "…" when it cut.
func cutRunes(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max-1 {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// cutBytes cuts s to at most max bytes on a rune boundary.
func cutBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}

// plainLine returns untrusted text as one line of plain text for a Markdown
// list item, cut to about max runes: line breaks and runs of spaces become
// one space, control and invisible format characters are shown as \uXXXX,
// and nothing is escaped for Markdown (an agent would copy a "\@" or "\_"
// literally). Leading "#" are dropped: a description copied from a
// Markdown heading reads better without them.
func plainLine(text string, max int) string {
	var sb strings.Builder
	space := false
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteRune(utf8.RuneError)
		case unicode.IsSpace(r) && !needsEscape(r) || r == '\n' || r == '\r' || r == '\t' || r == 0x2028 || r == 0x2029:
			space = sb.Len() > 0
			continue
		case needsEscape(r):
			if space {
				sb.WriteByte(' ')
			}
			writeUnicodeEscape(&sb, r)
		default:
			if space {
				sb.WriteByte(' ')
			}
			sb.WriteRune(r)
		}
		space = false
	}
	line := strings.TrimLeft(sb.String(), "# ")
	return cutRunes(line, max)
}
