// Package lazyregexp holds package-level regular expressions that are
// compiled when first used instead of when the process starts.
//
// Every mcpcode process runs every package initialiser of the binary, and a
// worker process runs one program and exits: regular expressions compiled
// at start-up for commands it never runs (the type check's explanations,
// init's imports, the skills' cards) cost each run about half a
// millisecond of CPU (runtime/worker/startup.go).
package lazyregexp

import (
	"fmt"
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. Its methods are
// those of regexp.Regexp that mcpcode calls; an expression that does not
// compile panics on first use, as regexp.MustCompile does at start-up
// (CheckAll finds it in a test first).
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// all are the expressions New made in this process (CheckAll).
var (
	allMu sync.Mutex
	all   []*Regexp
)

// New returns expr, to be compiled on first use.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	allMu.Lock()
	all = append(all, r)
	allMu.Unlock()
	return r
}

// CheckAll compiles every expression New made in this process and returns
// how many there are, or the first that does not compile. A test of a
// package that links every user of this one calls it (internal/cli), so
// that a bad expression fails there rather than panicking at its first
// use in a path no test takes.
func CheckAll() (int, error) {
	allMu.Lock()
	defer allMu.Unlock()
	for _, r := range all {
		if _, err := regexp.Compile(r.expr); err != nil {
			return len(all), fmt.Errorf("lazyregexp: %w", err)
		}
	}
	return len(all), nil
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

func (r *Regexp) FindAll(b []byte, n int) [][]byte { return r.Regexp().FindAll(b, n) }

func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}

func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}

func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }

func (r *Regexp) Match(b []byte) bool { return r.Regexp().Match(b) }

func (r *Regexp) MatchString(s string) bool { return r.Regexp().MatchString(s) }

func (r *Regexp) ReplaceAllFunc(src []byte, repl func([]byte) []byte) []byte {
	return r.Regexp().ReplaceAllFunc(src, repl)
}

func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}

func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}
