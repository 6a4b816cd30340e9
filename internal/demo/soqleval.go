package demo

import (
	"strings"
	"unicode/utf8"
)

// matches reports whether rec satisfies every condition. Fields have been
// resolved to canonical names. String comparisons ignore case, as in SOQL.
func matches(rec record, where []soqlCondition) bool {
	for _, c := range where {
		if !conditionHolds(rec[c.Field], c.Op, c.Value) {
			return false
		}
	}
	return true
}

func conditionHolds(have any, op string, want any) bool {
	switch op {
	case "=":
		return valuesEqual(have, want)
	case "!=":
		return !valuesEqual(have, want)
	case "LIKE":
		s, ok := have.(string)
		return ok && likeMatch(strings.ToLower(want.(string)), strings.ToLower(s))
	}
	// Ordering operators never match null or values of different types.
	if have == nil || want == nil {
		return false
	}
	c, ok := compareSameType(have, want)
	if !ok {
		return false
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return false
}

func valuesEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	c, ok := compareSameType(a, b)
	return ok && c == 0
}

// compareSameType orders two non-nil values of the same kind (strings
// case-insensitively); ok is false when the kinds differ.
func compareSameType(a, b any) (c int, ok bool) {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		if !ok {
			return 0, false
		}
		return strings.Compare(strings.ToLower(x), strings.ToLower(y)), true
	case float64:
		y, ok := b.(float64)
		if !ok {
			return 0, false
		}
		switch {
		case x < y:
			return -1, true
		case x > y:
			return 1, true
		}
		return 0, true
	case bool:
		y, ok := b.(bool)
		if !ok {
			return 0, false
		}
		switch {
		case x == y:
			return 0, true
		case !x:
			return -1, true
		}
		return 1, true
	}
	return 0, false
}

// orderValues is the total order of ORDER BY: nulls first, then booleans,
// numbers and strings, each ordered among themselves.
func orderValues(a, b any) int {
	ra, rb := kindRank(a), kindRank(b)
	if ra != rb {
		return ra - rb
	}
	c, _ := compareSameType(a, b)
	return c
}

func kindRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case float64:
		return 2
	default:
		return 3
	}
}

// likeMatch matches s against a SOQL LIKE pattern: % is any run of
// characters, _ exactly one. It runs in O(len(pattern)·len(s)) worst case:
// backtracking only ever returns to the last %.
func likeMatch(pattern, s string) bool {
	p, t := 0, 0
	starP, starT := -1, 0
	for t < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '%':
			starP, starT = p, t
			p++
		case p < len(pattern) && pattern[p] == '_':
			_, n := utf8.DecodeRuneInString(s[t:])
			p++
			t += n
		case p < len(pattern) && pattern[p] == s[t]:
			p++
			t++
		case starP >= 0:
			_, n := utf8.DecodeRuneInString(s[starT:])
			starT += n
			p, t = starP+1, starT
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '%' {
		p++
	}
	return p == len(pattern)
}
