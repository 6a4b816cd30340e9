package generator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/tsc"
)

// typecheckWorkspace generates the corpus tree into <tmp>/servers and puts
// testdata/typecheck/usage.ts at <tmp>/skills/usage/usage.ts, where the
// generated tsconfig includes it. It returns the servers directory.
func typecheckWorkspace(t *testing.T) (servers, usage string) {
	t.Helper()
	plan, err := Generate(corpusServers(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	servers = filepath.Join(ws, "servers")
	writePlanFiles(t, servers, plan)
	data, err := os.ReadFile(filepath.Join("testdata", "typecheck", "usage.ts"))
	if err != nil {
		t.Fatal(err)
	}
	usage = filepath.Join(ws, "skills", "usage", "usage.ts")
	if err := os.MkdirAll(filepath.Dir(usage), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(usage, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return servers, usage
}

// TestTypeLevel checks that correct calls of the generated API type-check
// and wrong ones (each marked @ts-expect-error) are rejected.
func TestTypeLevel(t *testing.T) {
	t.Parallel()
	skipTypeCheckInShort(t)
	servers, _ := typecheckWorkspace(t)
	tsc.Check(t, servers, "-p", ".", "--strict", "--noEmit")
}

// TestTypeLevelRejects makes sure the check above has teeth: without the
// @ts-expect-error markers, tsc must report every wrong call.
func TestTypeLevelRejects(t *testing.T) {
	t.Parallel()
	skipTypeCheckInShort(t)
	servers, usage := typecheckWorkspace(t)
	data, err := os.ReadFile(usage)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Count(string(data), "// @ts-expect-error")
	if want < 8 {
		t.Fatalf("usage.ts has %d @ts-expect-error markers, want at least 8", want)
	}
	stripped := strings.ReplaceAll(string(data), "// @ts-expect-error", "// expected error:")
	if err := os.WriteFile(usage, []byte(stripped), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := tsc.Run(t, servers, "-p", ".", "--strict", "--noEmit")
	if err == nil {
		t.Fatalf("tsc accepted the wrong calls:\n%s", out)
	}
	if got := strings.Count(out, "usage.ts("); got != want {
		t.Errorf("tsc reported %d errors in usage.ts, want %d:\n%s", got, want, out)
	}
}
