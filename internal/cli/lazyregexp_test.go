package cli

import (
	"testing"

	"github.com/mcpcode/mcpcode/internal/lazyregexp"
)

// TestEveryLazyRegexpCompiles: the regular expressions that packages keep
// for first use (internal/lazyregexp) all compile. This test binary links
// every package the mcpcode binary does, so a bad expression fails here
// instead of panicking at its first use in a path no test takes.
func TestEveryLazyRegexpCompiles(t *testing.T) {
	t.Parallel()
	n, err := lazyregexp.CheckAll()
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no expression was registered: the packages that use lazyregexp are not linked, or New no longer registers")
	}
}
