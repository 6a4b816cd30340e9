package lazyregexp

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestSameAsRegexp: each method answers what regexp's does.
func TestSameAsRegexp(t *testing.T) {
	const expr = `(\w+)=(\d+)`
	const text = "a=1, bb=22; c=x, d=4"
	lazy, re := New(expr), regexp.MustCompile(expr)
	upper := func(s string) string { return strings.ToUpper(s) }
	upperB := func(b []byte) []byte { return bytes.ToUpper(b) }
	for _, tt := range []struct {
		name      string
		got, want any
	}{
		{"FindAll", lazy.FindAll([]byte(text), -1), re.FindAll([]byte(text), -1)},
		{"FindAllStringSubmatch", lazy.FindAllStringSubmatch(text, 2), re.FindAllStringSubmatch(text, 2)},
		{"FindAllStringSubmatchIndex", lazy.FindAllStringSubmatchIndex(text, -1), re.FindAllStringSubmatchIndex(text, -1)},
		{"FindStringSubmatch", lazy.FindStringSubmatch(text), re.FindStringSubmatch(text)},
		{"Match", lazy.Match([]byte("x=")), re.Match([]byte("x="))},
		{"MatchString", lazy.MatchString(text), re.MatchString(text)},
		{"ReplaceAllFunc", lazy.ReplaceAllFunc([]byte(text), upperB), re.ReplaceAllFunc([]byte(text), upperB)},
		{"ReplaceAllString", lazy.ReplaceAllString(text, "$2=$1"), re.ReplaceAllString(text, "$2=$1")},
		{"ReplaceAllStringFunc", lazy.ReplaceAllStringFunc(text, upper), re.ReplaceAllStringFunc(text, upper)},
	} {
		if !reflect.DeepEqual(tt.got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

// TestCompiledOnFirstUse: New compiles nothing (a bad expression is
// accepted), the first use compiles once, and a bad expression panics
// there, as regexp.MustCompile would have at start-up.
func TestCompiledOnFirstUse(t *testing.T) {
	bad := New(`(`)
	if bad.re != nil {
		t.Fatal("New compiled the expression")
	}
	good := New(`a+`)
	first := good.Regexp()
	if first == nil || good.Regexp() != first {
		t.Error("the expression is not compiled once and kept")
	}
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on first use")
		}
	}()
	bad.MatchString("x")
}

// TestCheckAll: CheckAll counts what New made and names an expression
// that does not compile. (It runs on a registry of its own: the other
// tests make a bad expression on purpose.)
func TestCheckAll(t *testing.T) {
	allMu.Lock()
	saved := all
	all = nil
	allMu.Unlock()
	t.Cleanup(func() {
		allMu.Lock()
		all = saved
		allMu.Unlock()
	})
	New(`a+`)
	if n, err := CheckAll(); n != 1 || err != nil {
		t.Errorf("after one good expression: %d %v, want 1 and no error", n, err)
	}
	New(`(`)
	if n, err := CheckAll(); n != 2 || err == nil || !strings.Contains(err.Error(), "missing closing )") {
		t.Errorf("with a bad expression: %d %v, want 2 and its compile error", n, err)
	}
}
