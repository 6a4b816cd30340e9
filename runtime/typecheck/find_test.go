package typecheck

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeTypeScript lays out an npm install of TypeScript 7 under dir, as npm
// does: node_modules/.bin/tsc → ../typescript/bin/tsc (the Node.js
// launcher) and the native compiler in the platform's package.
func fakeTypeScript(t *testing.T, dir string) (bin, native string) {
	t.Helper()
	nm := filepath.Join(dir, "node_modules")
	writeExe(t, filepath.Join(nm, "typescript", "bin", "tsc"), "#!/usr/bin/env node\n")
	writeFile(t, filepath.Join(nm, "typescript", "package.json"), `{"name":"typescript","version":"7.0.2"}`)
	platform := "typescript-" + nodePlatform() + "-" + nodeArch()
	native = filepath.Join(nm, "@typescript", platform, "lib", "tsc")
	writeExe(t, native, "#!/bin/sh\n")
	writeFile(t, filepath.Join(nm, "@typescript", platform, "package.json"), `{"name":"@typescript/`+platform+`","version":"7.0.2"}`)
	bin = filepath.Join(nm, ".bin", "tsc")
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../typescript/bin/tsc", bin); err != nil {
		t.Fatal(err)
	}
	return bin, native
}

func writeExe(t *testing.T, path, content string) {
	t.Helper()
	writeFile(t, path, content)
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestFindOrder: the configured compiler, else the workspace's
// node_modules, else PATH (absolute entries only); a launcher leads to the
// native compiler and its version. Nothing is started.
func TestFindOrder(t *testing.T) {
	ws := t.TempDir()
	_, wsNative := fakeTypeScript(t, ws)
	global := t.TempDir()
	writeExe(t, filepath.Join(global, "tsc"), "#!/bin/sh\n")
	configured := filepath.Join(t.TempDir(), "my-tsc")
	writeExe(t, configured, "#!/bin/sh\n")
	real := func(p string) string { r, _ := filepath.EvalSymlinks(p); return r }

	for _, tt := range []struct {
		name         string
		o            FindOptions
		path, from   string
		version      string
		wantNotFound bool
	}{
		{"configured first", FindOptions{Configured: configured, Workspace: ws, PATH: global}, real(configured), FromConfig, "", false},
		{"the workspace's node_modules", FindOptions{Workspace: ws, PATH: global}, real(wsNative), FromNodeModules, "7.0.2", false},
		{"PATH", FindOptions{Workspace: t.TempDir(), PATH: "/nonexistent" + string(filepath.ListSeparator) + global}, real(filepath.Join(global, "tsc")), FromPATH, "", false},
		{"relative PATH entries are skipped", FindOptions{Workspace: t.TempDir(), PATH: "." + string(filepath.ListSeparator) + "rel"}, "", "", "", true},
		{"nothing", FindOptions{Workspace: t.TempDir(), PATH: ""}, "", "", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.name == "relative PATH entries are skipped" {
				t.Chdir(global) // ./tsc exists here
			}
			c, err := Find(tt.o)
			if tt.wantNotFound {
				if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "npm i -D typescript@7") {
					t.Fatalf("Find = %+v, %v; want ErrNotFound with the install hint", c, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Path != tt.path || c.From != tt.from || c.Version != tt.version || c.PATH != tt.o.PATH {
				t.Errorf("Find = %+v; want path %s from %s version %q", c, tt.path, tt.from, tt.version)
			}
		})
	}
}

// TestFindConfiguredMissing: a configured compiler that is not there is an
// error that names it, not a silent fall-back to another.
func TestFindConfiguredMissing(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fakeTypeScript(t, ws)
	_, err := Find(FindOptions{Configured: filepath.Join(ws, "nope"), Workspace: ws})
	if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(ws, "nope")) || !strings.Contains(err.Error(), "npm i -D typescript@7") {
		t.Fatalf("err = %v", err)
	}
}

// TestCompilerIdentityFollowsTheExecutable: replacing the compiler (an
// upgrade) changes its identity, so cached results are not reused.
func TestCompilerIdentityFollowsTheExecutable(t *testing.T) {
	t.Parallel()
	exe := filepath.Join(t.TempDir(), "tsc")
	writeExe(t, exe, "#!/bin/sh\n")
	a, err := Find(FindOptions{Configured: exe})
	if err != nil {
		t.Fatal(err)
	}
	writeExe(t, exe, "#!/bin/sh\n# a newer one\n")
	b, err := Find(FindOptions{Configured: exe})
	if err != nil {
		t.Fatal(err)
	}
	if a.identity == b.identity {
		t.Errorf("the identity %q did not change with the executable", a.identity)
	}
}

func TestParseOutput(t *testing.T) {
	t.Parallel()
	out := "prog.ts(3,5): error TS2322: Type 'string | number' is not assignable to type 'string'.\n" +
		"  Type 'number' is not assignable to type 'string'.\n" +
		"dir (1)/x.ts(10,1): error TS2304: Cannot find name 'fetch'.\n" +
		"error TS5083: Cannot read file '/x/tsconfig.json'.\n" +
		"/usr/lib/lib.es5.d.ts\n" +
		"/ws/servers/a/b.ts\n"
	o := parseOutput([]byte(out))
	if len(o.diags) != 2 || o.diags[0].file != "prog.ts" || o.diags[0].line != 3 || o.diags[0].column != 5 || o.diags[0].code != 2322 ||
		o.diags[0].message != "Type 'string | number' is not assignable to type 'string'.\n  Type 'number' is not assignable to type 'string'." {
		t.Errorf("first diagnostic %+v", o.diags)
	}
	if o.diags[1].file != "dir (1)/x.ts" || o.diags[1].line != 10 || o.diags[1].code != 2304 {
		t.Errorf("second diagnostic %+v", o.diags[1])
	}
	if len(o.global) != 1 || o.global[0] != "Cannot read file '/x/tsconfig.json'." {
		t.Errorf("global %q", o.global)
	}
	if strings.Join(o.files, ",") != "/usr/lib/lib.es5.d.ts,/ws/servers/a/b.ts" {
		t.Errorf("files %q", o.files)
	}
}

func TestMembers(t *testing.T) {
	t.Parallel()
	src := `// generated
export interface GetThingInput {
  /** The id; see "docs" {braces} */
  id: string;
  // a line comment
  "auth-method"?: "a" | "b";
  nested?: {
    deep: number;
  };
  short: { a: string };
  list: string[]
  union:
    | "x"
    | "y"
  [key: string]: unknown;
}
interface Local { a: number, b?: string }
`
	got := interfacesOf("f.ts", []byte(src))
	if len(got) != 2 || got[0].name != "GetThingInput" || got[0].line != 2 || got[1].name != "Local" || got[1].line != 17 {
		t.Fatalf("interfaces %+v", got)
	}
	want := []string{`id: string`, `"auth-method"?: "a" | "b"`, `nested?: {…}`, `short: { a: string }`, `list: string[]`, `union: | "x" | "y"`, `[key: string]: unknown`}
	if strings.Join(got[0].members, "\n") != strings.Join(want, "\n") {
		t.Errorf("members\n%s\nwant\n%s", strings.Join(got[0].members, "\n"), strings.Join(want, "\n"))
	}
	if names := memberNames(got[0].members); strings.Join(names, ",") != "id,auth-method,nested,short,list,union" {
		t.Errorf("names %q", names)
	}
	if strings.Join(got[1].members, ";") != "a: number;b?: string" {
		t.Errorf("Local members %q", got[1].members)
	}
}

func TestSourceLineCountsLinesAsJavaScript(t *testing.T) {
	t.Parallel()
	src := []byte("one\r\ntwo\rthree\u2028four\nfive")
	for n, want := range map[int]string{1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: ""} {
		if got := sourceLine(src, n); got != want {
			t.Errorf("line %d = %q, want %q", n, got, want)
		}
	}
}

func TestExportedNames(t *testing.T) {
	t.Parallel()
	src := "export { getDocument, type GetDocumentInput } from \"./getDocument\";\nexport { a as b } from \"./a\";\nexport async function run(input: X) {}\nexport interface X {}\nexport const k = 1;\n"
	if got := strings.Join(exportedNames([]byte(src)), ","); got != "GetDocumentInput,X,b,getDocument,k,run" {
		t.Errorf("exports %s", got)
	}
}
