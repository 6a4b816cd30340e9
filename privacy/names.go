package privacy

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// DefaultNameFields are the keys whose values are person names, compared
// ignoring case, '_' and '-'. "name" alone is generic (a channel, a
// product, a company): its value counts only in an object that also has an
// email or phone field, or a first or last name.
var DefaultNameFields = []string{
	"name", "fullName", "firstName", "lastName", "givenName", "familyName", "surname",
	"middleName", "realName", "displayName", "contactName", "customerName", "personName",
	"accountHolder", "cardholderName",
}

// maxNameWords bounds the words of a name.
const maxNameWords = 5

// NameIndex holds the person names known to a session and finds them in
// text. Names of several words match whatever their case; a name of one
// word matches only as spelled where it was learned ("Park", not "park").
// It is safe for concurrent use.
type NameIndex struct {
	mu     sync.RWMutex
	multi  map[string]string // lower-case name → key
	single map[string]string // one-word name as spelled → key
	first  map[string]int    // lower-case first word → most words of a name starting with it
}

// NewNameIndex returns an empty index.
func NewNameIndex() *NameIndex {
	return &NameIndex{multi: map[string]string{}, single: map[string]string{}, first: map[string]int{}}
}

// Len returns the number of names known.
func (x *NameIndex) Len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return len(x.multi) + len(x.single)
}

// NameKey returns the key of a name: its words joined by one space, in
// lower case.
func NameKey(name string) string {
	return KindName + ":" + strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// Add makes name known. It reports false, and adds nothing, for a value
// that does not look like a person's name: 1 to 5 words (at least 2 when
// minWords says so), each starting with an upper-case letter and made of
// letters, apostrophes, hyphens and a final period ("J.").
func (x *NameIndex) Add(name string, minWords int) (key string, ok bool) {
	words := strings.Fields(name)
	if len(words) < max(minWords, 1) || len(words) > maxNameWords || len(name) > 80 {
		return "", false
	}
	for _, w := range words {
		if !nameWord(w) {
			return "", false
		}
	}
	if len(words) == 1 && utf8.RuneCountInString(words[0]) < 2 {
		return "", false
	}
	norm := strings.Join(words, " ")
	key = KindName + ":" + strings.ToLower(norm)
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(words) == 1 {
		x.single[norm] = key
	} else {
		x.multi[strings.ToLower(norm)] = key
	}
	fw := strings.ToLower(strings.TrimSuffix(words[0], "."))
	x.first[fw] = max(x.first[fw], len(words))
	return key, true
}

// nameWord reports whether w can be a word of a name: an upper-case
// letter, then letters, with inner apostrophes or hyphens, and at most a
// final period.
func nameWord(w string) bool {
	w = strings.TrimSuffix(w, ".")
	r, size := utf8.DecodeRuneInString(w)
	if size == 0 || !unicode.IsUpper(r) {
		return false
	}
	prev := r
	for _, r := range w[size:] {
		switch {
		case unicode.IsLetter(r):
		case (r == '\'' || r == '’' || r == '-') && unicode.IsLetter(prev):
		default:
			return false
		}
		prev = r
	}
	return unicode.IsLetter(prev)
}

// wordSpan is one word of a text: s[start:end], without a final period;
// dot says a period follows it.
type wordSpan struct {
	start, end int
	dot        bool
}

// isNameByte reports whether c can be part of a word of a name.
func isNameByte(c byte) bool { return isAlpha(c) || c >= 0x80 }

// find appends the known names in s.
func (x *NameIndex) find(s string, ms []Match) []Match {
	x.mu.RLock()
	defer x.mu.RUnlock()
	if len(x.first) == 0 {
		return ms
	}
	var buf []byte
	var ws [maxNameWords]wordSpan
	for i := 0; i < len(s); {
		w, ok := nextWord(s, i)
		if !ok {
			break
		}
		i = w.end
		buf = lowerInto(buf[:0], s[w.start:w.end])
		n, ok := x.first[string(buf)]
		if !ok {
			continue
		}
		ws[0], n = w, min(n, maxNameWords)
		cnt := 1
		for j := w.end; cnt < n; cnt++ {
			next, ok := nextWord(s, j)
			if !ok {
				break
			}
			ws[cnt], j = next, next.end
		}
		for k := cnt; k >= 1; k-- {
			if end, key, ok := x.lookup(s, ws[:k], &buf); ok {
				ms = append(ms, Match{w.start, end, KindName, key})
				i = end
				break
			}
		}
	}
	return ms
}

// lookup looks words up as one name; end is where the name ends in s.
func (x *NameIndex) lookup(s string, ws []wordSpan, buf *[]byte) (end int, key string, ok bool) {
	if !contiguous(s, ws) {
		return 0, "", false
	}
	start, last := ws[0].start, ws[len(ws)-1]
	if len(ws) == 1 {
		key, ok = x.single[s[start:last.end]]
		return last.end, key, ok
	}
	for _, e := range []int{last.end + 1, last.end} { // with a final period, then without
		if e == last.end+1 && !last.dot {
			continue
		}
		*buf = lowerInto((*buf)[:0], s[start:e])
		if key, ok := x.multi[string(*buf)]; ok {
			return e, key, true
		}
	}
	return 0, "", false
}

// nextWord returns the first word of s at or after i that may be part of a
// name: a run of letters (inner ' and - allowed) not glued to digits or
// '_', without a possessive 's.
func nextWord(s string, i int) (wordSpan, bool) {
	for i < len(s) {
		if !isNameByte(s[i]) {
			i++
			continue
		}
		start := i
		for i < len(s) && (isNameByte(s[i]) || ((s[i] == '\'' || s[i] == '-') && i+1 < len(s) && isNameByte(s[i+1]))) {
			i++
		}
		if (start > 0 && isWordByte(s[start-1])) || (i < len(s) && isWordByte(s[i])) {
			continue
		}
		end := i
		if end-start > 2 && s[end-2] == '\'' && s[end-1]|0x20 == 's' {
			end -= 2 // a possessive: "Okafor's"
		}
		return wordSpan{start: start, end: end, dot: i < len(s) && s[i] == '.'}, true
	}
	return wordSpan{}, false
}

// contiguous reports whether words follow each other with one space (or a
// period and one space) between them.
func contiguous(s string, ws []wordSpan) bool {
	for k := 1; k < len(ws); k++ {
		gap := s[ws[k-1].end:ws[k].start]
		if gap != " " && !(gap == ". " && ws[k-1].dot) {
			return false
		}
	}
	return true
}

// lowerInto appends s in lower case to buf.
func lowerInto(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return append(buf, strings.ToLower(s)...)
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}
