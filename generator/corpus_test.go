package generator

import (
	"path/filepath"
	"testing"

	"github.com/mcpcode/mcpcode/internal/tsc"
)

// TestCorpusTypeChecks generates the tree of every captured real server and
// type-checks it with tsc --strict in one run.
func TestCorpusTypeChecks(t *testing.T) {
	t.Parallel()
	skipTypeCheckInShort(t)
	servers := corpusServers(t)
	plan, err := Generate(servers, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range plan.Warnings {
		t.Logf("warning: %s", w)
	}
	if got, want := len(plan.Manifest.Servers), len(servers); got != want {
		t.Fatalf("manifest lists %d servers, want %d", got, want)
	}
	out := filepath.Join(t.TempDir(), "servers")
	writePlanFiles(t, out, plan)
	tsc.Check(t, out, "-p", ".", "--strict", "--noEmit")
}
