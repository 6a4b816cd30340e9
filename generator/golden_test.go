package generator

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/tsc"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/schemas and testdata/tree")

// goldenCase is one testdata/schemas/<name>.json: a raw tool object whose
// generated tool file must equal <name>.ts and whose warnings must equal
// <name>.warnings (absent when there are none).
type goldenCase struct {
	name string
	raw  json.RawMessage
}

func goldenCases(t *testing.T) []goldenCase {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "schemas", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 30 {
		t.Fatalf("found %d golden cases in testdata/schemas, want at least 30", len(paths))
	}
	sort.Strings(paths)
	var cases []goldenCase
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, goldenCase{strings.TrimSuffix(filepath.Base(p), ".json"), raw})
	}
	return cases
}

// generateOne generates a one-tool server and returns the tool file and warnings.
func generateOne(t *testing.T, raw json.RawMessage) ([]byte, []Warning) {
	t.Helper()
	plan, err := Generate([]Server{{Name: "golden", Info: ServerInfo{Name: "golden-server", Version: "1.0.0"}, Tools: []json.RawMessage{raw}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var content []byte
	for _, f := range plan.Files {
		if strings.HasPrefix(f.Path, "golden/") && f.Path != "golden/index.ts" {
			if content != nil {
				t.Fatalf("more than one tool file generated")
			}
			content = f.Content
		}
	}
	if content == nil {
		t.Fatalf("no tool file generated; warnings: %v", plan.Warnings)
	}
	return content, plan.Warnings
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range goldenCases(t) {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, warnings := generateOne(t, c.raw)
			var warnText bytes.Buffer
			for _, w := range warnings {
				warnText.WriteString(w.String() + "\n")
			}
			checkGolden(t, filepath.Join("testdata", "schemas", c.name+".ts"), got)
			checkGolden(t, filepath.Join("testdata", "schemas", c.name+".warnings"), warnText.Bytes())
		})
	}
}

// checkGolden compares got with the file at path (absent means empty) or,
// with -update, rewrites it (removing it when got is empty).
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if len(got) == 0 {
			if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			return
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./generator -update to accept):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// TestGoldenTypeChecks generates every golden case afresh and type-checks
// the tool files together with tsc --strict (so a change that TestGolden
// would only show as a diff must also keep the output valid TypeScript).
func TestGoldenTypeChecks(t *testing.T) {
	t.Parallel()
	skipTypeCheckInShort(t)
	cases := goldenCases(t)
	out := filepath.Join(t.TempDir(), "servers")
	plan, err := Generate(nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	writePlanFiles(t, out, plan)
	if err := os.Mkdir(filepath.Join(out, "golden"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, _ := generateOne(t, c.raw)
		if err := os.WriteFile(filepath.Join(out, "golden", c.name+".ts"), got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tsc.Check(t, out, "-p", ".", "--strict", "--noEmit")
}
