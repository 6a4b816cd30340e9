package privacy

import (
	"fmt"
	"net/netip"
	"regexp"
	"slices"
	"strings"
)

// Kinds of values the built-in detectors find. Custom patterns add kinds
// of their own (upper case letters, digits and underscores).
const (
	KindEmail = "EMAIL"
	KindPhone = "PHONE"
	KindCard  = "CARD"
	KindIBAN  = "IBAN"
	KindIP    = "IP"
	KindName  = "NAME"
)

// BuiltinKinds are the kinds of the built-in detectors, in the order in which
// they win over each other when two matches overlap (after the longer match).
var BuiltinKinds = []string{KindEmail, KindCard, KindIBAN, KindIP, KindPhone, KindName}

// Match is one value found in a text.
type Match struct {
	// Start and End delimit the value in the text (bytes).
	Start, End int
	Kind       string
	// Key identifies the value whatever its spelling: its kind and its
	// normalized form (an email in lower case, a phone's digits).
	Key string
}

// Pattern is a custom detector: every match of Regexp is a value of Kind.
type Pattern struct {
	Kind   string
	Regexp string
}

// Detector finds values in text. It is safe for concurrent use.
type Detector struct {
	enabled  map[string]bool
	patterns []compiledPattern
}

type compiledPattern struct {
	kind string
	re   *regexp.Regexp
}

// validKind reports whether k is 1 to 32 upper-case letters, digits or
// underscores, starting with a letter.
func validKind(k string) bool {
	if len(k) == 0 || len(k) > 32 || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for i := 1; i < len(k); i++ {
		if c := k[i]; !(c >= 'A' && c <= 'Z' || isDigit(c) || c == '_') {
			return false
		}
	}
	return true
}

// NewDetector returns a detector with the given built-in kinds (nil: all of
// them) and custom patterns.
func NewDetector(kinds []string, patterns []Pattern) (*Detector, error) {
	d := &Detector{enabled: map[string]bool{}}
	if kinds == nil {
		kinds = BuiltinKinds
	}
	for _, k := range kinds {
		if !slices.Contains(BuiltinKinds, k) {
			return nil, fmt.Errorf("unknown detector %q: use %s", k, strings.Join(BuiltinKinds, ", "))
		}
		d.enabled[k] = true
	}
	for _, p := range patterns {
		if !validKind(p.Kind) {
			return nil, fmt.Errorf("pattern kind %q: use 1 to 32 upper-case letters, digits or underscores, starting with a letter (such as EMPLOYEE_ID)", p.Kind)
		}
		if slices.Contains(BuiltinKinds, p.Kind) {
			return nil, fmt.Errorf("pattern kind %q is a built-in kind: pick another name", p.Kind)
		}
		re, err := regexp.Compile(p.Regexp)
		if err != nil {
			return nil, fmt.Errorf("pattern %s: %w", p.Kind, err)
		}
		if re.MatchString("") {
			return nil, fmt.Errorf("pattern %s matches the empty string: make it match at least one character", p.Kind)
		}
		d.patterns = append(d.patterns, compiledPattern{p.Kind, re})
	}
	return d, nil
}

// Enabled reports whether the detector looks for kind.
func (d *Detector) Enabled(kind string) bool { return d.enabled[kind] }

// Find returns the values in s, sorted by position and not overlapping.
// Names are found only when names is not nil, by lookup among the names it
// knows.
func (d *Detector) Find(s string, names *NameIndex) []Match {
	var ms []Match
	if d.enabled[KindEmail] && strings.IndexByte(s, '@') >= 0 {
		ms = findEmails(s, ms)
	}
	if hasDigit(s) {
		if d.enabled[KindPhone] || d.enabled[KindCard] || d.enabled[KindIP] {
			ms = d.findNumbers(s, ms)
		}
		if d.enabled[KindIBAN] {
			ms = findIBANs(s, ms)
		}
	}
	if d.enabled[KindIP] && (strings.Contains(s, "::") || strings.Count(s, ":") >= 7) {
		ms = findIPv6(s, ms)
	}
	for _, p := range d.patterns {
		for _, loc := range p.re.FindAllStringIndex(s, -1) {
			if loc[1] > loc[0] {
				ms = append(ms, Match{loc[0], loc[1], p.kind, p.kind + ":" + s[loc[0]:loc[1]]})
			}
		}
	}
	if names != nil && d.enabled[KindName] {
		ms = names.find(s, ms)
	}
	return resolve(ms)
}

// resolve sorts matches and drops those that overlap an earlier (or, at the
// same start, a longer) one; at equal spans the built-in order decides.
func resolve(ms []Match) []Match {
	if len(ms) < 2 {
		return ms
	}
	slices.SortStableFunc(ms, func(a, b Match) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		if a.End != b.End {
			return b.End - a.End
		}
		return kindRank(a.Kind) - kindRank(b.Kind)
	})
	out := ms[:0]
	end := -1
	for _, m := range ms {
		if m.Start >= end {
			out = append(out, m)
			end = m.End
		}
	}
	return out
}

func kindRank(k string) int {
	if i := slices.Index(BuiltinKinds, k); i >= 0 {
		return i
	}
	return len(BuiltinKinds)
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isAlnum(c byte) bool { return isDigit(c) || isAlpha(c) }

// isWordByte reports whether c continues a word: ASCII letters and digits,
// '_', and every byte of a multi-byte character (a letter in most texts).
func isWordByte(c byte) bool { return isAlnum(c) || c == '_' || c >= 0x80 }

// --- emails ---

// fileExtensions end names such as "icon@2x.png" that look like addresses.
var fileExtensions = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true, "ico": true, "bmp": true,
	"pdf": true, "js": true, "mjs": true, "ts": true, "css": true, "map": true, "json": true, "txt": true,
	"html": true, "wasm": true, "tgz": true,
}

func isLocalByte(c byte) bool {
	return isAlnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-'
}

// findEmails finds local@domain.tld with a letters-only top-level domain of
// at least two letters.
func findEmails(s string, ms []Match) []Match {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '@')
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		l := at
		for l > 0 && isLocalByte(s[l-1]) {
			l--
		}
		for l < at && (s[l] == '.' || s[l] == '-' || s[l] == '+') {
			l++
		}
		if l == at || s[at-1] == '.' || (l > 0 && s[l-1] >= 0x80) {
			continue
		}
		// Domain: labels of letters, digits and inner hyphens.
		r, labelStart, lastDot := at+1, at+1, -1
		for r < len(s) {
			c := s[r]
			switch {
			case isAlnum(c):
				r++
			case c == '-' && r > labelStart:
				r++
			case c == '.' && r > labelStart && s[r-1] != '-' && r+1 < len(s) && isAlnum(s[r+1]):
				lastDot = r
				r++
				labelStart = r
			default:
				goto done
			}
		}
	done:
		for r > labelStart && s[r-1] == '-' {
			r--
		}
		if lastDot < 0 || r-lastDot-1 < 2 || (r < len(s) && s[r] >= 0x80) {
			continue
		}
		tld := s[lastDot+1 : r]
		if fileExtensions[strings.ToLower(tld)] {
			continue // "icon@2x.png", "logo@3x.webp"
		}
		ok := true
		for k := 0; k < len(tld); k++ {
			if !isAlpha(tld[k]) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		ms = append(ms, Match{l, r, KindEmail, KindEmail + ":" + strings.ToLower(s[l:r])})
		i = r
	}
	return ms
}

// --- phones, cards, IPv4: runs of digit groups ---

// sepSet is a set of the separators between digit groups.
type sepSet uint8

const (
	sepSpace sepSet = 1 << iota
	sepDash
	sepDot
	sepParen
)

func (s *sepSet) add(c byte) {
	switch c {
	case ' ':
		*s |= sepSpace
	case '-':
		*s |= sepDash
	case '.':
		*s |= sepDot
	case ')':
		*s |= sepParen
	}
}

// group is a run of digits s[start:end]; paren marks "(206)".
type group struct {
	start, end int
	paren      bool
	sep        byte // the separator before this group: 0, ' ', '-', '.' or ')'
}

// findNumbers scans runs of digit groups and matches phones, cards and IPv4
// addresses in them.
func (d *Detector) findNumbers(s string, ms []Match) []Match {
	for i := 0; i < len(s); {
		c := s[i]
		if !(isDigit(c) || ((c == '+' || c == '(') && i+1 < len(s) && (isDigit(s[i+1]) || s[i+1] == '('))) {
			i++
			continue
		}
		// A run glued to a word ("ORD-100001", "v1.2.3.4", "x1") is not a value.
		if i > 0 && glued(s, i) {
			i = skipRun(s, i)
			continue
		}
		plus := c == '+'
		start := i
		if plus {
			i++
		}
		groups, end := scanGroups(s, i)
		if len(groups) == 0 {
			i = start + 1
			continue
		}
		matched := false
		for a := 0; a < len(groups) && !matched; a++ {
			if a > 0 && groups[a].sep != ' ' {
				continue
			}
			for b := min(len(groups), a+7); b > a; b-- {
				gs := groups[a:b]
				if !endsClean(s, gs[len(gs)-1], groups, b) {
					continue
				}
				if m, ok := d.matchNumber(s, gs, plus && a == 0, start); ok {
					ms = append(ms, m)
					// Continue after the match: later groups may hold more.
					if b < len(groups) {
						i = groups[b].start
						if groups[b].paren {
							i--
						}
					} else {
						i = end
					}
					matched = true
					break
				}
			}
			plus = false
		}
		if !matched {
			i = end
		}
	}
	return ms
}

// glued reports whether the run starting at i continues a word: a letter,
// digit or '_' right before it, a '-', '.', '/' or ',' that follows one
// ("ORD-100001", "v1.2.3.4"), or a ':' that follows a digit ("10:30").
func glued(s string, i int) bool {
	p := s[i-1]
	if isWordByte(p) {
		return true
	}
	if i < 2 {
		return false
	}
	switch p {
	case '-', '.', '/', ',':
		return isWordByte(s[i-2])
	case ':':
		return isDigit(s[i-2])
	}
	return false
}

// skipRun skips the digits, letters and joiners of a glued run (at least
// one byte).
func skipRun(s string, i int) int {
	i++
	for i < len(s) && (isWordByte(s[i]) || ((s[i] == '-' || s[i] == '.' || s[i] == '/') && i+1 < len(s) && isWordByte(s[i+1]))) {
		i++
	}
	return i
}

// scanGroups reads digit groups from i, joined by one separator (' ', '-',
// '.'), by parentheses ("(206) 555-0142", "+44 (0)20"), or by ") ".
func scanGroups(s string, i int) ([]group, int) {
	var gs []group
	var sep byte
	for {
		j := i
		paren := false
		if j < len(s) && s[j] == '(' {
			paren = true
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k == j || k-j > 19 {
			break
		}
		if paren {
			if k >= len(s) || s[k] != ')' {
				break
			}
		}
		gs = append(gs, group{start: j, end: k, paren: paren, sep: sep})
		i = k
		if paren {
			i++
		}
		if i >= len(s) {
			break
		}
		// The separator to the next group.
		switch s[i] {
		case ' ', '-', '.':
			if i+1 < len(s) && (isDigit(s[i+1]) || (s[i+1] == '(' && s[i] == ' ')) {
				sep = s[i]
				i++
				continue
			}
		case '(':
			if paren {
				break
			}
			sep = ' '
			continue
		default:
			if paren && isDigit(s[i]) {
				sep = ')'
				continue
			}
		}
		break
	}
	if len(gs) == 0 {
		return nil, i
	}
	last := gs[len(gs)-1]
	end := last.end
	if last.paren {
		end++
	}
	return gs, end
}

// endsClean reports whether a candidate ending with group g (the b-th of
// groups) is not cut out of a longer token: no letter or digit right after
// it, and no joiner that the run continues past.
func endsClean(s string, g group, groups []group, b int) bool {
	e := g.end
	if g.paren {
		e++
	}
	if e >= len(s) {
		return true
	}
	c := s[e]
	if isWordByte(c) {
		return false
	}
	if b < len(groups) && groups[b].sep != ' ' {
		return false // "206-555-0142-7": part of a longer number
	}
	if (c == '-' || c == '.' || c == '/' || c == ',') && e+1 < len(s) && isDigit(s[e+1]) {
		return false // "1.2.3.4.5", "2025/01/15", "12,345"
	}
	if c == '@' {
		return false
	}
	return true
}

// matchNumber decides what digit groups gs are: an IPv4 address, a card
// number or a phone number.
func (d *Detector) matchNumber(s string, gs []group, plus bool, runStart int) (Match, bool) {
	if len(gs) == 1 && gs[0].paren && !plus {
		// "(4111111111111111)": parentheses around the value, not an area code.
		gs = []group{{start: gs[0].start, end: gs[0].end}}
	}
	start := gs[0].start
	if gs[0].paren {
		start--
	}
	if plus {
		start = runStart
	}
	last := gs[len(gs)-1]
	end := last.end
	if last.paren {
		end++
	}
	var buf [40]byte
	digits := buf[:0]
	var seps sepSet
	for k, g := range gs {
		digits = append(digits, s[g.start:g.end]...)
		if k > 0 {
			seps.add(g.sep)
		}
	}
	anyParen := slices.ContainsFunc(gs, func(g group) bool { return g.paren })
	if !plus && !anyParen {
		if d.enabled[KindIP] {
			if key, ok := ipv4(s, gs, seps); ok {
				return Match{start, end, KindIP, key}, true
			}
		}
		if d.enabled[KindCard] && isCard(s, gs, seps, digits) {
			return Match{start, end, KindCard, KindCard + ":" + string(digits)}, true
		}
	}
	if d.enabled[KindPhone] {
		if key, ok := phone(s, gs, seps, digits, plus); ok {
			return Match{start, end, KindPhone, KindPhone + ":" + key}, true
		}
	}
	return Match{}, false
}

func ipv4(s string, gs []group, seps sepSet) (string, bool) {
	if len(gs) != 4 || seps != sepDot {
		return "", false
	}
	a, err := netip.ParseAddr(s[gs[0].start:gs[3].end])
	if err != nil || !a.Is4() {
		return "", false
	}
	return KindIP + ":" + a.String(), true
}

// isCard accepts 13 to 19 digits written as one run, in groups of four
// (the last shorter), or 4-6-5 / 4-6-4 (American Express, Diners), with an
// issuer prefix and a valid Luhn check digit.
func isCard(s string, gs []group, seps sepSet, digits []byte) bool {
	n := len(digits)
	if n < 13 || n > 19 || (seps != 0 && seps != sepSpace && seps != sepDash) {
		return false
	}
	if len(gs) > 1 {
		fours := true
		for k, g := range gs {
			l := g.end - g.start
			if (k < len(gs)-1 && l != 4) || (k == len(gs)-1 && (l < 1 || l > 4)) {
				fours = false
			}
		}
		amex := len(gs) == 3 && gs[0].end-gs[0].start == 4 && gs[1].end-gs[1].start == 6 &&
			(gs[2].end-gs[2].start == 5 || gs[2].end-gs[2].start == 4)
		if !fours && !amex {
			return false
		}
	}
	return issuer(digits) && luhn(digits)
}

// issuer reports whether the number starts like a payment card's issuer
// identification number: Visa, Mastercard, American Express, Discover,
// Diners, JCB, UnionPay, Maestro.
func issuer(d []byte) bool {
	p2 := int(d[0]-'0')*10 + int(d[1]-'0')
	p4 := p2*100 + int(d[2]-'0')*10 + int(d[3]-'0')
	switch {
	case d[0] == '4': // Visa
		return true
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return len(d) == 16
	case p2 == 34 || p2 == 37: // American Express
		return len(d) == 15
	case p4 == 6011, p2 == 65, p4 >= 6440 && p4 <= 6499: // Discover
		return len(d) >= 16
	case p2 == 36 || p2 == 38 || (p4 >= 3000 && p4 <= 3059): // Diners
		return len(d) >= 14
	case p2 == 35: // JCB
		return len(d) >= 16
	case p2 == 62: // UnionPay
		return len(d) >= 16
	case p2 == 50 || (p2 >= 56 && p2 <= 58) || p2 == 63 || p2 == 67: // Maestro
		return len(d) >= 12
	}
	return false
}

func luhn(d []byte) bool {
	sum := 0
	double := false
	for k := len(d) - 1; k >= 0; k-- {
		v := int(d[k] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return sum%10 == 0
}

// phone accepts:
//   - "+" and 8 to 15 digits (E.164), in groups;
//   - North American numbers: 3-3-4 digits, optionally after a 1, with the
//     area code in parentheses or not ("(206) 555-0142", "206.555.0142"),
//     area code and exchange starting with 2-9;
//   - national numbers with a trunk 0: 10 or 11 digits in 2 to 5 groups of
//     2 to 6 ("020 7946 0958", "07700 900123", "01 23 45 67 89").
//
// Digits written as one run without a "+" are not taken: too many ids look
// like that. The key is "+" and the digits for E.164 and North American
// numbers, the digits alone for national numbers.
func phone(s string, gs []group, seps sepSet, digits []byte, plus bool) (string, bool) {
	n := len(digits)
	if plus {
		if n < 8 || n > 15 || len(gs) > 6 || (len(gs) > 1 && gs[0].end-gs[0].start > 4 && !gs[0].paren) {
			return "", false
		}
		// "+44 (0)20 ...": the trunk 0 is not dialled from abroad.
		var key []byte
		for _, g := range gs {
			if g.paren && s[g.start:g.end] == "0" {
				continue
			}
			key = append(key, s[g.start:g.end]...)
		}
		return "+" + string(key), true
	}
	if len(gs) < 2 {
		return "", false
	}
	if seps&sepDot != 0 && seps != sepDot {
		return "", false
	}
	sizes := make([]int, len(gs))
	for k, g := range gs {
		sizes[k] = g.end - g.start
	}
	for k, g := range gs {
		if g.paren && k > 1 {
			return "", false
		}
	}
	nanp := func(a int) bool {
		return len(gs)-a == 3 && sizes[a] == 3 && sizes[a+1] == 3 && sizes[a+2] == 4 &&
			digits[len(digits)-10] >= '2' && digits[len(digits)-7] >= '2' && !gs[a+1].paren && !gs[a+2].paren
	}
	switch {
	case nanp(0) && !(seps&sepDot != 0 && gs[0].paren):
		return "+1" + string(digits), true
	case len(gs) == 4 && sizes[0] == 1 && digits[0] == '1' && !gs[0].paren && nanp(1):
		return "+" + string(digits), true
	}
	if digits[0] != '0' || n < 10 || n > 11 || len(gs) > 5 || digits[1] == '0' {
		return "", false
	}
	if n := seps &^ sepParen; n != 0 && n != sepSpace && n != sepDash && n != sepDot {
		return "", false // "01-02-2025 10": a date and something else
	}
	for k, l := range sizes {
		if l < 2 || l > 6 || (gs[k].paren && k > 0) {
			return "", false
		}
	}
	return string(digits), true
}

// --- IBANs ---

// ibanLengths are the IBAN lengths of the countries that use them.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22,
	"MK": 19, "MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25,
	"QA": 29, "RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25,
	"SV": 28, "TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// findIBANs finds IBANs written compactly or in groups of four separated by
// single spaces, with their country's length and a valid mod-97 checksum.
func findIBANs(s string, ms []Match) []Match {
	for i := 0; i+4 <= len(s); i++ {
		c0, c1 := s[i], s[i+1]
		if !(c0 >= 'A' && c0 <= 'Z' && c1 >= 'A' && c1 <= 'Z' && isDigit(s[i+2]) && isDigit(s[i+3])) {
			continue
		}
		if i > 0 && isWordByte(s[i-1]) {
			continue
		}
		want, ok := ibanLengths[s[i:i+2]]
		if !ok {
			continue
		}
		compact := make([]byte, 0, 34)
		j := i
		for j < len(s) && len(compact) < want {
			c := s[j]
			switch {
			case isDigit(c) || (c >= 'A' && c <= 'Z'):
				compact = append(compact, c)
				j++
			case c == ' ' && len(compact)%4 == 0 && j+1 < len(s) && isAlnum(s[j+1]):
				j++
			default:
				goto out
			}
		}
	out:
		if len(compact) != want || (j < len(s) && isWordByte(s[j])) || !mod97(compact) {
			continue
		}
		ms = append(ms, Match{i, j, KindIBAN, KindIBAN + ":" + string(compact)})
		i = j - 1
	}
	return ms
}

// mod97 checks an IBAN's checksum (ISO 13616).
func mod97(iban []byte) bool {
	r := 0
	add := func(c byte) {
		if isDigit(c) {
			r = (r*10 + int(c-'0')) % 97
		} else {
			r = (r*100 + int(c-'A') + 10) % 97
		}
	}
	for _, c := range iban[4:] {
		add(c)
	}
	for _, c := range iban[:4] {
		add(c)
	}
	return r == 1
}

// --- IPv6 ---

func isHex(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }

// findIPv6 finds IPv6 addresses: runs of hex digits, colons and dots with at
// least two colons that parse as IPv6 (so times such as 10:30:15 and MAC
// addresses do not).
func findIPv6(s string, ms []Match) []Match {
	for i := 0; i < len(s); {
		if !(isHex(s[i]) || s[i] == ':') || (i > 0 && (isWordByte(s[i-1]) || s[i-1] == ':' || s[i-1] == '.')) {
			i++
			continue
		}
		j, colons := i, 0
		for j < len(s) && (isHex(s[j]) || s[j] == ':' || s[j] == '.') {
			if s[j] == ':' {
				colons++
			}
			j++
		}
		for j > i && (s[j-1] == '.' || (s[j-1] == ':' && (j-2 < i || s[j-2] != ':'))) {
			j--
		}
		if (colons >= 7 || (colons >= 2 && strings.Contains(s[i:j], "::"))) && (j >= len(s) || !isWordByte(s[j])) && ipv6Groups(s[i:j]) {
			if a, err := netip.ParseAddr(s[i:j]); err == nil && a.Is6() {
				ms = append(ms, Match{i, j, KindIP, KindIP + ":" + a.String()})
			}
		}
		if j <= i {
			j = i + 1
		}
		i = j
	}
	return ms
}

// ipv6Groups reports whether a candidate has at least two groups of hex
// digits ("a::" and "::" do not; "::1", the loopback address, does count).
func ipv6Groups(c string) bool {
	if c == "::1" {
		return true
	}
	n := 0
	for _, g := range strings.Split(c, ":") {
		if g != "" {
			n++
		}
	}
	return n >= 2
}
