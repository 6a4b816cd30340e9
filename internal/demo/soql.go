package demo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// soqlSupported is appended to every parse error so that an agent can fix
// its query without guessing.
const soqlSupported = "supported: SELECT field1, field2 FROM Object [WHERE field op value [AND field op value ...]] " +
	"[ORDER BY field [ASC|DESC]] [LIMIT n], where op is =, !=, <, <=, >, >= or LIKE ('abc%' style patterns), " +
	"and value is a 'quoted string', a number, true, false or null"

// soqlQuery is a parsed query of the demo's SOQL subset. Names are kept as
// written; the record store resolves them case-insensitively.
type soqlQuery struct {
	Fields  []string
	Object  string
	Where   []soqlCondition // joined by AND
	OrderBy string          // empty: creation order
	Desc    bool
	Limit   int // -1: no limit
}

// soqlCondition is "Field Op Value". Value is a string, float64, bool or nil.
type soqlCondition struct {
	Field string
	Op    string
	Value any
}

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokString
	tokNumber
	tokSymbol
)

type token struct {
	kind tokenKind
	text string // identifier, symbol, or the literal as written
	val  any    // decoded string or number literal
	pos  int    // 1-based character position, for error messages
}

// parseSOQL parses src or explains, with a position, what is wrong and what
// the subset supports.
func parseSOQL(src string) (*soqlQuery, error) {
	toks, err := tokenizeSOQL(src)
	if err != nil {
		return nil, err
	}
	p := &soqlParser{toks: toks}
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return q, nil
}

// soqlError formats a parse error.
func soqlError(pos int, format string, args ...any) error {
	return fmt.Errorf("malformed query at character %d: %s; %s", pos, fmt.Sprintf(format, args...), soqlSupported)
}

func tokenizeSOQL(src string) ([]token, error) {
	var toks []token
	r := []rune(src)
	for i := 0; i < len(r); {
		c := r[i]
		pos := i + 1
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case isIdentStart(c):
			j := i
			for j < len(r) && (isIdentStart(r[j]) || isDigit(r[j]) || r[j] == '.') {
				j++
			}
			toks = append(toks, token{kind: tokIdent, text: string(r[i:j]), pos: pos})
			i = j
		case isDigit(c) || (c == '-' && i+1 < len(r) && isDigit(r[i+1])):
			j := i + 1
			for j < len(r) && (isDigit(r[j]) || r[j] == '.') {
				j++
			}
			text := string(r[i:j])
			n, err := strconv.ParseFloat(text, 64)
			if err != nil {
				return nil, soqlError(pos, "bad number %q", text)
			}
			toks = append(toks, token{kind: tokNumber, text: text, val: n, pos: pos})
			i = j
		case c == '\'':
			var b strings.Builder
			j := i + 1
			for ; j < len(r) && r[j] != '\''; j++ {
				if r[j] == '\\' && j+1 < len(r) {
					j++
				}
				b.WriteRune(r[j])
			}
			if j >= len(r) {
				return nil, soqlError(pos, "string literal is not closed with a single quote")
			}
			toks = append(toks, token{kind: tokString, text: string(r[i : j+1]), val: b.String(), pos: pos})
			i = j + 1
		case c == '"':
			return nil, soqlError(pos, "strings take single quotes, not double quotes")
		default:
			sym := string(c)
			if i+1 < len(r) {
				if two := string(r[i : i+2]); two == "!=" || two == "<>" || two == "<=" || two == ">=" {
					sym = two
				}
			}
			if len(sym) == 1 && !strings.ContainsRune(",()=<>*", c) {
				return nil, soqlError(pos, "unexpected character %q", c)
			}
			toks = append(toks, token{kind: tokSymbol, text: sym, pos: pos})
			i += len(sym)
		}
	}
	return append(toks, token{kind: tokEOF, text: "end of query", pos: len(r) + 1}), nil
}

func isIdentStart(c rune) bool { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
func isDigit(c rune) bool      { return c >= '0' && c <= '9' }

type soqlParser struct {
	toks []token
	i    int
}

func (p *soqlParser) peek() token { return p.toks[p.i] }

func (p *soqlParser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// isKeyword reports whether t is the keyword kw, in any case.
func isKeyword(t token, kw string) bool { return t.kind == tokIdent && strings.EqualFold(t.text, kw) }

func (p *soqlParser) expectKeyword(kw, after string) error {
	if t := p.next(); !isKeyword(t, kw) {
		return soqlError(t.pos, "expected %s %s, found %q", kw, after, t.text)
	}
	return nil
}

func (p *soqlParser) query() (*soqlQuery, error) {
	q := &soqlQuery{Limit: -1}
	if err := p.expectKeyword("SELECT", "at the start"); err != nil {
		return nil, err
	}
	for {
		f, err := p.fieldName("in the SELECT list")
		if err != nil {
			return nil, err
		}
		q.Fields = append(q.Fields, f)
		if p.peek().text != "," {
			break
		}
		p.next()
	}
	if err := p.expectKeyword("FROM", "after the field list"); err != nil {
		return nil, err
	}
	obj := p.next()
	if obj.kind != tokIdent {
		return nil, soqlError(obj.pos, "expected an object name after FROM, found %q", obj.text)
	}
	q.Object = obj.text

	if isKeyword(p.peek(), "WHERE") {
		p.next()
		for {
			c, err := p.condition()
			if err != nil {
				return nil, err
			}
			q.Where = append(q.Where, c)
			if !isKeyword(p.peek(), "AND") {
				break
			}
			p.next()
		}
	}
	if isKeyword(p.peek(), "ORDER") {
		p.next()
		if err := p.expectKeyword("BY", "after ORDER"); err != nil {
			return nil, err
		}
		f, err := p.fieldName("after ORDER BY")
		if err != nil {
			return nil, err
		}
		q.OrderBy = f
		if t := p.peek(); isKeyword(t, "ASC") || isKeyword(t, "DESC") {
			q.Desc = isKeyword(p.next(), "DESC")
		}
	}
	if isKeyword(p.peek(), "LIMIT") {
		p.next()
		t := p.next()
		n, ok := t.val.(float64)
		if t.kind != tokNumber || !ok || n < 0 || n != float64(int(n)) {
			return nil, soqlError(t.pos, "LIMIT takes a whole number, found %q", t.text)
		}
		q.Limit = int(n)
	}
	if t := p.peek(); t.kind != tokEOF {
		switch {
		case isKeyword(t, "OR"):
			return nil, soqlError(t.pos, "OR is not supported, only AND")
		case isKeyword(t, "GROUP"), isKeyword(t, "HAVING"), isKeyword(t, "OFFSET"):
			return nil, soqlError(t.pos, "%s is not supported", strings.ToUpper(t.text))
		default:
			return nil, soqlError(t.pos, "unexpected %q", t.text)
		}
	}
	return q, nil
}

// fieldName reads one plain field name and explains unsupported forms.
func (p *soqlParser) fieldName(where string) (string, error) {
	t := p.next()
	switch {
	case t.text == "*":
		return "", soqlError(t.pos, "SELECT * is not SOQL; list the fields, for example SELECT Id, Name FROM Lead")
	case t.kind != tokIdent || slices.ContainsFunc(soqlClauseWords, func(w string) bool { return strings.EqualFold(w, t.text) }):
		return "", soqlError(t.pos, "expected a field name %s, found %q", where, t.text)
	case strings.Contains(t.text, "."):
		return "", soqlError(t.pos, "relationship fields such as %q are not supported; query the related object by its id instead", t.text)
	case p.peek().text == "(":
		return "", soqlError(t.pos, "functions such as %s() are not supported", t.text)
	}
	return t.text, nil
}

// soqlClauseWords cannot be field names; seeing one where a field belongs
// means the field is missing.
var soqlClauseWords = []string{"SELECT", "FROM", "WHERE", "AND", "OR", "ORDER", "BY", "LIMIT", "ASC", "DESC"}

var soqlOperators = []string{"=", "!=", "<>", "<", "<=", ">", ">="}

func (p *soqlParser) condition() (soqlCondition, error) {
	if t := p.peek(); t.text == "(" || isKeyword(t, "NOT") {
		return soqlCondition{}, soqlError(t.pos, "parentheses and NOT are not supported")
	}
	field, err := p.fieldName("in the WHERE clause")
	if err != nil {
		return soqlCondition{}, err
	}
	opTok := p.next()
	op := opTok.text
	switch {
	case isKeyword(opTok, "LIKE"):
		op = "LIKE"
	case isKeyword(opTok, "IN"), isKeyword(opTok, "INCLUDES"), isKeyword(opTok, "EXCLUDES"):
		return soqlCondition{}, soqlError(opTok.pos, "%s is not supported; combine = conditions with AND", strings.ToUpper(opTok.text))
	case opTok.kind != tokSymbol || !slices.Contains(soqlOperators, op):
		return soqlCondition{}, soqlError(opTok.pos, "expected an operator after %s, found %q", field, opTok.text)
	}
	if op == "<>" {
		op = "!="
	}
	v := p.next()
	var value any
	switch {
	case v.kind == tokString || v.kind == tokNumber:
		value = v.val
	case isKeyword(v, "true"), isKeyword(v, "false"):
		value = strings.EqualFold(v.text, "true")
	case isKeyword(v, "null"):
		value = nil
	default:
		return soqlCondition{}, soqlError(v.pos, "expected a value after %s %s, found %q", field, op, v.text)
	}
	if _, isString := value.(string); op == "LIKE" && !isString {
		return soqlCondition{}, soqlError(v.pos, "LIKE needs a quoted pattern such as 'abc%%'")
	}
	return soqlCondition{Field: field, Op: op, Value: value}, nil
}
