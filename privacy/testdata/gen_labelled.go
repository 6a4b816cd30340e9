//go:build ignore

// gen_labelled writes labelled.jsonl, the labelled sample of the detector
// benchmark: sentences holding values of every kind, in the formats people
// write them, and look-alikes that are not such values (order ids, dates,
// times, version numbers, amounts, ids, invalid card and IBAN checksums).
// Every label comes from how the line was built, not from the detectors:
// check digits are computed here, independently of package privacy.
//
//	go run privacy/testdata/gen_labelled.go > privacy/testdata/labelled.jsonl
package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

type span struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type line struct {
	Text  string `json:"text"`
	Spans []span `json:"spans"`
	// Note says what a line without spans looks like (the look-alike).
	Note string `json:"note,omitempty"`
}

type header struct {
	// Names are known before the lines are read, as a session learns them
	// from fields such as name, firstName and lastName of tool results.
	Names []string `json:"names"`
	// FirstNames are learned from firstName fields (one word).
	FirstNames []string `json:"firstNames"`
}

var rng = rand.New(rand.NewPCG(12, 2026))

func pick[T any](xs []T) T { return xs[rng.IntN(len(xs))] }

func digits(n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(byte('0' + rng.IntN(10)))
	}
	return b.String()
}

var (
	firsts  = []string{"Maya", "Jonas", "Priya", "Tomás", "Ingrid", "Kwame", "Lucía", "Hiroshi", "Amara", "Dmitri", "Sofia", "Chen", "Fatima", "Oliver", "Zanele", "Mateus"}
	lasts   = []string{"Okafor", "Lindqvist", "Raman", "García", "Halvorsen", "Mensah", "Fernández", "Tanaka", "Eze", "Volkov", "Rossi", "Wei", "Haddad", "Brennan", "Dlamini", "Costa"}
	domains = []string{"harborview.example", "mail.example.com", "example.org", "acme-corp.co.uk", "sub.dept.example.net", "startup.io", "uni.edu", "firma.de"}
)

func email() string {
	f, l := strings.ToLower(pick(firsts)), strings.ToLower(pick(lasts))
	f = strings.NewReplacer("á", "a", "í", "i", "é", "e").Replace(f)
	l = strings.NewReplacer("á", "a", "í", "i", "é", "e").Replace(l)
	switch rng.IntN(6) {
	case 0:
		return f + "." + l + "@" + pick(domains)
	case 1:
		return f + "_" + l + fmt.Sprint(rng.IntN(99)) + "@" + pick(domains)
	case 2:
		return f[:1] + l + "+news@" + pick(domains)
	case 3:
		return strings.ToUpper(f[:1]) + f[1:] + "." + strings.ToUpper(l[:1]) + l[1:] + "@" + strings.ToUpper(pick(domains))
	case 4:
		return f + "-" + l + "@" + pick(domains)
	}
	return l + "@" + pick(domains)
}

func nanp() (string, string, string) {
	area := fmt.Sprint(2+rng.IntN(8)) + digits(2)
	exch := fmt.Sprint(2+rng.IntN(8)) + digits(2)
	return area, exch, digits(4)
}

func phone() string {
	switch rng.IntN(16) {
	case 0:
		a, e, n := nanp()
		return "(" + a + ") " + e + "-" + n
	case 1:
		a, e, n := nanp()
		return a + "-" + e + "-" + n
	case 2:
		a, e, n := nanp()
		return a + "." + e + "." + n
	case 3:
		a, e, n := nanp()
		return "+1 " + a + " " + e + " " + n
	case 4:
		a, e, n := nanp()
		return "+1-" + a + "-" + e + "-" + n
	case 5:
		a, e, n := nanp()
		return "+1" + a + e + n
	case 6:
		a, e, n := nanp()
		return "1-" + a + "-" + e + "-" + n
	case 7:
		return "+44 20 " + digits(4) + " " + digits(4)
	case 8:
		return "020 " + digits(4) + " " + digits(4)
	case 9:
		return "+44 (0)20 " + digits(4) + " " + digits(4)
	case 10:
		return "07" + digits(3) + " " + digits(6)
	case 11:
		return "+33 " + fmt.Sprint(1+rng.IntN(9)) + " " + digits(2) + " " + digits(2) + " " + digits(2) + " " + digits(2)
	case 12:
		return "0" + fmt.Sprint(1+rng.IntN(9)) + " " + digits(2) + " " + digits(2) + " " + digits(2) + " " + digits(2)
	case 13:
		return "+49 30 " + digits(8)
	case 14:
		return "+91 9" + digits(4) + " " + digits(5)
	}
	return "+49151" + digits(8)
}

func luhnDigit(body string) byte {
	sum := 0
	double := true
	for i := len(body) - 1; i >= 0; i-- {
		v := int(body[i] - '0')
		if double {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
		double = !double
	}
	return byte('0' + (10-sum%10)%10)
}

// card returns a valid number and its grouping.
func card() string {
	var prefix string
	n := 16
	group := []int{4, 4, 4, 4}
	switch rng.IntN(6) {
	case 0:
		prefix = "4"
	case 1:
		prefix = fmt.Sprint(51 + rng.IntN(5))
	case 2:
		prefix = fmt.Sprint(2221 + rng.IntN(500))
	case 3:
		prefix, n, group = pick([]string{"34", "37"}), 15, []int{4, 6, 5}
	case 4:
		prefix = "6011"
	case 5:
		prefix = "35" + fmt.Sprint(28+rng.IntN(62))
	}
	body := prefix + digits(n-1-len(prefix))
	num := body + string(luhnDigit(body))
	switch rng.IntN(3) {
	case 0:
		return num
	case 1:
		return grouped(num, group, " ")
	}
	return grouped(num, group, "-")
}

func grouped(num string, sizes []int, sep string) string {
	var parts []string
	for _, s := range sizes {
		parts = append(parts, num[:s])
		num = num[s:]
	}
	return strings.Join(parts, sep)
}

// badCard is a card-like number whose check digit is wrong.
func badCard() string {
	c := strings.NewReplacer(" ", "", "-", "").Replace(card())
	last := c[len(c)-1]
	wrong := byte('0' + (int(last-'0')+1+rng.IntN(8))%10)
	return c[:len(c)-1] + string(wrong)
}

var ibanCountries = []struct {
	cc   string
	bban func() string
}{
	{"DE", func() string { return digits(18) }},
	{"GB", func() string { return pick([]string{"WEST", "NWBK", "BARC", "MIDL"}) + digits(14) }},
	{"FR", func() string { return digits(10) + "ABC" + digits(8) + digits(2) }},
	{"NL", func() string { return pick([]string{"ABNA", "INGB", "RABO"}) + digits(10) }},
	{"ES", func() string { return digits(20) }},
	{"IT", func() string { return "X" + digits(10) + digits(12) }},
	{"BE", func() string { return digits(12) }},
	{"CH", func() string { return digits(17) }},
	{"NO", func() string { return digits(11) }},
}

func mod97(s string) int {
	r := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			r = (r*10 + int(c-'0')) % 97
		} else {
			r = (r*100 + int(c-'A'+10)) % 97
		}
	}
	return r
}

func iban() (string, string) {
	c := pick(ibanCountries)
	bban := c.bban()
	check := 98 - mod97(bban+c.cc+"00")
	compact := fmt.Sprintf("%s%02d%s", c.cc, check, bban)
	return compact, c.cc
}

func groupedIBAN(compact string) string {
	var parts []string
	for len(compact) > 4 {
		parts = append(parts, compact[:4])
		compact = compact[4:]
	}
	return strings.Join(append(parts, compact), " ")
}

func ipv4() string {
	return fmt.Sprintf("%d.%d.%d.%d", 1+rng.IntN(223), rng.IntN(256), rng.IntN(256), 1+rng.IntN(254))
}

func ipv6() string {
	switch rng.IntN(4) {
	case 0:
		return fmt.Sprintf("2001:db8::%x", 1+rng.IntN(0xfffe))
	case 1:
		return fmt.Sprintf("fe80::%x:%x:%x:%x", rng.IntN(0xffff), rng.IntN(0xffff), rng.IntN(0xffff), 1+rng.IntN(0xfffe))
	case 2:
		return fmt.Sprintf("2001:0db8:%04x:%04x:%04x:%04x:%04x:%04x", rng.IntN(0xffff), rng.IntN(0xffff), rng.IntN(0xffff), rng.IntN(0xffff), rng.IntN(0xffff), 1+rng.IntN(0xfffe))
	}
	return fmt.Sprintf("2a00:1450:%x:%x::%x", rng.IntN(0xffff), 1+rng.IntN(0xfff), 1+rng.IntN(0xfffe))
}

var templates = []string{
	"Contact: %s.",
	"please reach out to %s before Friday",
	"%s",
	"<%s>",
	"(%s)",
	"value=%s; next",
	"customer %s, order pending",
	"Sent by %s at 10:30",
	"- %s\n- another line",
	`"%s"`,
}

func main() {
	var lines []line
	add := func(kind, value string) {
		lines = append(lines, line{Text: fmt.Sprintf(pick(templates), value), Spans: []span{{kind, value}}})
	}
	neg := func(note, text string) { lines = append(lines, line{Text: text, Note: note}) }

	for range 80 {
		add("EMAIL", email())
	}
	for range 100 {
		add("PHONE", phone())
	}
	for range 60 {
		add("CARD", card())
	}
	for i := range 50 {
		c, _ := iban()
		if i%2 == 0 {
			c = groupedIBAN(c)
		}
		add("IBAN", c)
	}
	for range 40 {
		add("IP", ipv4())
	}
	for range 20 {
		add("IP", ipv6())
	}
	// Two values in one line.
	for range 20 {
		e, p := email(), phone()
		lines = append(lines, line{Text: fmt.Sprintf("%s / %s", e, p), Spans: []span{{"EMAIL", e}, {"PHONE", p}}})
	}

	// Names, learned from fields before the lines are read.
	var names []string
	seen := map[string]bool{}
	for len(names) < 40 {
		n := pick(firsts) + " " + pick(lasts)
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	firstNames := []string{"Grace", "Victor", "Rose", "Hope", "Mark"}
	nameForms := []func(string) string{
		func(n string) string { return n },
		func(n string) string { return strings.ToUpper(n) },
		func(n string) string { return strings.ToLower(n) },
	}
	nameTemplates := []string{"Dear %s,", "Meeting with %s tomorrow", "%s's order shipped", "assigned to: %s", "%s"}
	for i := range 60 {
		n := nameForms[i%3](names[i%len(names)])
		lines = append(lines, line{Text: fmt.Sprintf(pick(nameTemplates), n), Spans: []span{{"NAME", n}}})
	}
	for _, f := range firstNames {
		lines = append(lines, line{Text: "Hi " + f + ", thanks for the call", Spans: []span{{"NAME", f}}})
	}

	// Look-alikes.
	for i := range 40 {
		neg("order id", fmt.Sprintf("order ORD-%06d is %s", 100001+i*37, pick([]string{"pending", "shipped"})))
	}
	for range 30 {
		neg("date", fmt.Sprintf("due %04d-%02d-%02d", 2020+rng.IntN(8), 1+rng.IntN(12), 1+rng.IntN(28)))
	}
	for range 10 {
		neg("date", fmt.Sprintf("on %02d/%02d/%04d", 1+rng.IntN(28), 1+rng.IntN(12), 2020+rng.IntN(8)))
	}
	for range 10 {
		neg("date", fmt.Sprintf("am %02d.%02d.%04d", 1+rng.IntN(28), 1+rng.IntN(12), 2020+rng.IntN(8)))
	}
	for range 15 {
		neg("timestamp", fmt.Sprintf("at %04d-%02d-%02dT%02d:%02d:%02dZ", 2020+rng.IntN(8), 1+rng.IntN(12), 1+rng.IntN(28), rng.IntN(24), rng.IntN(60), rng.IntN(60)))
	}
	for range 10 {
		neg("time", fmt.Sprintf("started %02d:%02d:%02d", rng.IntN(24), rng.IntN(60), rng.IntN(60)))
	}
	for range 10 {
		neg("unix time", fmt.Sprintf("ts=%d", 1600000000+rng.IntN(200000000)))
	}
	for range 10 {
		neg("unix time in ms", fmt.Sprintf("created %d", 1600000000000+rng.Int64N(200000000000)))
	}
	for range 25 {
		neg("version", fmt.Sprintf("upgraded to v%d.%d.%d", rng.IntN(20), rng.IntN(40), rng.IntN(100)))
	}
	for range 10 {
		neg("version", fmt.Sprintf("release %d.%d.%d-beta.%d", rng.IntN(5), rng.IntN(20), rng.IntN(30), rng.IntN(9)))
	}
	for range 5 {
		neg("windows build", fmt.Sprintf("Windows 10.0.%d.%d", 10000+rng.IntN(20000), rng.IntN(3000)))
	}
	for range 15 {
		neg("amount", fmt.Sprintf("total $%d,%03d,%03d.%02d", 1+rng.IntN(99), rng.IntN(1000), rng.IntN(1000), rng.IntN(100)))
	}
	for range 10 {
		neg("zip+4", fmt.Sprintf("Seattle WA %05d-%04d", 10000+rng.IntN(89999), rng.IntN(10000)))
	}
	for range 10 {
		neg("ssn-shaped id", fmt.Sprintf("ref %03d-%02d-%04d", 100+rng.IntN(899), 10+rng.IntN(89), rng.IntN(10000)))
	}
	for range 20 {
		neg("invalid card checksum", "card "+badCard())
	}
	for range 10 {
		neg("16-digit id", fmt.Sprintf("tracking %s", "9"+digits(15)))
	}
	for range 15 {
		c, _ := iban()
		bad := c[:2] + fmt.Sprintf("%02d", (int(c[2]-'0')*10+int(c[3]-'0')+1+rng.IntN(90))%98+1) + c[4:]
		if mod97(bad[4:]+bad[:4]) == 1 {
			continue
		}
		neg("invalid IBAN checksum", "IBAN "+groupedIBAN(bad))
	}
	for range 10 {
		neg("uuid", fmt.Sprintf("id %08x-%04x-%04x-%04x-%012x", rng.Uint32(), rng.IntN(65536), rng.IntN(65536), rng.IntN(65536), rng.Int64N(1<<48)))
	}
	for range 10 {
		neg("hash", fmt.Sprintf("commit %016x%016x", rng.Uint64(), rng.Uint64()))
	}
	for range 10 {
		neg("mac address", fmt.Sprintf("mac %02X:%02X:%02X:%02X:%02X:%02X", rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256)))
	}
	for range 5 {
		neg("out-of-range IPv4", fmt.Sprintf("host %d.%d.%d.%d", 256+rng.IntN(700), rng.IntN(256), rng.IntN(256), rng.IntN(256)))
	}
	for range 5 {
		neg("isbn", fmt.Sprintf("ISBN 978-%d-%02d-%06d-%d", rng.IntN(10), rng.IntN(100), rng.IntN(1000000), rng.IntN(10)))
	}
	for _, s := range []string{
		"install @types/node", "ping root@localhost", "see icon@2x.png", "logo@3x.webp in assets",
		"npm i lodash@4.17.21", "user@example", "@channel please review", "a@b.c is too short",
		"port localhost:8080", "call 555-0142", "room 4.3.2", "pi is 3.14159", "score 12-10", "page 1 of 20",
		"between 100 and 200 300", "TCP 443", "Harborview Analytics signed", "meet in San Diego",
		"the grace period ends", "victory for the team", "Rosewood Drive", "hopeful results",
	} {
		neg("other", s)
	}
	// Known look-alikes that the detectors do take: kept in the sample so
	// that the precision reported counts them.
	for _, s := range []string{"firmware 4.3.2.1 released", "Mark the date", "Grace period ends Monday"} {
		neg("ambiguous", s)
	}

	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(header{Names: names, FirstNames: firstNames})
	for _, l := range lines {
		_ = enc.Encode(l)
	}
}
