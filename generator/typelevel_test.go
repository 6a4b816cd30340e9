package generator

import (
	"encoding/json"
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

// TestTreeTypeChecksWithLibs type-checks the corpus tree and usage.ts in the
// configurations a user's project may have, besides the generated
// tsconfig.json: the DOM lib (explicit, and as TypeScript's default when lib
// is not set) and @types/node, whose console and timers mcpcode.d.ts must
// merge with. A probe file that uses a DOM or Node global makes sure each
// configuration really loads what it claims (and the generated one does not).
func TestTreeTypeChecksWithLibs(t *testing.T) {
	t.Parallel()
	skipTypeCheckInShort(t)
	root, err := tsc.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	typeRoots := filepath.Join(root, "testdata", "npm", "node_modules", "@types")
	if _, err := os.Stat(filepath.Join(typeRoots, "node", "package.json")); err != nil {
		t.Fatalf("@types/node is not installed in testdata/npm (run make test): %v", err)
	}
	servers, _ := typecheckWorkspace(t)
	generated, err := os.ReadFile(filepath.Join(servers, "tsconfig.json"))
	if err != nil {
		t.Fatal(err)
	}
	var noLib map[string]any
	if err := json.Unmarshal(generated, &noLib); err != nil {
		t.Fatal(err)
	}
	delete(noLib["compilerOptions"].(map[string]any), "lib")
	noLibJSON, _ := json.Marshal(noLib)
	typeRootsJSON, _ := json.Marshal([]string{typeRoots})
	const domProbe, nodeProbe = "export const probe: string = document.title;\n", "export const probe: number = process.pid;\n"
	configs := []struct {
		name, config string
		probe        string
		probeOK      bool
	}{
		{"generated", string(generated), domProbe, false},
		{"lib-es2022-dom", `{"extends": "./tsconfig.json", "compilerOptions": {"lib": ["ES2022", "DOM"]}}`, domProbe, true},
		{"lib-unset", string(noLibJSON), domProbe, true},
		{"types-node", `{"extends": "./tsconfig.json", "compilerOptions": {"types": ["node"], "typeRoots": ` + string(typeRootsJSON) + `}}`, nodeProbe, true},
	}
	for _, c := range configs {
		file := "tsconfig." + c.name + ".json"
		if err := os.WriteFile(filepath.Join(servers, file), []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		probeDir := filepath.Join(servers, "..", "probe-"+c.name)
		if err := os.MkdirAll(probeDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(probeDir, "probe.ts"), []byte(c.probe), 0o644); err != nil {
			t.Fatal(err)
		}
		// The probe is compiled with mcpcode.d.ts alone: cheap, and enough to
		// show which globals the configuration declares.
		probeConfig, _ := json.Marshal(map[string]any{"extends": "./" + file, "include": []string{"mcpcode.d.ts", "../probe-" + c.name + "/*.ts"}})
		if err := os.WriteFile(filepath.Join(servers, "tsconfig."+c.name+".probe.json"), probeConfig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			tsc.Check(t, servers, "-p", "tsconfig."+c.name+".json")
			out, err := tsc.Run(t, servers, "-p", "tsconfig."+c.name+".probe.json")
			if (err == nil) != c.probeOK || (err != nil && !strings.Contains(out, "probe.ts(")) {
				t.Errorf("probe %q: tsc error %v, want the probe accepted %v:\n%s", strings.TrimSpace(c.probe), err, c.probeOK, out)
			}
		})
	}
}
