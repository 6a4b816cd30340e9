package runtime

import (
	"fmt"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// esbuild runs in the caller's process, and parts of it recurse on the
// syntax tree (a Go stack overflow kills the process: it cannot be
// recovered) or take quadratic or cubic time on some shapes of code. Bundle
// therefore checks every source file before esbuild sees it, with one linear
// scan of its tokens: the file's size, how deeply its code nests, and an
// estimate of the work that the shapes esbuild (and goja, which compiles the
// bundle) handle badly would cost. The scan errs on the side of counting too
// much; where it cannot tell how esbuild will read a '/' or a '<' in a way
// that matters, it refuses the file and says how to make it unambiguous.

// Limits of what Bundle accepts.
const (
	// maxSourceFileBytes bounds one program or skill file.
	maxSourceFileBytes = 1 << 20
	// maxGeneratedFileBytes bounds one file of the generated servers/ tree.
	maxGeneratedFileBytes = 16 << 20
	// maxProgramBytes and maxProgramFiles bound a build's files outside
	// servers/.
	maxProgramBytes = 2 << 20
	maxProgramFiles = 1000
	// maxNesting bounds brackets, braces, template substitutions, JSX
	// elements, and the operators and statements that nest without them
	// (arrow functions, assignments, conditionals, prefix operators, if,
	// for, while, labels, ...), counted together.
	maxNesting = 200
	// maxChain bounds the depth of one expression including its chains of
	// calls, property accesses and binary operators.
	maxChain = 1000
	// maxDistinctNames bounds the identifiers the renaming estimate tracks.
	maxDistinctNames = 500_000
)

// The work estimates, summed over a build's files outside servers/.
const (
	// workRename estimates esbuild's renaming of nested-scope symbols:
	// for each name, the scopes it may collide with times the numbered
	// names (x2, x3, ...) it may have to try.
	workRename = iota
	// workChain estimates the quadratic handling of long operator and
	// comma chains (goja's compiler, esbuild's printer).
	workChain
	// workFold estimates esbuild's folding of string literals joined
	// with +, in bytes copied.
	workFold
	// workAngle estimates the TypeScript parser's backtracking over '<'.
	workAngle
	// workDeep estimates the cost of deep nesting repeated many times:
	// the nesting at each place that may start an indented line of output,
	// and at each level entered (esbuild handles some nested operators,
	// such as chains of '!', in quadratic time).
	workDeep
	// workCases estimates esbuild's check for duplicate cases, quadratic
	// in the cases of one switch.
	workCases
	numWork
)

// workBudget is, per estimate, what a build may cost: each is calibrated to
// a few hundred milliseconds at worst on a small machine, far beyond what
// real programs reach.
var workBudget = [numWork]int64{
	workRename: 15_000_000,
	workChain:  25_000_000,
	workFold:   100_000_000,
	workAngle:  1_000_000,
	workDeep:   6_000_000,
	workCases:  300_000_000,
}

var workMessage = [numWork]string{
	workRename: "too costly to bundle: names declared in deeply nested functions or blocks collide with many similar names (x, x2, x3, ...), which makes renaming them slow: flatten the nesting or rename the numbered variables",
	workChain:  "too costly to bundle: expressions chain too many operators or commas: split them into several statements, or build the value in a loop",
	workFold:   "too costly to bundle: too many string literals are joined with +: write the text as one literal, or join an array",
	workAngle:  "too costly to bundle: too many '<' in one expression: add parentheses or split the expression",
	workDeep:   "too costly to bundle: too much code is nested deeply: move nested code into functions at the top level",
	workCases:  "too costly to bundle: a switch has too many cases: look the values up in an object or a Map instead",
}

// sourceCheck is the pre-check state of one build, shared by esbuild's
// concurrent load callbacks.
type sourceCheck struct {
	mu    sync.Mutex
	files int
	bytes int64
	work  [numWork]int64
	// names maps every identifier seen to the sum of (1 + scope depth)
	// over its occurrences.
	names map[string]int64
	// numbered counts, per prefix p, the distinct identifiers p<N> (N ≥ 2,
	// the names esbuild's renamer tries for p).
	numbered map[string]int64
}

func newSourceCheck() *sourceCheck {
	return &sourceCheck{names: map[string]int64{}, numbered: map[string]int64{}}
}

// checkError is a problem the pre-check found; off is the byte offset it
// points at, or -1 for the whole file.
type checkError struct {
	off int
	msg string
}

// admit counts a file outside servers/ of n bytes against the build's
// limits.
func (c *sourceCheck) admit(n int64) *checkError {
	if n > maxSourceFileBytes {
		return &checkError{off: -1, msg: fmt.Sprintf("the file is %s, over the limit of %s for program and skill files: split it into several files", sizeText(n), formatBytes(maxSourceFileBytes))}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files++
	c.bytes += n
	switch {
	case c.files > maxProgramFiles:
		return &checkError{off: -1, msg: fmt.Sprintf("the program imports more than %d files outside servers/: import fewer files", maxProgramFiles)}
	case c.bytes > maxProgramBytes:
		return &checkError{off: -1, msg: fmt.Sprintf("the program's files outside servers/ total more than %s: make the program smaller", formatBytes(maxProgramBytes))}
	}
	return nil
}

// sizeText renders a file size for a message.
func sizeText(n int64) string {
	if n >= mib {
		return fmt.Sprintf("%.1f MiB", float64(n)/mib)
	}
	return fmt.Sprintf("%d bytes", n)
}

// scan checks one file's source. Generated files (servers/) are checked
// for nesting only: their shape is the generator's, and they do not count
// against the work budgets.
func (c *sourceCheck) scan(src string, jsx, ts, generated bool) *checkError {
	s := &srcScanner{src: src, jsx: jsx, ts: ts, budgets: !generated, newline: true}
	s.stack = append(s.stack, frame{kind: fRoot})
	if s.budgets {
		s.names = map[string]*nameStat{}
		c.mu.Lock()
		s.base = c.work
		c.mu.Unlock()
	}
	s.run()
	if s.err != nil || !s.budgets {
		return s.err
	}
	return c.merge(s)
}

// merge adds a scanned file's work to the build's and checks the budgets.
func (c *sourceCheck) merge(s *srcScanner) *checkError {
	c.mu.Lock()
	defer c.mu.Unlock()
	var fresh []string
	for name, st := range s.names {
		w := (1+c.numbered[name])*st.s1 + st.s2
		s.work[workRename] += w
		if w > s.workMax[workRename] {
			s.workMax[workRename], s.workAt[workRename] = w, st.first
		}
		if _, seen := c.names[name]; !seen {
			fresh = append(fresh, name)
		}
		c.names[name] += st.s1
	}
	if len(c.names) > maxDistinctNames {
		return &checkError{off: -1, msg: fmt.Sprintf("the program uses more than %d distinct names: make it smaller", maxDistinctNames)}
	}
	for _, name := range fresh {
		for _, p := range numberedPrefixes(name) {
			c.numbered[p]++
			s.work[workRename] += c.names[p]
		}
	}
	for k := range c.work {
		c.work[k] += s.work[k]
		if c.work[k] > workBudget[k] {
			return &checkError{off: s.workAt[k], msg: workMessage[k]}
		}
	}
	return nil
}

// numberedPrefixes returns the prefixes p for which name is p<N>, N ≥ 2
// without a leading zero: the names esbuild's renamer generates for p.
func numberedPrefixes(name string) []string {
	end := len(name)
	start := end
	for start > 0 && name[start-1] >= '0' && name[start-1] <= '9' {
		start--
	}
	if start == end || start == 0 {
		return nil
	}
	var out []string
	for i := start; i < end; i++ {
		digits := name[i:]
		if digits[0] == '0' || digits == "1" {
			continue
		}
		out = append(out, name[:i])
	}
	return out
}

// frameKind is what an open bracket (or JSX element) is.
type frameKind uint8

const (
	fRoot     frameKind = iota
	fBlock              // { statements; a class, enum or interface body
	fObject             // { an object literal, pattern or type literal
	fCall               // ( arguments or parameters
	fGroup              // ( a parenthesized expression or arrow parameters
	fControl            // ( the head of if, for, while, with or switch
	fArray              // [ an array literal or pattern
	fIndex              // [ a computed member
	fTemplate           // ${ in a template literal
	fJSXTag             // <tag attributes>
	fJSXBody            // the children of a JSX element
	fJSXExpr            // { in JSX
)

// frame is the state of one open bracket: the expression being scanned in it.
type frame struct {
	kind frameKind
	// stmtBlock marks a block opened at the start of a statement.
	stmtBlock bool
	// right counts pending operators whose right side nests (assignments,
	// conditionals, arrows, **, yield, spread, extends) and statements that
	// nest (if, for, while, with, do, labels), up to the end of the
	// expression or statement; scopeOps is the part of them that opens a
	// scope (arrows, statements).
	right, scopeOps int
	// unary counts prefix operators on the current operand.
	unary int
	// post counts postfix operations on the current operand (calls,
	// property accesses, indexing); child is the deepest bracket closed in
	// it.
	post, child int
	// bin counts binary operators in the current expression, seq comma
	// operators; flat counts | and &, which also join TypeScript union and
	// intersection types (esbuild skips those without recursing, and
	// goja never sees them), so they count for the work budget only.
	bin, seq, flat int
	// deepest is the deepest the expressions in this frame went.
	deepest int
	// cond counts conditionals still waiting for their ':'.
	cond int
	// angle counts pending '<'.
	angle int
	// lit is the length of the current run of literals joined by +.
	lit          int64
	litRun, plus bool
	// seqUsed: the statement's commas are operators whose value is used
	// (return, throw, case); decl: its commas separate declarations.
	seqUsed, decl, caseLabel bool
	// cases counts the case clauses of a switch body.
	cases int
}

// prevKind is what the previous token lets follow: it decides whether '/'
// starts a regular expression, '<' a JSX element, '{' a block, '(' a call.
type prevKind uint8

const (
	pStmt      prevKind = iota // the start of a statement
	pOp                        // an operator: an operand follows
	pArrow                     // '=>'
	pValue                     // an operand: an operator follows
	pAmbiguous                 // '}' of a function, class or arrow body: it may have ended a statement or an operand
	pOpSlash                   // TypeScript's '>': it may have closed type arguments (then '/' divides)
)

type nameStat struct {
	s1, s2 int64
	first  int
}

// srcScanner scans one file.
type srcScanner struct {
	src     string
	i       int
	tok     int // offset of the current token
	jsx, ts bool
	budgets bool

	stack   []frame
	prev    prevKind
	newline bool // a line break since the previous token
	// afterDot: the next identifier is a property name.
	afterDot bool
	// control: the next '(' is the head of a statement (if, for, ...).
	control bool
	// afterElse: an "if" adds no nesting ("else if" chains are flat).
	afterElse bool
	// lastWord is the previous token when it was a word.
	lastWord string

	nest  int // the nesting: Σ over frames of 1 (not the root) + right + unary
	scope int // the scope depth: blocks, arrows and nesting statements

	base    [numWork]int64 // the build's work when this file's scan began
	work    [numWork]int64
	workMax [numWork]int64
	workAt  [numWork]int
	names   map[string]*nameStat

	err *checkError
}

func (s *srcScanner) top() *frame { return &s.stack[len(s.stack)-1] }

func (s *srcScanner) fail(off int, format string, args ...any) {
	if s.err == nil {
		s.err = &checkError{off: off, msg: fmt.Sprintf(format, args...)}
	}
}

func (s *srcScanner) addWork(k int, w int64) {
	if !s.budgets {
		return
	}
	s.work[k] += w
	if w > s.workMax[k] {
		s.workMax[k], s.workAt[k] = w, s.tok
	}
	if s.base[k]+s.work[k] > workBudget[k] {
		s.fail(s.tok, "%s", workMessage[k])
	}
}

// check enforces the nesting and chain limits after f changed.
func (s *srcScanner) check(f *frame) {
	if s.nest > maxNesting {
		s.fail(s.tok, "nesting deeper than %d levels: split the expression or the function", maxNesting)
		return
	}
	local := f.right + f.unary + f.post + f.child + f.bin + f.seq
	if local > f.deepest {
		f.deepest = local
	}
	if s.nest+f.post+f.child+f.bin+f.seq > maxChain {
		s.fail(s.tok, "expression nested or chained more than %d levels deep (calls, property accesses, operators): split it into several statements", maxChain)
	}
}

// endOperand ends the current operand (at a binary operator and at every
// boundary after it).
func (s *srcScanner) endOperand(f *frame) {
	s.nest -= f.unary
	f.unary, f.post, f.child = 0, 0, 0
}

// resetExpr ends the current expression: a separating comma, a semicolon,
// the end of a statement.
func (s *srcScanner) resetExpr(f *frame) {
	s.endOperand(f)
	s.nest -= f.right
	s.scope -= f.scopeOps
	f.right, f.scopeOps, f.bin, f.seq, f.flat, f.cond, f.angle = 0, 0, 0, 0, 0, 0, 0
	f.lit, f.litRun, f.plus = 0, false, false
}

func (s *srcScanner) resetStatement(f *frame) {
	s.resetExpr(f)
	f.seqUsed, f.decl, f.caseLabel = false, false, false
}

// rightOp is an operator or statement whose right side nests inside it.
func (s *srcScanner) rightOp(scope bool) {
	f := s.top()
	s.endOperand(f)
	f.bin, f.lit, f.litRun, f.plus = 0, 0, false, false
	f.right++
	s.nest++
	s.addWork(workDeep, int64(s.nest))
	if scope {
		// Arrows, nested statements and labels: a scope, and a line of
		// output.
		f.scopeOps++
		s.scope++
		s.addWork(workDeep, int64(s.nest))
	}
	s.check(f)
}

func (s *srcScanner) unaryOp() {
	f := s.top()
	f.unary++
	s.nest++
	s.addWork(workDeep, int64(s.nest))
	s.check(f)
}

func (s *srcScanner) postOp() {
	f := s.top()
	f.post++
	s.check(f)
}

func (s *srcScanner) binaryOp(plus bool) {
	f := s.top()
	s.endOperand(f)
	f.bin++
	s.addWork(workChain, int64(f.bin))
	f.plus = plus
	if !plus {
		f.lit, f.litRun = 0, false
	}
	s.check(f)
	s.prev = pOp
}

// operand records an operand; literal operands joined by + are folded by
// esbuild, copying the text so far each time.
func (s *srcScanner) operand(literal bool, n int) {
	f := s.top()
	if literal {
		if f.litRun && f.plus {
			f.lit += int64(n)
			s.addWork(workFold, f.lit)
		} else {
			f.lit = int64(n)
		}
		f.litRun = true
	} else {
		f.lit, f.litRun = 0, false
	}
	f.plus = false
	s.prev = pValue
}

func (s *srcScanner) push(k frameKind, stmtBlock bool) {
	s.nest++
	s.addWork(workDeep, int64(s.nest))
	if k == fBlock {
		s.scope++
	}
	s.stack = append(s.stack, frame{kind: k, stmtBlock: stmtBlock})
	s.check(s.top())
}

// pop closes the top frame; its depth counts in the operand it is part of.
func (s *srcScanner) pop() frame {
	f := *s.top()
	s.nest -= 1 + f.right + f.unary
	s.scope -= f.scopeOps
	if f.kind == fBlock {
		s.scope--
	}
	s.stack = s.stack[:len(s.stack)-1]
	p := s.top()
	if d := 1 + f.deepest; d > p.child {
		p.child = d
	}
	s.check(p)
	return f
}

func (s *srcScanner) run() {
	for s.err == nil {
		switch s.top().kind {
		case fJSXTag:
			if !s.jsxTag() {
				return
			}
			continue
		case fJSXBody:
			if !s.jsxBody() {
				return
			}
			continue
		}
		if !s.skipSpace() {
			return
		}
		s.tok = s.i
		if (s.newline && s.prev == pValue || s.prev == pAmbiguous) && s.startsStatement() {
			// A semicolon is inserted (or the body ended a declaration):
			// a new statement starts.
			s.resetStatement(s.top())
			s.prev = pStmt
		}
		control, afterElse, lastWord := s.control, s.afterElse, s.lastWord
		s.control, s.afterElse, s.lastWord = false, false, ""
		if s.newline || strings.IndexByte(";,{}", s.src[s.i]) >= 0 {
			s.addWork(workDeep, int64(s.nest))
		}
		s.token(control, afterElse, lastWord)
		s.newline = false
	}
}

// skipSpace skips whitespace and comments; false at the end.
func (s *srcScanner) skipSpace() bool {
	src := s.src
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\n' || c == '\r':
			s.newline = true
			s.i++
		case c == ' ' || c == '\t' || c == '\v' || c == '\f':
			s.i++
		case c == '/' && s.i+1 < len(src) && src[s.i+1] == '/':
			s.lineComment()
		case c == '/' && s.i+1 < len(src) && src[s.i+1] == '*':
			end := strings.Index(src[s.i+2:], "*/")
			body := src[s.i+2:]
			if end < 0 {
				s.i = len(src)
			} else {
				body = body[:end]
				s.i += end + 4
			}
			if strings.ContainsAny(body, "\n\r\u2028\u2029") {
				s.newline = true
			}
		case c == '#' && s.i == 0 && strings.HasPrefix(src, "#!"):
			s.lineComment()
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(src[s.i:])
			switch {
			case r == '\u2028' || r == '\u2029':
				s.newline = true
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
// terminator, as esbuild does).
func (s *srcScanner) lineComment() {
	src := s.src
	for s.i < len(src) {
		switch c := src[s.i]; {
		case c == '\n' || c == '\r':
			return
		case c == 0xe2 && strings.HasPrefix(src[s.i:], "\u2028"), c == 0xe2 && strings.HasPrefix(src[s.i:], "\u2029"):
			return
		}
		s.i++
	}
}

// startsStatement reports whether the token at s.i cannot continue the
// previous line's expression, so that a semicolon is inserted before it.
func (s *srcScanner) startsStatement() bool {
	c := s.src[s.i]
	switch {
	case c == '"' || c == '\'' || isDigit(c):
		return true
	case c == '+' || c == '-':
		return strings.HasPrefix(s.src[s.i:], "++") || strings.HasPrefix(s.src[s.i:], "--")
	case isIdentStart(c) || c >= utf8.RuneSelf || c == '\\' || c == '#':
		switch word := s.peekWord(s.i); word {
		case "in", "instanceof", "as", "satisfies", "of", "extends", "implements", "is":
			return false
		}
		return true
	}
	return false
}

func (s *srcScanner) peekWord(i int) string {
	j := i
	for j < len(s.src) && isIdentPart(s.src[j]) {
		j++
	}
	return s.src[i:j]
}

// nextNonSpace returns the offset of the next character that is not
// whitespace or a comment, without moving.
func (s *srcScanner) nextNonSpace(i int) int {
	save, nl := s.i, s.newline
	s.i = i
	s.skipSpace()
	j := s.i
	s.i, s.newline = save, nl
	return j
}

func (s *srcScanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

func (s *srcScanner) token(control, afterElse bool, lastWord string) {
	src := s.src
	c := src[s.i]
	switch {
	case c == '"' || c == '\'':
		start := s.i
		s.quoted(c)
		s.afterDot = false
		s.operand(true, s.i-start)
	case c == '`':
		if s.prev == pValue || s.prev == pAmbiguous {
			s.postOp() // a tagged template
		}
		s.afterDot = false
		s.i++
		s.templateBody(true, s.i-1)
	case isDigit(c) || (c == '.' && isDigit(s.at(s.i+1))):
		start := s.i
		s.number()
		s.afterDot = false
		s.operand(true, s.i-start)
	case isIdentStart(c) || c == '\\' || c == '#' || c >= utf8.RuneSelf:
		s.word(afterElse, lastWord)
	default:
		s.afterDot = false
		s.punct(control)
	}
}

// quoted skips a string literal; an unterminated one ends at the line
// break (esbuild reports it).
func (s *srcScanner) quoted(q byte) {
	src := s.src
	s.i++
	for s.i < len(src) {
		switch c := src[s.i]; c {
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

// templateBody scans template text up to its end or the next ${.
func (s *srcScanner) templateBody(noSubst bool, start int) {
	src := s.src
	for s.i < len(src) {
		switch src[s.i] {
		case '\\':
			s.i += 2
		case '`':
			s.i++
			s.operand(noSubst, s.i-start)
			return
		case '$':
			if s.at(s.i+1) == '{' {
				s.i += 2
				s.push(fTemplate, false)
				s.prev = pOp
				return
			}
			s.i++
		default:
			s.i++
		}
	}
	s.i = len(src)
}

func (s *srcScanner) number() {
	src := s.src
	hex := strings.HasPrefix(src[s.i:], "0x") || strings.HasPrefix(src[s.i:], "0X")
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case isIdentPart(c) || c == '.':
			if !hex && (c == 'e' || c == 'E') && (s.at(s.i+1) == '+' || s.at(s.i+1) == '-') {
				s.i++
			}
			s.i++
		default:
			return
		}
	}
}

// word scans an identifier or keyword; lastWord is the previous token
// when it was a word.
func (s *srcScanner) word(afterElse bool, lastWord string) {
	src := s.src
	start := s.i
	if src[s.i] == '#' {
		s.i++
	}
	for s.i < len(src) {
		c := src[s.i]
		switch {
		case c == '\\':
			s.i++
			if s.at(s.i) == 'u' && s.at(s.i+1) == '{' {
				if end := strings.IndexByte(src[s.i:], '}'); end >= 0 {
					s.i += end
				}
			}
			s.i++
		case c < utf8.RuneSelf:
			if !isIdentPart(c) {
				goto done
			}
			s.i++
		default:
			r, n := utf8.DecodeRuneInString(src[s.i:])
			if r == '\u2028' || r == '\u2029' || r == '\ufeff' || unicode.IsSpace(r) {
				goto done
			}
			s.i += n
		}
	}
done:
	s.i = min(s.i, len(src))
	name := src[start:s.i]
	defer func() { s.lastWord = name }()
	f := s.top()
	if (name == "of" || name == "as" || name == "satisfies") && s.prev != pValue {
		name = "" // a variable's name, not the keyword
	}
	if s.afterDot {
		s.afterDot = false
		s.operand(false, 0) // a property name
		return
	}
	next := s.at(s.nextNonSpace(s.i))
	colon := next == ':' && s.at(s.nextNonSpace(s.i)+1) != ':'
	if colon && name != "default" && name != "case" {
		// An object key, a label or a keyword used as a key.
		if s.prev == pStmt && (f.kind == fRoot || f.kind == fBlock) {
			s.i = s.nextNonSpace(s.i) + 1 // the label's ':'
			s.rightOp(true)
			s.prev = pStmt
			return
		}
		s.name(name)
		s.operand(false, 0)
		return
	}
	switch name {
	case "this", "super", "null", "true", "false":
		s.operand(false, 0)
	case "typeof", "void", "delete", "new":
		s.unaryOp()
		s.prev = pOp
	case "await":
		if lastWord == "for" {
			s.control = true // for await (...)
		} else {
			s.unaryOp()
		}
		s.prev = pOp
	case "yield", "extends":
		s.rightOp(false)
		s.prev = pOp
	case "in", "instanceof":
		s.binaryOp(false)
	case "of":
		if f.kind == fControl {
			s.binaryOp(false)
			break
		}
		s.name(src[start:s.i])
		s.operand(false, 0)
	case "as", "satisfies":
		s.postOp()
		s.prev = pOp
	case "return", "throw":
		f.seqUsed = true
		s.prev = pOp
	case "case", "default":
		f.seqUsed = name == "case"
		f.caseLabel = true
		f.cases++
		s.addWork(workCases, int64(f.cases))
		s.addWork(workDeep, int64(s.nest))
		s.prev = pOp
	case "if", "for", "while", "with":
		if name != "if" || !afterElse {
			s.rightOp(true)
		}
		s.control = true
		s.prev = pOp
	case "switch":
		s.control = true
		s.prev = pOp
	case "do":
		s.rightOp(true)
		s.prev = pStmt
	case "else":
		s.afterElse = true
		s.addWork(workDeep, int64(s.nest))
		s.prev = pStmt
	case "try", "finally":
		s.prev = pStmt
	case "let", "const", "var", "using":
		if s.prev == pStmt {
			f.decl = true
		}
		s.prev = pOp
	case "function", "class", "catch", "import", "export", "break", "continue", "debugger", "enum":
		s.prev = pOp
	case "":
		s.name(src[start:s.i])
		s.operand(false, 0)
	default:
		s.name(name)
		s.operand(false, 0)
	}
}

// name records an identifier for the renaming estimate.
func (s *srcScanner) name(name string) {
	if !s.budgets {
		return
	}
	st := s.names[name]
	if st == nil {
		st = &nameStat{first: s.tok}
		s.names[name] = st
	}
	d := int64(s.scope)
	st.s1 += 1 + d
	st.s2 += d * (1 + d)
}

func (s *srcScanner) punct(control bool) {
	src := s.src
	rest := src[s.i:]
	f := s.top()
	op := func(n int) { s.i += n }
	switch c := src[s.i]; c {
	case '(':
		op(1)
		switch {
		case control:
			s.push(fControl, false)
		case s.prev == pValue:
			s.postOp()
			s.push(fCall, false)
		case s.prev == pAmbiguous:
			// A call, or a parenthesized expression after a block:
			// count its commas as operators.
			s.postOp()
			s.push(fGroup, false)
		default:
			s.push(fGroup, false)
		}
		s.prev = pOp
	case ')':
		op(1)
		s.prev = pValue
		switch f.kind {
		case fCall, fGroup:
			s.pop()
		case fControl:
			s.pop()
			s.prev = pStmt
		}
	case '[':
		op(1)
		if s.prev == pValue || s.prev == pAmbiguous {
			s.postOp()
			s.push(fIndex, false)
		} else {
			s.push(fArray, false)
		}
		s.prev = pOp
	case ']':
		op(1)
		if f.kind == fArray || f.kind == fIndex {
			s.pop()
		}
		s.prev = pValue
	case '{':
		op(1)
		switch s.prev {
		case pStmt:
			s.push(fBlock, true)
			s.prev = pStmt
		case pArrow, pValue, pAmbiguous, pOpSlash:
			s.push(fBlock, false)
			s.prev = pStmt
		default:
			s.push(fObject, false)
			s.prev = pOp
		}
	case '}':
		op(1)
		switch f.kind {
		case fBlock:
			closed := s.pop()
			if closed.stmtBlock {
				s.resetStatement(s.top()) // the statement ended with its block
				s.prev = pStmt
			} else {
				s.prev = pAmbiguous
			}
		case fObject:
			s.pop()
			s.prev = pValue
		case fTemplate:
			s.pop()
			s.templateBody(false, s.i)
		case fJSXExpr:
			s.pop()
			if k := s.top().kind; k != fJSXTag && k != fJSXBody {
				s.prev = pValue
			}
		default:
			s.prev = pValue // unbalanced: esbuild reports it
		}
	case ';':
		op(1)
		s.resetStatement(f)
		s.prev = pStmt
	case ',':
		op(1)
		seq := false
		switch f.kind {
		case fGroup, fControl, fIndex, fTemplate, fJSXExpr:
			seq = true
		case fRoot, fBlock, fObject:
			seq = f.seqUsed && !f.decl
		}
		if seq {
			// A comma operator: a left-nested chain, like a binary one
			// but costlier to print.
			n := f.seq + 1
			s.resetExpr(f)
			f.seq = n
			s.addWork(workChain, 2*int64(n))
			s.check(f)
		} else {
			s.resetExpr(f)
		}
		s.prev = pOp
	case '.':
		if strings.HasPrefix(rest, "...") {
			op(3)
			s.rightOp(false)
			s.prev = pOp
			return
		}
		op(1)
		s.postOp()
		s.afterDot = true
		s.prev = pOp
	case '?':
		switch {
		case strings.HasPrefix(rest, "?.") && !isDigit(s.at(s.i+2)):
			op(2)
			s.postOp()
			s.afterDot = true
			s.prev = pValue // ?.( and ?.[ are calls and indexing
		case strings.HasPrefix(rest, "??="):
			op(3)
			s.rightOp(false)
			s.prev = pOp
		case strings.HasPrefix(rest, "??"):
			op(2)
			s.binaryOp(false)
		default:
			op(1)
			s.rightOp(false)
			f.cond++
			s.prev = pOp
		}
	case ':':
		op(1)
		switch {
		case f.cond > 0:
			f.cond--
			s.endOperand(f)
			f.bin, f.lit, f.litRun, f.plus = 0, 0, false, false
			s.prev = pOp
		case f.caseLabel:
			s.resetStatement(f)
			s.prev = pStmt
		default:
			s.prev = pOp // an object key's value or a type annotation
		}
	case '=':
		switch {
		case strings.HasPrefix(rest, "==="):
			op(3)
			s.binaryOp(false)
		case strings.HasPrefix(rest, "=="):
			op(2)
			s.binaryOp(false)
		case strings.HasPrefix(rest, "=>"):
			op(2)
			if s.at(s.nextNonSpace(s.i)) == '{' {
				s.prev = pArrow // the block counts
			} else {
				s.rightOp(true)
				s.prev = pOp
			}
		default:
			op(1)
			s.rightOp(false)
			s.prev = pOp
		}
	case '!':
		switch {
		case strings.HasPrefix(rest, "!=="):
			op(3)
			s.binaryOp(false)
		case strings.HasPrefix(rest, "!="):
			op(2)
			s.binaryOp(false)
		case s.prev == pValue:
			op(1)
			s.postOp() // TypeScript's non-null assertion
		default:
			op(1)
			s.unaryOp()
			s.prev = pOp
		}
	case '<':
		switch {
		case strings.HasPrefix(rest, "<!--"):
			s.lineComment() // esbuild reads it as a comment
		case strings.HasPrefix(rest, "<<="):
			op(3)
			s.rightOp(false)
			s.prev = pOp
		case strings.HasPrefix(rest, "<<"):
			op(2)
			s.binaryOp(false)
		case strings.HasPrefix(rest, "<="):
			op(2)
			s.binaryOp(false)
		case s.jsx && s.prev != pValue && !s.typeParameters():
			if s.prev == pAmbiguous || s.prev == pOpSlash {
				s.fail(s.tok, "cannot tell whether this '<' starts a JSX element or compares: put a semicolon before it, or parentheses around the expression before it")
				return
			}
			op(1)
			s.push(fJSXTag, false)
		default:
			op(1)
			if s.ts {
				f.angle++
				s.addWork(workAngle, int64(f.angle))
			}
			s.binaryOp(false)
		}
	case '>':
		n := 1
		for n < 3 && s.at(s.i+n) == '>' {
			n++
		}
		if s.at(s.i+n) == '=' {
			op(n + 1)
			if n == 1 {
				s.binaryOp(false) // >=
			} else {
				s.rightOp(false)
				s.prev = pOp
			}
			return
		}
		op(n)
		f.angle = max(f.angle-n, 0)
		s.binaryOp(false)
		if s.ts {
			s.prev = pOpSlash
		}
	case '+', '-':
		switch {
		case c == '-' && strings.HasPrefix(rest, "-->") && s.newline:
			s.lineComment() // esbuild reads it as a comment
		case len(rest) > 1 && rest[1] == c:
			op(2)
			if s.prev == pValue {
				s.postOp()
			} else {
				s.unaryOp()
				s.prev = pOp
			}
		case len(rest) > 1 && rest[1] == '=':
			op(2)
			s.rightOp(false)
			s.prev = pOp
		case s.prev == pValue:
			op(1)
			s.binaryOp(c == '+')
		default:
			op(1)
			s.unaryOp()
			s.prev = pOp
		}
	case '*':
		switch {
		case strings.HasPrefix(rest, "**="):
			op(3)
			s.rightOp(false)
			s.prev = pOp
		case strings.HasPrefix(rest, "**"):
			op(2)
			s.rightOp(false) // right-associative
			s.prev = pOp
		case strings.HasPrefix(rest, "*="):
			op(2)
			s.rightOp(false)
			s.prev = pOp
		case s.prev == pValue:
			op(1)
			s.binaryOp(false)
		default:
			op(1) // function*, yield*, import * as, a generator method
			s.prev = pOp
		}
	case '/':
		switch s.prev {
		case pValue:
			if strings.HasPrefix(rest, "/=") {
				op(2)
				s.rightOp(false)
				s.prev = pOp
			} else {
				op(1)
				s.binaryOp(false)
			}
		case pAmbiguous, pOpSlash:
			end, risky := s.regexpEnd()
			switch {
			case end < 0: // not a regular expression: a division
				op(1)
				s.binaryOp(false)
			case risky:
				s.fail(s.tok, "cannot tell whether this '/' starts a regular expression or divides: put a semicolon before it, or parentheses around the expression before it")
			default:
				s.i = end
				s.operand(false, 0)
			}
		default:
			if end, _ := s.regexpEnd(); end >= 0 {
				s.i = end
			} else {
				s.lineComment() // unterminated: esbuild reports it
			}
			s.operand(false, 0)
		}
	case '%', '&', '|', '^':
		n := 1
		if (c == '&' || c == '|') && s.at(s.i+1) == c {
			n = 2
		}
		if s.at(s.i+n) == '=' {
			op(n + 1)
			s.rightOp(false)
			s.prev = pOp
			return
		}
		op(n)
		switch {
		case s.prev != pValue:
			// A leading | or & of a TypeScript type.
		case n == 1 && (c == '|' || c == '&'):
			f.flat++
			s.addWork(workChain, int64(f.flat))
			s.endOperand(f)
			f.lit, f.litRun, f.plus = 0, false, false
		default:
			s.binaryOp(false)
		}
		s.prev = pOp
	case '~':
		op(1)
		s.unaryOp()
		s.prev = pOp
	default:
		op(1) // '@', stray characters
		s.prev = pOp
	}
}

// regexpEnd returns the end of the regular expression (with its flags)
// starting at s.i, or -1 when none ends on this line; risky reports text
// inside it that would change the count if it were code.
func (s *srcScanner) regexpEnd() (end int, risky bool) {
	src := s.src
	i := s.i + 1
	inClass := false
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\\':
			if i+1 < len(src) && (src[i+1] == '\n' || src[i+1] == '\r') {
				return -1, false
			}
			i += 2
			continue
		case c == '\n' || c == '\r':
			return -1, false
		case c == 0xe2 && (strings.HasPrefix(src[i:], "\u2028") || strings.HasPrefix(src[i:], "\u2029")):
			return -1, false
		case c == '[':
			inClass = true
		case c == ']':
			inClass = false
		case c == '/' && !inClass:
			i++
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			return i, strings.ContainsAny(src[s.i:i], "()[]{}'\"`<")
		}
		i++
	}
	return -1, false
}

// typeParameters reports whether a '<' in a .tsx file starts the type
// parameters of a generic arrow function (<T,>(x) => x, <T extends U>)
// rather than a JSX element.
func (s *srcScanner) typeParameters() bool {
	if !s.ts {
		return false
	}
	i := s.nextNonSpace(s.i + 1)
	w := s.peekWord(i)
	if w == "const" {
		i = s.nextNonSpace(i + len(w))
		w = s.peekWord(i)
	}
	if w == "" {
		return false
	}
	j := s.nextNonSpace(i + len(w))
	return s.at(j) == ',' || (s.peekWord(j) == "extends" && !isIdentPart(s.at(j+len("extends"))))
}

// jsxTag scans the inside of a JSX tag; false at the end of the source.
func (s *srcScanner) jsxTag() bool {
	src := s.src
	for {
		if !s.skipSpace() {
			return false
		}
		s.tok = s.i
		switch c := src[s.i]; c {
		case '/':
			s.i++
			if s.at(s.i) == '>' {
				s.i++
				s.pop()
				s.afterJSXElement()
				return true
			}
		case '>':
			s.i++
			s.top().kind = fJSXBody
			return true
		case '{':
			s.i++
			s.push(fJSXExpr, false)
			s.prev = pOp
			return true
		case '<':
			s.i++
			s.push(fJSXTag, false) // an element as an attribute's value
			return true
		case '"', '\'':
			// JSX attribute strings have no escapes and may span lines.
			end := strings.IndexByte(src[s.i+1:], c)
			if end < 0 {
				s.i = len(src)
				return false
			}
			s.i += end + 2
		default:
			s.i++
		}
	}
}

// jsxBody scans JSX children; false at the end of the source.
func (s *srcScanner) jsxBody() bool {
	src := s.src
	j := strings.IndexAny(src[s.i:], "{<")
	if j < 0 {
		s.i = len(src)
		return false
	}
	s.i += j
	s.tok = s.i
	if src[s.i] == '{' {
		s.i++
		s.push(fJSXExpr, false)
		s.prev = pOp
		return true
	}
	s.i++
	if s.at(s.nextNonSpace(s.i)) == '/' {
		end := strings.IndexByte(src[s.i:], '>')
		if end < 0 {
			s.i = len(src)
			return false
		}
		s.i += end + 1
		s.pop()
		s.afterJSXElement()
		return true
	}
	s.push(fJSXTag, false)
	return true
}

// afterJSXElement continues after an element: in its parent's children
// or tag, or in code, where the element was an operand.
func (s *srcScanner) afterJSXElement() {
	if k := s.top().kind; k != fJSXBody && k != fJSXTag {
		s.operand(false, 0)
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }
