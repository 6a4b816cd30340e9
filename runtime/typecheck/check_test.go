package typecheck

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/tsc"
)

// pinnedCompiler is the compiler of the tests: the pinned TypeScript 7
// found through its npm launcher (node_modules/.bin/tsc), which leads to
// the native executable.
func pinnedCompiler(t *testing.T) *Compiler {
	t.Helper()
	c, err := Find(FindOptions{Configured: tsc.Path(t)})
	if err != nil {
		t.Fatal(err)
	}
	if c.Version == "" || !strings.HasPrefix(c.Version, "7.") || filepath.Base(filepath.Dir(c.Path)) != "lib" {
		t.Fatalf("the pinned compiler is %+v, want TypeScript 7's native executable", c)
	}
	return c
}

// demoWorkspace returns a workspace holding the demo's generated tree and
// approved skill (examples/demo).
func demoWorkspace(t *testing.T) string {
	t.Helper()
	root, err := tsc.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	for _, dir := range []string{"servers", "skills"} {
		if err := os.CopyFS(filepath.Join(ws, dir), os.DirFS(filepath.Join(root, "examples", "demo", dir))); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

// request is a check of program text at the workspace root, as a run of
// stdin is.
func request(ws, src string) Request {
	return Request{Workspace: ws, Program: "stdin.ts", Source: []byte(src), Declarations: generator.RuntimeDeclarations(),
		StateDir: filepath.Join(ws, ".mcpcode", "check"), Importable: importable}
}

// importable mirrors the runtime's rule closely enough for these tests
// (internal/app passes runtime.ImportRefusal).
func importable(rel string) string {
	if !slices.Contains([]string{".ts", ".tsx", ".mts", ".js", ".mjs", ".jsx"}, path.Ext(rel)) {
		return "refused"
	}
	for _, seg := range strings.Split(rel, "/") {
		if strings.HasPrefix(seg, ".") || seg == "node_modules" || seg == "workspace" {
			return "refused"
		}
	}
	return ""
}

func check(t *testing.T, c *Compiler, req Request) *Result {
	t.Helper()
	res, err := c.Check(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestCheckFindsRealErrors: each mistake an agent makes against the tree
// is one diagnostic at the program's own line, with the compiler's message
// and a hint that names what is declared.
func TestCheckFindsRealErrors(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	const head = "import { getSheet } from \"./servers/google-drive/getSheet\";\nimport { getDocument } from \"servers/google-drive\";\n"
	for _, tt := range []struct {
		name, body string
		line, code int
		message    string
		hint       []string
	}{
		{"misspelled output property", "const s = await getSheet({ sheetId: \"abc123\" });\nconsole.log(s.rowz.length);\n", 4, 2339,
			"Property 'rowz' does not exist on type 'GetSheetOutput'",
			[]string{"did you mean 'rows'?", "GetSheetOutput (servers/google-drive/getSheet.ts:9) declares: sheetId: string; title: string; columns: string[]; rows: { [key: string]: string }[]"}},
		{"wrong argument type", "await getSheet({ sheetId: 123 });\n", 3, 2322,
			"Type 'number' is not assignable to type 'string'",
			[]string{"sheetId is declared `sheetId: string` in GetSheetInput (servers/google-drive/getSheet.ts:4)"}},
		{"missing required argument", "await getDocument({ fields: \"title\" });\n", 3, 2741,
			"Property 'documentId' is missing",
			[]string{"GetDocumentInput (servers/google-drive/getDocument.ts:4) declares: documentId: string; fields?: string"}},
		{"unknown argument", "await getDocument({ documentId: \"abc123\", feilds: \"title\" });\n", 3, 2561,
			"'feilds' does not exist in type 'GetDocumentInput'. Did you mean to write 'fields'?",
			[]string{"GetDocumentInput (servers/google-drive/getDocument.ts:4) declares"}},
		{"unknown tool import", "import { getSheets } from \"./servers/google-drive\";\nawait getSheets({ sheetId: \"abc123\" });\n", 3, 2724,
			"has no exported member named 'getSheets'. Did you mean 'getSheet'?",
			[]string{"servers/google-drive exports: GetDocumentInput, GetDocumentOutput, GetSheetInput, GetSheetOutput, ListFilesInput, ListFilesOutput, getDocument, getSheet, listFiles"}},
		{"unknown tool file", "import { getSheet as g } from \"./servers/google-drive/getSheeet\";\n", 3, 2307,
			"Cannot find module",
			[]string{"did you mean './servers/google-drive/getSheet'? servers/google-drive/ has: getDocument, getSheet, listFiles"}},
		{"unknown server", "import { x } from \"servers/google-driv/getSheet\";\n", 3, 2307,
			"Cannot find module",
			[]string{"did you mean 'servers/google-drive'?", "servers/ has: google-drive, salesforce, slack"}},
		{"no such global", "const data = await fetch(\"https://example.com\");\n", 3, 2304, "Cannot find name 'fetch'", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := check(t, c, request(ws, head+tt.body))
			if res.OK || res.Errors != 1 || len(res.Diagnostics) != 1 {
				t.Fatalf("want one error, got %+v", res)
			}
			d := res.Diagnostics[0]
			if d.File != "stdin.ts" || d.Line != tt.line || d.Code != tt.code || !strings.Contains(d.Message, tt.message) {
				t.Errorf("diagnostic %+v, want stdin.ts:%d TS%d %q", d, tt.line, tt.code, tt.message)
			}
			if want := strings.Split(head+tt.body, "\n")[tt.line-1]; d.Source != want {
				t.Errorf("source line %q, want %q", d.Source, want)
			}
			for _, h := range tt.hint {
				if !strings.Contains(d.Hint, h) {
					t.Errorf("hint %q lacks %q", d.Hint, h)
				}
			}
			if tt.hint == nil && d.Hint != "" {
				t.Errorf("unexpected hint %q", d.Hint)
			}
			if strings.Contains(d.Message, ".mcpcode") || strings.Contains(d.Hint, ".mcpcode") || strings.Contains(d.Message, ws) {
				t.Errorf("the diagnostic shows the check's own files: %+v", d)
			}
		})
	}
}

// TestCheckResolvesLikeTheBundler: every import a program may write
// resolves, from a file in a subdirectory and from text; the files checked
// are the program's imports and nothing else of the tree.
func TestCheckResolvesLikeTheBundler(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	writeFile(t, filepath.Join(ws, "lib", "util.ts"), "export function twice(n: number): number { return 2 * n; }\n")
	program := `import { getSheet } from "./servers/google-drive/getSheet";
import * as slack from "servers/slack";
import { getDocument } from "servers/google-drive/getDocument.ts";
import pendingOrders from "skills/pending-orders";
import { ToolError, callMCPTool, type ToolResult } from "mcpcode:runtime";
import { readFile, writeJSON } from "mcpcode:fs";
import { twice } from "./lib/util";
const sheet = await getSheet({ sheetId: "abc123" });
const pending = await pendingOrders({ status: "pending", limit: 2 });
const doc = await getDocument({ documentId: "abc123" });
const history = await slack.getChannelHistory({ channel: "C123456" });
const raw: ToolResult = await callMCPTool("slack", "getChannelHistory", { channel: "C1" });
try { await readFile("x.txt"); } catch (err) { if (err instanceof ToolError) console.log(err.kind); }
await writeJSON("out.json", { n: twice(sheet.rows.length), p: pending.total, t: doc.title, h: history.length, r: raw.text });
setTimeout(() => console.log("later"), 10);
export default sheet.title;
`
	res := check(t, c, request(ws, program))
	if !res.OK {
		t.Fatalf("errors: %+v", res.Diagnostics)
	}
	want := []string{"lib/util.ts", "servers/google-drive/getDocument.ts", "servers/google-drive/getSheet.ts",
		"servers/slack/getChannelHistory.ts", "servers/slack/index.ts", "servers/slack/postMessage.ts", "skills/pending-orders/index.ts"}
	if !slices.Equal(res.Files, want) {
		t.Errorf("files checked %q, want %q", res.Files, want)
	}
	// The same program as a file in a subdirectory: its relative imports
	// lead from there.
	sub := strings.ReplaceAll(strings.ReplaceAll(program, `"./servers/`, `"../servers/`), `"./lib/`, `"../lib/`)
	writeFile(t, filepath.Join(ws, "programs", "prog.ts"), sub)
	req := request(ws, "")
	req.Source, req.Program = nil, "programs/prog.ts"
	if res := check(t, c, req); !res.OK {
		t.Fatalf("as a file: %+v", res.Diagnostics)
	}
	// A skill's relative imports lead only to its own folder.
	req = request(ws, "import { twice } from \"./lib/util\";\nexport default async function f() { return twice(2); }\n")
	req.Program, req.OwnFolder = "skills/twice/index.ts", true
	res = check(t, c, req)
	if res.OK || res.Diagnostics[0].File != "skills/twice/index.ts" || res.Diagnostics[0].Code != 2307 {
		t.Fatalf("a proposed skill importing ./lib/util: %+v", res)
	}
}

// TestPlainJavaScriptPasses: a program written as JavaScript (untyped
// parameters, caught values used as anything, no annotations) passes: the
// check is for errors against the tree's types, not a style gate.
func TestPlainJavaScriptPasses(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	res := check(t, c, request(ws, `import * as gdrive from "./servers/google-drive";
function pick(rows, key) { return rows.map(r => r[key]); }
let total = 0;
const unused = 1;
async function main(input) {
  try {
    const sheet = await gdrive.getSheet({ sheetId: input.id });
    total = pick(sheet.rows, "amount").length;
  } catch (e) {
    console.log(e.message, e.code);
  }
  const x = JSON.parse("{}");
  return x.anything.goes + total;
}
export default main;
`))
	if !res.OK {
		t.Fatalf("errors: %+v", res.Diagnostics)
	}
}

// TestCheckConfinesWhatTheCompilerReads (attack): the compiler reads
// whatever a program names, anywhere: imports, /// <reference> and
// import() types. A program that makes it read a file programs may not
// import gets no diagnostic of the check but the refusal, so that nothing
// of such a file reaches the program's author.
func TestCheckConfinesWhatTheCompilerReads(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	outside := t.TempDir()
	const secret = "hunter2-secret"
	leak := "export const secret = \"" + secret + "\";\n"
	writeFile(t, filepath.Join(outside, "secret.ts"), leak)
	writeFile(t, filepath.Join(ws, "workspace", "secret.ts"), leak)
	writeFile(t, filepath.Join(ws, ".mcpcode", "secret.ts"), leak)
	writeFile(t, filepath.Join(ws, "node_modules", "leaky", "index.ts"), leak)
	writeFile(t, filepath.Join(ws, "node_modules", "leaky", "package.json"), `{"name":"leaky","types":"index.ts"}`)
	writeFile(t, filepath.Join(ws, "skills", ".proposals", "p", "index.ts"), leak)
	if err := os.Symlink(filepath.Join(outside, "secret.ts"), filepath.Join(ws, "linked.ts")); err != nil {
		t.Fatal(err)
	}
	abs := filepath.ToSlash(filepath.Join(outside, "secret"))
	rel, _ := filepath.Rel(ws, filepath.Join(outside, "secret"))
	for _, tt := range []struct{ name, src string }{
		{"absolute import", `import { secret } from "` + abs + `"; secret.foo;`},
		{"relative import out of the workspace", `import { secret } from "./` + filepath.ToSlash(rel) + `"; secret.foo;`},
		{"reference path", `/// <reference path="` + abs + `.ts" />` + "\nsecret.foo;"},
		{"import type", `type S = typeof import("` + abs + `"); const n: 1 = null as unknown as S["secret"];`},
		{"workspace files", `import { secret } from "./workspace/secret"; secret.foo;`},
		{"mcpcode's own", `import { secret } from "./.mcpcode/secret"; secret.foo;`},
		{"npm package", `import { secret } from "leaky"; secret.foo;`},
		{"proposal", `import { secret } from "skills/.proposals/p/index"; secret.foo;`},
		{"symbolic link out", `import { secret } from "./linked"; secret.foo;`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// As a file at the workspace's root, and as text (whose
			// relative imports cannot leave the workspace at all).
			writeFile(t, filepath.Join(ws, "attack.ts"), tt.src)
			asFile := request(ws, "")
			asFile.Source, asFile.Program = nil, "attack.ts"
			for i, req := range []Request{asFile, request(ws, tt.src)} {
				res := check(t, c, req)
				out, _ := json.Marshal(res)
				if strings.Contains(string(out), secret) {
					t.Fatalf("the check shows what the compiler read: %s", out)
				}
				refused := len(res.Diagnostics) == 1 && strings.Contains(res.Diagnostics[0].Message, "programs may not import")
				notFound := len(res.Diagnostics) == 1 && res.Diagnostics[0].Code == codeCannotFindModule
				if res.OK || !refused && (i == 0 || !notFound) {
					t.Fatalf("want the refusal alone, got %s", out)
				}
			}
		})
	}
	// The attack is real: the compiler itself shows the secret.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "p.ts"), `import { secret } from "`+abs+`"; secret.foo;`)
	writeFile(t, filepath.Join(dir, "tsconfig.json"), `{"compilerOptions":{"strict":true,"noEmit":true},"files":["p.ts"]}`)
	out, _ := c.run(context.Background(), dir, filepath.Join(dir, "tsconfig.json"), DefaultTimeout, DefaultMemoryLimit)
	if !strings.Contains(string(out), secret) {
		t.Fatalf("the compiler does not show the secret, so this test proves nothing:\n%s", out)
	}
}

// TestCheckIsCached: a second check of an unchanged program does not start
// the compiler; a change of the program or of a file it imports does.
func TestCheckIsCached(t *testing.T) {
	t.Parallel()
	real := pinnedCompiler(t)
	ws := demoWorkspace(t)
	starts := filepath.Join(t.TempDir(), "starts")
	wrapper := filepath.Join(t.TempDir(), "tsc")
	writeFile(t, wrapper, "#!/bin/sh\necho start >> '"+starts+"'\nexec '"+real.Path+"' \"$@\"\n")
	if err := os.Chmod(wrapper, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Find(FindOptions{Configured: wrapper})
	if err != nil {
		t.Fatal(err)
	}
	c.libDirs = real.libDirs // the wrapper's compiler reads its own lib files
	started := func() int {
		data, _ := os.ReadFile(starts)
		return strings.Count(string(data), "start")
	}
	prog := "import { getSheet } from \"./servers/google-drive/getSheet\";\nexport default (await getSheet({ sheetId: \"abc123\" })).title;\n"
	for i, step := range []struct {
		change  func()
		started int
		cached  bool
		ok      bool
	}{
		{nil, 1, false, true},
		{nil, 1, true, true},
		{func() { prog += "const n: number = \"x\";\n" }, 2, false, false},
		{nil, 2, true, false},
		{func() {
			// The tree changes under the program: title is a number now.
			f := filepath.Join(ws, "servers", "google-drive", "getSheet.ts")
			data, _ := os.ReadFile(f)
			writeFile(t, f, strings.Replace(string(data), "title: string;", "title: number;", 1))
		}, 3, false, false},
		{nil, 3, true, false},
	} {
		if step.change != nil {
			step.change()
		}
		res := check(t, c, request(ws, prog))
		if got := started(); got != step.started || res.Cached != step.cached || res.OK != step.ok {
			t.Fatalf("step %d: compiler started %d times, cached %v, ok %v; want %d, %v, %v (%+v)", i, got, res.Cached, res.OK, step.started, step.cached, step.ok, res.Diagnostics)
		}
	}
	// An import that is not found is not cached: the file may appear.
	missing := "import { x } from \"./lib/x\";\nconsole.log(x);\n"
	check(t, c, request(ws, missing))
	before := started()
	writeFile(t, filepath.Join(ws, "lib", "x.ts"), "export const x = 1;\n")
	if res := check(t, c, request(ws, missing)); !res.OK || res.Cached || started() != before+1 {
		t.Fatalf("after the missing file appeared: %+v, %d starts (was %d)", res, started(), before)
	}
}

// TestCompilerGetsNoMoreThanItNeeds: the compiler runs in the workspace
// with PATH as its only variable, no input, and writes nothing outside
// .mcpcode/check (which it leaves as it found it, but for the cache).
func TestCompilerGetsNoMoreThanItNeeds(t *testing.T) {
	real := pinnedCompiler(t)
	ws := demoWorkspace(t)
	seen := filepath.Join(t.TempDir(), "seen")
	wrapper := filepath.Join(t.TempDir(), "tsc")
	c := wrappedCompiler(t, real, wrapper, "#!/bin/sh\n{ env; echo cwd=$(pwd); cat; } > '"+seen+"'\nexec '"+real.Path+"' \"$@\"\n")
	t.Setenv("MCPCODE_TEST_SECRET", "s3cret") // in this process's environment, never the compiler's
	before := tree(t, ws)
	if res := check(t, c, request(ws, "export default 1;\n")); !res.OK {
		t.Fatalf("%+v", res)
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	wsReal, _ := filepath.EvalSymlinks(ws)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		switch {
		case line == "PATH=/usr/bin:/bin", line == "cwd="+wsReal:
		case strings.HasPrefix(line, "PWD="), strings.HasPrefix(line, "SHLVL="), line == "_=/usr/bin/env", strings.HasPrefix(line, "OLDPWD="):
			// set by the wrapper's shell itself
		default:
			t.Errorf("the compiler got %q", line)
		}
	}
	after := tree(t, ws)
	for p := range after {
		if !before[p] && !strings.HasPrefix(p, ".mcpcode/check/cache/") && p != ".mcpcode" && p != ".mcpcode/check" && p != ".mcpcode/check/cache" {
			t.Errorf("the check left %s", p)
		}
	}
}

// TestCheckRemovesStaleRunDirs: the temporary directory of a check whose
// process was killed is removed by a later check; a recent one (a check
// in progress) is not.
func TestCheckRemovesStaleRunDirs(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	req := request(ws, "export default 1;\n")
	stale, recent := filepath.Join(req.StateDir, "run-1"), filepath.Join(req.StateDir, "run-2")
	writeFile(t, filepath.Join(stale, "program", "stdin.ts"), "x")
	writeFile(t, filepath.Join(recent, "program", "stdin.ts"), "x")
	old := time.Now().Add(-2 * staleAfter)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	check(t, c, req)
	if _, err := os.Stat(stale); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the stale directory is still there (%v)", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("the recent directory was removed: %v", err)
	}
}

// tree lists the paths under dir.
func tree(t *testing.T, dir string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCheckTimesOut: a compiler that does not finish is stopped at the
// timeout, with its process group, and the check says so.
func TestCheckTimesOut(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "pid")
	hang := filepath.Join(t.TempDir(), "tsc")
	writeFile(t, hang, "#!/bin/sh\nsleep 600 &\necho $! > '"+pidFile+"'\nwait\n")
	if err := os.Chmod(hang, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Find(FindOptions{Configured: hang})
	if err != nil {
		t.Fatal(err)
	}
	req := request(ws, "export default 1;\n")
	req.Timeout = 500 * time.Millisecond
	done := make(chan error, 1)
	go func() { _, err := c.Check(context.Background(), req); done <- err }()
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("the check never returned") // a hang guard, not a speed assertion
	}
	if err == nil || !strings.Contains(err.Error(), "did not finish within 500ms") {
		t.Fatalf("error %v", err)
	}
	data, _ := os.ReadFile(pidFile)
	pid := strings.TrimSpace(string(data))
	if pid == "" {
		t.Fatal("the hanging compiler never started its child")
	}
	// The child was in the compiler's process group: it is gone too.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + pid); errors.Is(err, fs.ErrNotExist) {
			break
		}
		if stat, _ := os.ReadFile("/proc/" + pid + "/stat"); strings.Contains(string(stat), ") Z ") {
			break // a zombie waiting for init: it was killed
		}
		if time.Now().After(deadline) {
			t.Fatalf("the compiler's child %s outlived the timeout", pid)
		}
	}
}

// TestCheckBoundsDiagnostics: many errors are counted, the first
// DefaultMaxDiagnostics kept.
func TestCheckBoundsDiagnostics(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	src := strings.Repeat("{ const n: number = \"x\"; const m: string = 1; }\n", 15)
	res := check(t, c, request(ws, src))
	if res.OK || res.Errors != 30 || len(res.Diagnostics) != DefaultMaxDiagnostics {
		t.Fatalf("%d errors, %d diagnostics; want 30 and %d", res.Errors, len(res.Diagnostics), DefaultMaxDiagnostics)
	}
}

// wrappedCompiler is the pinned compiler real behind a shell script of the
// test's (script, written to exe), found as a configured compiler with
// only the system's PATH, and reading real's TypeScript libraries.
func wrappedCompiler(t *testing.T, real *Compiler, exe, script string) *Compiler {
	t.Helper()
	writeFile(t, exe, script)
	if err := os.Chmod(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	c, err := Find(FindOptions{Configured: exe, PATH: "/usr/bin:/bin"})
	if err != nil {
		t.Fatal(err)
	}
	c.libDirs = real.libDirs
	return c
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
