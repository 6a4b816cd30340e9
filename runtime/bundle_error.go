package runtime

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
)

// Error shows every diagnostic as file:line:col, the message, and the source
// line with a caret under the position.
func (e *BundleError) Error() string {
	var b strings.Builder
	for i, d := range e.Diagnostics {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

// String renders one diagnostic.
func (d Diagnostic) String() string {
	var b strings.Builder
	switch {
	case d.File != "" && d.Line > 0:
		fmt.Fprintf(&b, "%s:%d:%d: ", d.File, d.Line, d.Column)
	case d.File != "":
		b.WriteString(d.File + ": ")
	}
	b.WriteString(d.Text)
	if d.LineText != "" && d.Line > 0 {
		b.WriteString("\n    ")
		b.WriteString(d.LineText)
		b.WriteString("\n    ")
		b.WriteString(caretPad(d.LineText, d.Column))
		b.WriteByte('^')
	}
	return b.String()
}

// caretPad returns the indentation that puts a caret under the 1-based
// character column of line, keeping tabs so the caret lines up.
func caretPad(line string, column int) string {
	var b strings.Builder
	n := 0
	for _, r := range line {
		if n >= column-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		n++
	}
	return b.String()
}

// byteColumnToChars converts esbuild's 0-based byte column to a 1-based
// character column.
func byteColumnToChars(line string, byteCol int) int {
	if byteCol > len(line) {
		byteCol = len(line)
	}
	if byteCol < 0 {
		byteCol = 0
	}
	return utf8.RuneCountInString(line[:byteCol]) + 1
}

// maxLineText bounds the source line a diagnostic shows: a minified or
// generated line can be megabytes long.
const maxLineText = 240

// bundleErrorf is a BundleError with one diagnostic without a position.
func bundleErrorf(file, format string, args ...any) *BundleError {
	return &BundleError{Diagnostics: []Diagnostic{{File: file, Text: fmt.Sprintf(format, args...)}}}
}

// diagnostics converts esbuild's messages.
func (b *build) diagnostics(msgs []api.Message) *BundleError {
	be := &BundleError{}
	for _, m := range msgs {
		d := Diagnostic{Text: m.Text}
		if l := m.Location; l != nil {
			d.File = l.File
			if l.Namespace != "" && !strings.Contains(d.File, ":") {
				d.File = l.Namespace + ":" + d.File
			}
			d.File = b.sourceName(d.File)
			d.Line = l.Line
			d.LineText = l.LineText
			d.Column = byteColumnToChars(l.LineText, l.Column)
			if len(d.LineText) > maxLineText {
				d.LineText = ""
			}
		}
		be.Diagnostics = append(be.Diagnostics, d)
	}
	return be
}

// compileDiagnostics maps a goja parse or compile error of the bundle back
// to the program's sources.
func compileDiagnostics(err error, sm *sourceMap, rename func(string) string) *BundleError {
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		be := &BundleError{}
		for _, e := range list {
			d := Diagnostic{Text: "the bundled program cannot be compiled: " + e.Message}
			// The wrapper adds one line before esbuild's output.
			if src, line, col, ok := sm.lookup(e.Position.Line-2, e.Position.Column-1); ok {
				d.File, d.Line, d.Column = rename(src), line, col
			}
			be.Diagnostics = append(be.Diagnostics, d)
		}
		return be
	}
	return bundleErrorf("", "the bundled program cannot be compiled: %v", err)
}
