package typecheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// leakyProgram imports a file outside the workspace whose content a type
// error quotes (a literal type), from program text at the workspace root.
func leakyProgram(t *testing.T, secret string) string {
	t.Helper()
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "secret.ts"), "export const s = \""+secret+"\";\n")
	return "import { s } from \"" + filepath.ToSlash(filepath.Join(outside, "secret")) + "\";\nlet leak: typeof s = 1;\n"
}

// noSecret fails when the secret shows in what the check returned.
func noSecret(t *testing.T, secret string, res *Result, err error) {
	t.Helper()
	out, _ := json.Marshal(res)
	if strings.Contains(string(out), secret) || err != nil && strings.Contains(err.Error(), secret) {
		t.Fatalf("the check shows what the compiler read outside the workspace: %s %v", out, err)
	}
}

// TestCheckOutputCutShowsNothing (attack): the compiler prints its
// diagnostics first and the files it read last. A program that makes it
// print more than the output the check reads (here: long property names
// that every error repeats, 30 times the program's size) cuts the list of
// files off, so that the file outside the workspace it read is not seen;
// the check must then show nothing of the compiler's output.
func TestCheckOutputCutShowsNothing(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := t.TempDir()
	const secret = "hunter2-cut"
	var b strings.Builder
	b.WriteString(leakyProgram(t, secret))
	long := strings.Repeat("a", 60000)
	want, have := "number", "string"
	for i := range 5 {
		want = fmt.Sprintf("{ p%d_%s: %s }", i, long, want)
		have = fmt.Sprintf("{ p%d_%s: %s }", i, long, have)
	}
	fmt.Fprintf(&b, "type Want = %s;\ndeclare const have: %s;\n", want, have)
	for i := range 70 { // 70 errors of 300 kB each: more than maxOutput
		fmt.Fprintf(&b, "const x%d: Want = have;\n", i)
	}
	res, err := c.Check(t.Context(), request(ws, b.String()))
	noSecret(t, secret, res, err)
	if err == nil || !strings.Contains(err.Error(), "output exceeded") {
		t.Fatalf("want the check to fail for its output's size, got %v %+v", err, res)
	}
}

// TestCheckIncompleteListingShowsNothing (attack): a compiler that ends
// before the end of its list of files (it ran out of memory, or crashed:
// Go's runtime exits with status 2 then, the status of a check with
// errors) has not said all it read; nothing of its output is shown, not
// even in the error.
func TestCheckIncompleteListingShowsNothing(t *testing.T) {
	t.Parallel()
	real := pinnedCompiler(t)
	const secret = "hunter2-partial"
	for _, tt := range []struct{ name, filter string }{
		{"no list", "grep -v '^/'"},
		{"list cut before the file outside", "grep -v -e 'secret.ts$' -e 'stdin.ts$'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			wrapper := filepath.Join(t.TempDir(), "tsc")
			// The real compiler's diagnostics, and of the files it listed
			// those the filter keeps.
			c := wrappedCompiler(t, real, wrapper, "#!/bin/sh\n'"+real.Path+"' \"$@\" | "+tt.filter+"\nexit 2\n")
			res, err := c.Check(t.Context(), request(ws, leakyProgram(t, secret)))
			noSecret(t, secret, res, err)
			if err == nil {
				t.Fatalf("want the check to fail, got %+v", res)
			}
		})
	}
}

// TestCheckMemoryIsBounded (attack): types can make the compiler take
// gigabytes well within its time limit (each alias here is a union of
// 90,000 strings, about 25 MB): its memory is limited, and a program that
// needs more fails to check, saying why, while a usual one checks under
// the same limit.
func TestCheckMemoryIsBounded(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	var bomb strings.Builder
	bomb.WriteString("type D = \"0\"|\"1\"|\"2\"|\"3\"|\"4\"|\"5\"|\"6\"|\"7\"|\"8\"|\"9\";\ntype E = \"1\"|\"2\"|\"3\"|\"4\"|\"5\"|\"6\"|\"7\"|\"8\"|\"9\";\ntype N = `${D}${D}${D}${D}`;\n")
	for i := range 12 { // about 300 MB
		fmt.Fprintf(&bomb, "type A%d = `a%d${N}${E}`; declare const a%d: A%d; const n%d: 1 = a%d;\n", i, i, i, i, i, i)
	}
	const limit = 160 << 20
	req := request(ws, bomb.String())
	req.MemoryLimit = limit
	res, err := c.Check(t.Context(), req)
	if err == nil || !strings.Contains(err.Error(), "ran out of the 160 MiB of memory") {
		t.Fatalf("want the check to fail for its memory, got %v %+v", err, res)
	}
	req = request(ws, "import { getSheet } from \"./servers/google-drive/getSheet\";\nexport default (await getSheet({ sheetId: \"abc123\" })).title;\n")
	req.MemoryLimit = limit
	if res := check(t, c, req); !res.OK {
		t.Fatalf("a usual program under the same limit: %+v", res)
	}
}

// TestCacheKeepsNoResultOfFilesThatChanged (attack): a check whose files
// change while it runs (the tree regenerated, a program saved again) must
// not leave a result that later checks take for the files as they are
// now: the compiler saw other files than those the cache would record.
func TestCacheKeepsNoResultOfFilesThatChanged(t *testing.T) {
	t.Parallel()
	real := pinnedCompiler(t)
	// wrapper runs the real compiler, and the first time the shell
	// commands before and after it.
	wrapper := func(t *testing.T, before, after string) *Compiler {
		t.Helper()
		dir := t.TempDir()
		once := filepath.Join(dir, "once")
		exe := filepath.Join(dir, "tsc")
		return wrappedCompiler(t, real, exe, "#!/bin/sh\nif [ ! -e '"+once+"' ]; then touch '"+once+"'; "+before+"; fi\n'"+real.Path+"' \"$@\"\nrc=$?\nif [ ! -e '"+once+".after' ]; then touch '"+once+".after'; "+after+"; fi\nexit $rc\n")
	}
	const program = "import { getSheet } from \"./servers/google-drive/getSheet\";\nconst title: string = (await getSheet({ sheetId: \"abc123\" })).title;\nexport default title;\n"
	t.Run("a tree file changes while the compiler runs", func(t *testing.T) {
		ws := demoWorkspace(t)
		tool := filepath.Join(ws, "servers", "google-drive", "getSheet.ts")
		c := wrapper(t, ":", "sed -i 's/title: string;/title: number;/' '"+tool+"'")
		if res := check(t, c, request(ws, program)); !res.OK {
			t.Fatalf("the first check (of the tree before the change): %+v", res)
		}
		// title is a number now: the program does not type-check.
		if res := check(t, c, request(ws, program)); res.OK || res.Cached {
			t.Fatalf("the check of the changed tree: %+v", res)
		}
	})
	t.Run("the program file changes before the compiler reads it", func(t *testing.T) {
		ws := demoWorkspace(t)
		bad := strings.Replace(program, "const title: string", "const title: number", 1)
		prog := filepath.Join(ws, "prog.ts")
		writeFile(t, prog, bad)
		// Saved again, correct, between the check's read and the compiler's.
		good := filepath.Join(t.TempDir(), "good.ts")
		writeFile(t, good, program)
		c := wrapper(t, "cp '"+good+"' '"+prog+"'", ":")
		req := request(ws, "")
		req.Source, req.Program = nil, "prog.ts"
		check(t, c, req)
		writeFile(t, prog, bad) // the wrong program again
		if res := check(t, c, req); res.OK || res.Cached {
			t.Fatalf("the check of the wrong program: %+v", res)
		}
	})
}

// TestCheckTellsNotWhetherAFileOutsideExists (attack): the compiler looks
// for what a program names anywhere; when it finds nothing it says so
// (TS2307, TS6053), when it finds a file there the check refuses. A
// program could so learn which files exist outside the workspace (the
// user's credentials files, other projects): both are the same refusal.
func TestCheckTellsNotWhetherAFileOutsideExists(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "creds.json"), `{}`)
	writeFile(t, filepath.Join(outside, "types.d.ts"), "declare const x: 1;\n")
	rel, _ := filepath.Rel(ws, outside)
	rel = filepath.ToSlash(rel)
	abs := filepath.ToSlash(outside)
	for _, tt := range []struct{ name, exists, missing string }{
		{"absolute import", `import c from "` + abs + `/creds.json";`, `import c from "` + abs + `/nothing.json";`},
		{"relative import", `import c from "./` + rel + `/creds.json";`, `import c from "./` + rel + `/nothing.json";`},
		{"import through paths", `import c from "servers/../` + rel + `/creds.json";`, `import c from "servers/../` + rel + `/nothing.json";`},
		{"import type", `type C = typeof import("` + abs + `/creds.json");`, `type C = typeof import("` + abs + `/nothing.json");`},
		{"reference path", `/// <reference path="` + abs + `/types.d.ts" />`, `/// <reference path="` + abs + `/nothing.d.ts" />`},
		{"relative reference path", `/// <reference path="./` + rel + `/types.d.ts" />`, `/// <reference path="./` + rel + `/nothing.d.ts" />`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, asFile := range []bool{false, true} {
				var shown [2]string
				for i, src := range []string{tt.exists, tt.missing} {
					src += "\nexport default 1;\n"
					req := request(ws, src)
					if asFile {
						writeFile(t, filepath.Join(ws, "probe.ts"), src)
						req.Source, req.Program = nil, "probe.ts"
					}
					res := check(t, c, req)
					out, _ := json.Marshal(res.Diagnostics)
					shown[i] = string(out)
				}
				if shown[0] != shown[1] || !strings.Contains(shown[0], "may not import") {
					t.Errorf("as a file %v: a file that exists: %s\na file that does not: %s", asFile, shown[0], shown[1])
				}
			}
		})
	}
}

// TestMessagesOfAProgramAtTheRootKeepTheirPaths: the check takes its own
// paths out of messages; for a program file at the workspace's root that
// must not take "./" out of every path the message quotes (an import
// "./servers/x" shown as "servers/x", "../x" as ".x").
func TestMessagesOfAProgramAtTheRootKeepTheirPaths(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	writeFile(t, filepath.Join(ws, "prog.ts"), "import { getSheet } from \"./servers/google-drive/getSheeet\";\nexport default getSheet;\n")
	req := request(ws, "")
	req.Source, req.Program = nil, "prog.ts"
	res := check(t, c, req)
	if len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "'./servers/google-drive/getSheeet'") {
		t.Fatalf("%+v", res.Diagnostics)
	}
}

// TestHintListsNothingOutside (attack): the hint of an import that found
// nothing lists the folder it looked in; a folder of servers/ that is a
// symbolic link out of the workspace is not listed.
func TestHintListsNothingOutside(t *testing.T) {
	t.Parallel()
	c := pinnedCompiler(t)
	ws := demoWorkspace(t)
	outside := t.TempDir()
	writeFile(t, filepath.Join(outside, "hunter2-name.ts"), "")
	if err := os.Symlink(outside, filepath.Join(ws, "servers", "linked")); err != nil {
		t.Fatal(err)
	}
	res := check(t, c, request(ws, "import { x } from \"servers/linked/nothing\";\nexport default x;\n"))
	out, _ := json.Marshal(res)
	if strings.Contains(string(out), "hunter2-name") {
		t.Fatalf("the hint lists a folder outside the workspace: %s", out)
	}
}

// TestCompilersRunAtMostFourAtOnce (attack): serve checks the programs of
// all its clients, each compiler may take DefaultMemoryLimit: a host that
// sends many programs at once must not start as many compilers. The fifth
// check waits until one of four compilers has ended. Not parallel: the
// limit is the process's.
func TestCompilersRunAtMostFourAtOnce(t *testing.T) {
	real := pinnedCompiler(t)
	dir := t.TempDir()
	release := filepath.Join(dir, "release")
	exe := filepath.Join(dir, "tsc")
	// Each compiler says it started and waits for the release.
	c := wrappedCompiler(t, real, exe, "#!/bin/sh\ntouch '"+dir+"/started.'$$\nwhile [ ! -e '"+release+"' ]; do sleep 0.01; done\nexec '"+real.Path+"' \"$@\"\n")
	started := func() int {
		m, _ := filepath.Glob(filepath.Join(dir, "started.*"))
		return len(m)
	}
	const checks = maxCompilers + 2
	done := make(chan error, checks)
	for i := range checks {
		ws := t.TempDir()
		go func() {
			res, err := c.Check(t.Context(), request(ws, fmt.Sprintf("export default %d;\n", i)))
			if err == nil && !res.OK {
				err = fmt.Errorf("%+v", res)
			}
			done <- err
		}()
	}
	for deadline := time.Now().Add(time.Minute); (started() < maxCompilers || waitingForCompiler.Load() < checks-maxCompilers) && started() <= maxCompilers; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) { // a hang guard, not a speed assertion
			t.Fatalf("%d compilers started, %d checks waiting; want %d and %d", started(), waitingForCompiler.Load(), maxCompilers, checks-maxCompilers)
		}
	}
	if n := started(); n != maxCompilers {
		t.Fatalf("%d compilers run at once, want %d", n, maxCompilers)
	}
	writeFile(t, release, "")
	for range checks {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
	if n := started(); n != checks {
		t.Errorf("%d compilers ran, want %d", n, checks)
	}
}
