package visible

import (
	"strings"
	"unicode/utf8"
)

// Markdown. Untrusted text goes into a Markdown document (a pull request's
// comment) only as code: a code span or a fenced code block, where
// GitHub-flavoured Markdown interprets nothing (no HTML, entities, links,
// autolinks, images, @mentions, emphasis, tables or headings). It is
// escaped as for a terminal first, so that hidden characters show, and
// its delimiters are longer than any run of backticks inside, so that it
// cannot end the code early. Line breaks are escaped in a code span (a
// code span on one line cannot turn into a block), and in a code block
// every line that came from the text is at most a given width, so that
// nothing hides far to the right of a line a reviewer reads.

// CodeSpan returns s as a Markdown code span on one line: escaped as by
// Line (newlines included), between backtick runs longer than any in it.
func CodeSpan(s string) string {
	t := Line(s)
	if t == "" {
		return "` `"
	}
	delim := strings.Repeat("`", longestRun(t, '`')+1)
	// A span's content that starts or ends with a backtick needs a space
	// next to the delimiter; one space each side is stripped again, so a
	// text that starts and ends with a space gets them too.
	if t[0] == '`' || t[len(t)-1] == '`' || (t[0] == ' ' && t[len(t)-1] == ' ') {
		t = " " + t + " "
	}
	return delim + t + delim
}

// Fence returns the backtick fence of a code block holding body: at least
// three backticks, and more than the longest run of backticks anywhere in
// body, so no line of it (indented or not) can close the block.
func Fence(body string) string {
	return strings.Repeat("`", max(3, longestRun(body, '`')+1))
}

// CodeBlock returns a fenced code block holding text, escaped as by Text,
// its lines broken where they are longer than width runes (as WrapLine
// does). info is the block's language ("ts", "json", "diff", "text"): it
// must be a fixed word of the caller's, never untrusted text.
func CodeBlock(info, text string, width int) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		lines = append(lines, WrapLine(l, width, "")...)
	}
	return FencedLines(info, lines)
}

// FencedLines puts lines that are already escaped (each the output of
// this package, with the caller's own prefixes) into a fenced code block.
func FencedLines(info string, lines []string) string {
	body := strings.Join(lines, "\n")
	fence := Fence(body)
	return fence + info + "\n" + body + "\n" + fence + "\n"
}

// WrapLine escapes s as by Line and breaks it into pieces of at most width
// runes each (an escape is never split); every piece after the first
// starts with cont. A width of 0 or less does not break.
func WrapLine(s string, width int, cont string) []string {
	if width <= 0 {
		return []string{Line(s)}
	}
	var out []string
	var b strings.Builder
	n := 0
	flush := func() {
		out = append(out, b.String())
		b.Reset()
		b.WriteString(cont)
		n = utf8.RuneCountInString(cont)
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		piece := s[i : i+size]
		switch {
		case r == utf8.RuneError && size == 1:
			piece = Line(piece)
		case Hidden(r):
			piece = runeEscape(r)
		}
		w := utf8.RuneCountInString(piece)
		if n > 0 && n+w > width && b.Len() > len(cont) {
			flush()
		}
		b.WriteString(piece)
		n += w
		i += size
	}
	out = append(out, b.String())
	return out
}

// WrappedLines splits a program as Lines does and breaks each line longer
// than width runes; the pieces after a line's first are marked Continued.
func WrappedLines(src string, width int) []SourceLine {
	var out []SourceLine
	for _, l := range rawLines(src) {
		pieces := WrapLine(l.Text, width, "")
		for i, p := range pieces {
			sl := SourceLine{Text: p, Continued: i > 0}
			if i == len(pieces)-1 {
				sl.End = l.End
			}
			out = append(out, sl)
		}
	}
	return out
}

func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
