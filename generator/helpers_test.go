package generator

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// corpusServers loads testdata/corpus: one server per <name>.json (the
// tools array of a real server), with the package and version from INDEX.md.
func corpusServers(t testing.TB) []Server {
	t.Helper()
	versions := corpusVersions(t)
	paths, err := filepath.Glob(filepath.Join("testdata", "corpus", "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus files in testdata/corpus (err %v)", err)
	}
	sort.Strings(paths)
	var servers []Server
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var tools []json.RawMessage
		if err := json.Unmarshal(data, &tools); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		info := versions[name]
		servers = append(servers, Server{Name: name, Info: info, Tools: tools})
	}
	return servers
}

var indexRow = regexp.MustCompile("^\\| ([a-z0-9-]+)\\.json \\| (@?[^@|]+)@([^ |]+) \\| ")

func corpusVersions(t testing.TB) map[string]ServerInfo {
	f, err := os.Open(filepath.Join("testdata", "corpus", "INDEX.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]ServerInfo{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := indexRow.FindStringSubmatch(sc.Text()); m != nil {
			out[m[1]] = ServerInfo{Name: m[2], Version: m[3]}
		}
	}
	return out
}

// writePlanFiles writes a plan's files under dir directly (no writer), for
// type-checking.
func writePlanFiles(t testing.TB, dir string, plan *Plan) {
	t.Helper()
	for _, f := range plan.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// skipTypeCheckInShort skips a test that runs tsc when go test runs with
// -short: that fast tier has no npm, so no tsc. Without -short (make test)
// the test runs, and tsc.Path fails it loudly when tsc is missing.
func skipTypeCheckInShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("skipped under -short: it type-checks with the pinned tsc from npm; run make test for the full tier")
	}
}
