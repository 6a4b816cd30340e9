package privacy

import (
	"fmt"
	"strings"
	"testing"
)

// found lists what Find returns as "KIND:text" items.
func found(t *testing.T, d *Detector, x *NameIndex, s string) string {
	t.Helper()
	var out []string
	for _, m := range d.Find(s, x) {
		out = append(out, m.Kind+":"+s[m.Start:m.End])
	}
	return strings.Join(out, " | ")
}

func TestFind(t *testing.T) {
	d, err := NewDetector(nil, []Pattern{{Kind: "EMPLOYEE_ID", Regexp: `\bEMP-[0-9]{6}\b`}})
	if err != nil {
		t.Fatal(err)
	}
	x := NewNameIndex()
	x.Add("Maya J. Okafor", 2)
	x.Add("Jonas Lindqvist", 2)
	x.Add("Park", 1)
	for _, c := range []struct{ in, want string }{
		// emails
		{"write to maya.okafor@harborview.example today", "EMAIL:maya.okafor@harborview.example"},
		{"mailto:J.Doe+news@Mail.Example.COM.", "EMAIL:J.Doe+news@Mail.Example.COM"},
		{"@types/node and icon@2x.png and root@localhost", ""},
		// phones
		{"call (206) 555-0142 now", "PHONE:(206) 555-0142"},
		{"+44 (0)20 7946 0958", "PHONE:+44 (0)20 7946 0958"},
		{"tel:+12065550142", "PHONE:+12065550142"},
		{"01 23 45 67 89", "PHONE:01 23 45 67 89"},
		{"2065550142 and 555-0142", ""},
		{"ORD-100001 on 2025-01-15 at 10:30:15, v1.2.3, $1,234,567.89, 98101-1234", ""},
		{"206-555-0142-7", ""},
		// cards
		{"card 4111 1111 1111 1111 exp", "CARD:4111 1111 1111 1111"},
		{"amex 3782-822463-10005", "CARD:3782-822463-10005"},
		{"4111 1111 1111 1112", ""},
		{"ts 1736928000000", ""},
		// IBANs
		{"IBAN GB82 WEST 1234 5698 7654 32.", "IBAN:GB82 WEST 1234 5698 7654 32"},
		{"DE89370400440532013000", "IBAN:DE89370400440532013000"},
		{"GB83 WEST 1234 5698 7654 32", ""},
		// IPs
		{"from 192.168.1.20:8080", "IP:192.168.1.20"},
		{"v6 2001:db8::8a2e:370:7334 and ::1", "IP:2001:db8::8a2e:370:7334 | IP:::1"},
		{"1.2.3.4.5 and 256.1.1.1 and 10.0.19041.1 and 00:1A:2B:3C:4D:5E and 12:30:45", ""},
		// names
		{"Dear Maya J. Okafor, and MAYA J. OKAFOR", "NAME:Maya J. Okafor | NAME:MAYA J. OKAFOR"},
		{"jonas lindqvist's notes; Jonas Lindqvistson", "NAME:jonas lindqvist"},
		{"Park the car in the park", "NAME:Park"},
		// custom patterns
		{"employee EMP-004211 left", "EMPLOYEE_ID:EMP-004211"},
		// several
		{"Jonas Lindqvist <jonas@x.example>, +1 206 555 0142", "NAME:Jonas Lindqvist | EMAIL:jonas@x.example | PHONE:+1 206 555 0142"},
	} {
		if got := found(t, d, x, c.in); got != c.want {
			t.Errorf("Find(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestKeysNormalize(t *testing.T) {
	d, _ := NewDetector(nil, nil)
	key := func(s string) string {
		ms := d.Find(s, nil)
		if len(ms) != 1 {
			t.Fatalf("Find(%q) = %v, want one match", s, ms)
		}
		return ms[0].Key
	}
	for _, same := range [][]string{
		{"Maya@Example.COM", "maya@example.com"},
		{"(206) 555-0142", "206.555.0142", "+1 206 555 0142", "1-206-555-0142"},
		{"4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111"},
		{"GB82 WEST 1234 5698 7654 32", "GB82WEST12345698765432"},
		{"2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"},
	} {
		for _, s := range same[1:] {
			if key(s) != key(same[0]) {
				t.Errorf("%q and %q have different keys: %s, %s", same[0], s, key(same[0]), key(s))
			}
		}
	}
}

func TestNewDetectorErrors(t *testing.T) {
	for _, c := range []struct {
		kinds    []string
		patterns []Pattern
		want     string
	}{
		{[]string{"SSN"}, nil, `unknown detector "SSN"`},
		{nil, []Pattern{{"lower", "x"}}, `pattern kind "lower"`},
		{nil, []Pattern{{"EMAIL", "x"}}, "is a built-in kind"},
		{nil, []Pattern{{"X", "("}}, "pattern X: error parsing regexp"},
		{nil, []Pattern{{"X", "a*"}}, "matches the empty string"},
	} {
		_, err := NewDetector(c.kinds, c.patterns)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewDetector(%v, %v) = %v, want %q", c.kinds, c.patterns, err, c.want)
		}
	}
}

func TestDisabledKinds(t *testing.T) {
	d, err := NewDetector([]string{KindEmail}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := found(t, d, nil, "a@b.example (206) 555-0142 10.0.0.1"); got != "EMAIL:a@b.example" {
		t.Errorf("only emails were asked for, got %q", got)
	}
}

func TestNameShape(t *testing.T) {
	x := NewNameIndex()
	for _, c := range []struct {
		name     string
		minWords int
		ok       bool
	}{
		{"Maya Okafor", 2, true},
		{"Lucía Fernández", 2, true},
		{"Seán O'Brien-Murphy", 2, true},
		{"Maya", 2, false},
		{"Maya", 1, true},
		{"general", 1, false},
		{"maya okafor", 2, false},
		{"Order 12", 2, false},
		{"A", 1, false},
		{"One Two Three Four Five Six", 2, false},
	} {
		if _, ok := x.Add(c.name, c.minWords); ok != c.ok {
			t.Errorf("Add(%q, %d) = %v, want %v", c.name, c.minWords, ok, c.ok)
		}
	}
}

// FuzzFind: any text, never a panic, matches inside the text, sorted and
// not overlapping, and each match found again on its own.
func FuzzFind(f *testing.F) {
	for _, s := range []string{"a@b.example (206) 555-0142", "+44 (0)20 7946 0958", "GB82 WEST 1234 5698 7654 32", "2001:db8::1", "((((", "+(", "Maya Okafor's", "1.2.3.4.5"} {
		f.Add(s)
	}
	d, _ := NewDetector(nil, nil)
	x := NewNameIndex()
	x.Add("Maya Okafor", 2)
	f.Fuzz(func(t *testing.T, s string) {
		end := 0
		for _, m := range d.Find(s, x) {
			if m.Start < end || m.End <= m.Start || m.End > len(s) {
				t.Fatalf("bad match %+v in %q", m, s)
			}
			end = m.End
			v := s[m.Start:m.End]
			again := d.Find(v, x)
			if len(again) != 1 || again[0].Key != m.Key {
				t.Fatalf("%q found in %q as %s, alone as %v", v, s, m.Key, again)
			}
		}
	})
}

func ExampleDetector_Find() {
	d, _ := NewDetector(nil, nil)
	s := "Reach Maya at maya@harborview.example or (206) 555-0142."
	for _, m := range d.Find(s, nil) {
		fmt.Println(m.Kind, s[m.Start:m.End])
	}
	// Output:
	// EMAIL maya@harborview.example
	// PHONE (206) 555-0142
}
