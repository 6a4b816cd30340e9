// Package precheck checks a program's source files before esbuild parses
// them, so that the common ways to give esbuild too much to chew get a
// clear message with a position instead of a crash or a long wait: the size
// of each file, the size and number of a build's files outside the
// generated servers/ tree, and how deeply brackets nest.
//
// It is a courtesy, not the security boundary: esbuild parts recurse on the
// syntax tree and take more than linear time on some shapes of code, and
// what this check lets through is bundled inside a worker process (see
// runtime/worker), where a crash or a hang costs only that process.
package precheck

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/runtime/internal/textfmt"
)

// Limits of what a build accepts.
const (
	// MaxFileBytes bounds one program or skill file.
	MaxFileBytes = 1 << 20
	// MaxGeneratedFileBytes bounds one file of the generated servers/ tree.
	MaxGeneratedFileBytes = 16 << 20
	// MaxProgramBytes and MaxProgramFiles bound a build's files outside
	// servers/.
	MaxProgramBytes = 2 << 20
	MaxProgramFiles = 1000
	// MaxNesting bounds how deeply brackets, braces, parentheses and
	// template substitutions nest in one file.
	MaxNesting = 200
)

// Error is a problem the check found in one file.
type Error struct {
	// Offset is the byte offset in the file the problem is at, or -1 when
	// the problem is the whole file.
	Offset int
	// Message says what is wrong and what to change.
	Message string
}

func (e *Error) Error() string { return e.Message }

// NestingMessage is the message of a file whose brackets nest too deeply.
var NestingMessage = fmt.Sprintf("nesting deeper than %d levels: split the expression or the function", MaxNesting)

// Build counts the files of one build outside servers/. Its zero value is
// ready; it is safe for concurrent use (esbuild loads files concurrently).
type Build struct {
	mu    sync.Mutex
	files int
	bytes int64
}

// Admit counts a file outside servers/ of n bytes against the build's
// limits: MaxFileBytes for the file, MaxProgramFiles and MaxProgramBytes
// for the build so far. A refused file still counts.
func (b *Build) Admit(n int64) *Error {
	if n > MaxFileBytes {
		return &Error{Offset: -1, Message: fmt.Sprintf("the file is %s, over the limit of %s for program and skill files: split it into several files", textfmt.Size(n), textfmt.Bytes(MaxFileBytes))}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.files++
	b.bytes += n
	switch {
	case b.files > MaxProgramFiles:
		return &Error{Offset: -1, Message: fmt.Sprintf("the program imports more than %d files outside servers/: import fewer files", MaxProgramFiles)}
	case b.bytes > MaxProgramBytes:
		return &Error{Offset: -1, Message: fmt.Sprintf("the program's files outside servers/ total more than %s: make the program smaller", textfmt.Bytes(MaxProgramBytes))}
	}
	return nil
}

// Nesting scans src once, in linear time, and refuses it when brackets,
// braces, parentheses and template substitutions (${) nest more than
// MaxNesting deep; the Error points at the bracket that goes too deep.
//
// The scan skips strings, comments (HTML-like ones too), template text and
// regular expressions, telling a regular expression from a division by the
// token before the '/' as well as one linear pass can: it reads real code
// right, and can misread only a '/' that divides a '}' (taking it for a
// regular expression that ends on the same line) and JSX, which it does not
// understand (quotes in JSX text can hide the brackets of the rest of their
// line). Such a misreading shifts the count by what one line holds.
func Nesting(src string) *Error {
	s := &scanner{src: src, lineStart: true}
	s.run()
	return s.err
}

// prevKind is what the previous token lets follow, as far as '/' goes.
type prevKind uint8

const (
	pOperator prevKind = iota // an operand follows: '/' starts a regular expression
	pValue                    // an operator follows: '/' divides
	pBrace                    // '}': a block (then a regular expression) or an object literal
)

// frame is one open bracket.
type frame struct {
	// template marks a template substitution: its '}' resumes the
	// template's text.
	template bool
	// control marks the parenthesized head of if, for, while or with: after
	// it, '/' starts a regular expression.
	control bool
}

type scanner struct {
	src   string
	i     int
	stack []frame
	prev  prevKind
	// afterDot: the next word is a property name, not a keyword.
	afterDot bool
	// lastWord is the previous token when it was a word.
	lastWord string
	// lineStart: no token yet on this line (for the HTML-like "-->").
	lineStart bool
	err       *Error
}

func (s *scanner) run() {
	for s.err == nil && s.skipSpace() {
		lastWord := s.lastWord
		s.lastWord = ""
		s.lineStart = false
		s.token(lastWord)
	}
}

// push opens a bracket at offset at.
func (s *scanner) push(at int, f frame) {
	if len(s.stack) >= MaxNesting {
		s.err = &Error{Offset: at, Message: NestingMessage}
		return
	}
	s.stack = append(s.stack, f)
}

// pop closes the innermost bracket, whatever it is (a mismatch is a syntax
// error that esbuild reports); the zero frame when none is open.
func (s *scanner) pop() frame {
	if len(s.stack) == 0 {
		return frame{}
	}
	f := s.stack[len(s.stack)-1]
	s.stack = s.stack[:len(s.stack)-1]
	return f
}

// skipSpace skips whitespace and comments; false at the end of src.
func (s *scanner) skipSpace() bool {
	src := s.src
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\n' || c == '\r':
			s.lineStart = true
			s.i++
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			s.i++
		case c == '/' && s.at(s.i+1) == '/':
			s.lineComment()
		case c == '/' && s.at(s.i+1) == '*':
			end := strings.Index(src[s.i+2:], "*/")
			if end < 0 {
				s.i = len(src)
				return false
			}
			if strings.ContainsAny(src[s.i+2:s.i+2+end], "\n\r\u2028\u2029") {
				s.lineStart = true
			}
			s.i += end + 4
		case c == '#' && s.i == 0 && strings.HasPrefix(src, "#!"):
			s.lineComment()
		case c == '<' && strings.HasPrefix(src[s.i:], "<!--"):
			s.lineComment()
		case c == '-' && s.lineStart && strings.HasPrefix(src[s.i:], "-->"):
			s.lineComment()
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(src[s.i:])
			switch {
			case r == '\u2028' || r == '\u2029':
				s.lineStart = true
			case r == '\ufeff' || unicode.IsSpace(r):
			default:
				return true
			}
			s.i += n
		default:
			return true
		}
	}
	return false
}

// lineComment skips to the end of the line (any JavaScript line
// terminator).
func (s *scanner) lineComment() {
	src := s.src
	for s.i < len(src) {
		switch c := src[s.i]; {
		case c == '\n' || c == '\r':
			return
		case c == 0xe2 && (strings.HasPrefix(src[s.i:], "\u2028") || strings.HasPrefix(src[s.i:], "\u2029")):
			return
		}
		s.i++
	}
}

func (s *scanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

func (s *scanner) token(lastWord string) {
	src := s.src
	c := src[s.i]
	afterDot := s.afterDot
	s.afterDot = false
	switch {
	case c == '"' || c == '\'':
		s.quoted(c)
		s.prev = pValue
	case c == '`':
		s.i++
		s.templateText()
	case isDigit(c) || (c == '.' && isDigit(s.at(s.i+1))):
		s.number()
		s.prev = pValue
	case isIdentStart(c) || c == '\\' || c == '#' || c >= utf8.RuneSelf:
		s.word(afterDot)
	default:
		s.punct(lastWord)
	}
}

// quoted skips a string literal; an unterminated one ends at the line
// break (esbuild reports it).
func (s *scanner) quoted(q byte) {
	src := s.src
	s.i++
	for s.i < len(src) {
		switch src[s.i] {
		case '\\':
			s.i += 2
			if s.i <= len(src) && src[s.i-1] == '\r' && s.at(s.i) == '\n' {
				s.i++
			}
		case q:
			s.i++
			return
		case '\n', '\r':
			return
		default:
			s.i++
		}
	}
	s.i = min(s.i, len(src))
}

// templateText skips template text up to the template's end or the next
// ${, which opens a level.
func (s *scanner) templateText() {
	src := s.src
	for s.i < len(src) {
		switch src[s.i] {
		case '\\':
			s.i += 2
		case '`':
			s.i++
			s.prev = pValue
			return
		case '$':
			if s.at(s.i+1) == '{' {
				s.push(s.i, frame{template: true})
				s.i += 2
				s.prev = pOperator
				return
			}
			s.i++
		default:
			s.i++
		}
	}
	s.i = len(src)
}

func (s *scanner) number() {
	src := s.src
	hex := strings.HasPrefix(src[s.i:], "0x") || strings.HasPrefix(src[s.i:], "0X")
	for s.i < len(src) {
		c := src[s.i]
		if !isIdentPart(c) && c != '.' {
			return
		}
		if !hex && (c == 'e' || c == 'E') && (s.at(s.i+1) == '+' || s.at(s.i+1) == '-') {
			s.i++
		}
		s.i++
	}
}

// operatorKeywords are the keywords after which an operand follows, so
// that a '/' after them starts a regular expression.
var operatorKeywords = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true, "extends": true,
}

// word scans an identifier or keyword.
func (s *scanner) word(afterDot bool) {
	src := s.src
	start := s.i
	if src[s.i] == '#' {
		s.i++
	}
loop:
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\\':
			// \uXXXX or \u{X...}: the braces are part of the name.
			s.i += 2
			if s.at(s.i-1) == 'u' && s.at(s.i) == '{' {
				if end := strings.IndexByte(src[s.i:], '}'); end >= 0 {
					s.i += end + 1
				}
			}
		case c < utf8.RuneSelf:
			if !isIdentPart(c) {
				break loop
			}
			s.i++
		default:
			r, n := utf8.DecodeRuneInString(src[s.i:])
			if r == '\u2028' || r == '\u2029' || r == '\ufeff' || unicode.IsSpace(r) {
				break loop
			}
			s.i += n
		}
	}
	s.i = min(max(s.i, start+1), len(src))
	name := src[start:s.i]
	if afterDot {
		s.prev = pValue // a property name, even "if" or "return"
		return
	}
	s.lastWord = name
	if operatorKeywords[name] {
		s.prev = pOperator
		return
	}
	s.prev = pValue
}

func (s *scanner) punct(lastWord string) {
	src := s.src
	at := s.i
	c := src[at]
	s.i++
	switch c {
	case '(':
		s.push(at, frame{control: lastWord == "if" || lastWord == "for" || lastWord == "while" || lastWord == "with"})
		s.prev = pOperator
	case '[', '{':
		s.push(at, frame{})
		s.prev = pOperator
	case ')':
		if s.pop().control {
			s.prev = pOperator
		} else {
			s.prev = pValue
		}
	case ']':
		s.pop()
		s.prev = pValue
	case '}':
		if s.pop().template {
			s.templateText()
			return
		}
		s.prev = pBrace
	case '.':
		if strings.HasPrefix(src[at:], "...") {
			s.i = at + 3
			s.prev = pOperator
			return
		}
		s.afterDot = true
		s.prev = pOperator
	case '?':
		if s.at(s.i) == '.' && !isDigit(s.at(s.i+1)) {
			s.i++
			s.afterDot = true
		}
		s.prev = pOperator
	case '+', '-':
		if s.at(s.i) == c {
			s.i++ // ++ and -- leave an operand an operand
			return
		}
		s.prev = pOperator
	case '/':
		if s.prev == pValue {
			s.prev = pOperator // a division
			return
		}
		if end := s.regexpEnd(at); end >= 0 {
			s.i = end
			s.prev = pValue
			return
		}
		s.prev = pOperator // no regular expression ends on this line: a division
	default:
		s.prev = pOperator
	}
}

// regexpEnd returns the end of the regular expression (with its flags)
// starting at at, or -1 when none ends on this line.
func (s *scanner) regexpEnd(at int) int {
	src := s.src
	i := at + 1
	inClass := false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') {
				return -1
			}
			i += 2
			continue
		case c == '\n' || c == '\r':
			return -1
		case c == 0xe2 && (strings.HasPrefix(src[i:], "\u2028") || strings.HasPrefix(src[i:], "\u2029")):
			return -1
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			i++
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			return i
		}
		i++
	}
	return -1
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }
