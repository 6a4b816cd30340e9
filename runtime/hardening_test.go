package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// resultString decodes a run's result as a string.
func resultString(t *testing.T, res *Result) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(res.Result, &s); err != nil {
		t.Fatalf("result %s is not a string: %v", res.Result, err)
	}
	return s
}

func TestOutputIsBounded(t *testing.T) {
	t.Run("a flood of empty log lines", func(t *testing.T) {
		res := runSource(t, `for (let i = 0; i < 20000; i++) console.log();`, RunOptions{Limits: Limits{MaxOutput: 100}})
		mustOK(t, res)
		if len(res.Logs) != 101 || res.LogsOmitted != 20000-100 {
			t.Fatalf("kept %d entries, omitted %d; want 100 entries and the marker, 19900 omitted", len(res.Logs), res.LogsOmitted)
		}
		if last := res.Logs[100].Text; !strings.Contains(last, "19900 characters of output omitted") {
			t.Errorf("last log = %q, want the omitted marker", last)
		}
	})
	t.Run("a result over 4 MiB", func(t *testing.T) {
		res := runSource(t, `export default "x".repeat(4 * 1024 * 1024 + 1);`, RunOptions{})
		if res.OK || res.Error == nil || res.Error.Kind != KindLimit || res.Error.Limit != LimitResultSize {
			t.Fatalf("error = %+v, want the output limit", res.Error)
		}
		if !strings.Contains(res.Error.Message, "the program's result is 4.0 MiB of JSON, over the limit of 4 MiB: return less") || string(res.Result) != "null" {
			t.Errorf("error = %q, result %.40s", res.Error.Message, res.Result)
		}
	})
	t.Run("a long error message and stack", func(t *testing.T) {
		res := runSource(t, `function deep(n: number): never { if (n === 0) throw new Error("m".repeat(100000)); return deep(n - 1); }
deep(500);`, RunOptions{})
		if res.Error == nil || len(res.Error.Message) > maxErrorText+100 || len(res.Error.Stack) > maxErrorText+100 {
			t.Fatalf("error message %d bytes, stack %d bytes; want both cut to about %d", len(res.Error.Message), len(res.Error.Stack), maxErrorText)
		}
		if !strings.HasPrefix(res.Error.Message, "Error: mmm") || !strings.Contains(res.Error.Message, "more bytes omitted]") {
			t.Errorf("message = %.80q...%q", res.Error.Message, res.Error.Message[len(res.Error.Message)-60:])
		}
	})
}

func TestTruncateTextKeepsCharacters(t *testing.T) {
	s := strings.Repeat("é", 10) // 2 bytes each
	got := truncateText(s, 5)
	if !strings.HasPrefix(got, "éé...") || !strings.Contains(got, "[mcpcode: 16 more bytes omitted]") {
		t.Errorf("truncateText = %q", got)
	}
}

// skillWorkspace is the fixture with a skill "notes" that tries every file
// function, reporting each outcome.
func skillWorkspace(t *testing.T, extra map[string]string) string {
	files := map[string]string{
		"skills/notes/index.ts": `import * as fs from "mcpcode:fs";
export default async function notes(): Promise<string[]> {
  const out: string[] = ["read " + (await fs.readFile("notes.txt")).length, "exists " + (await fs.exists("notes.txt"))];
  const ops: [string, () => Promise<unknown>][] = [
    ["writeFile", () => fs.writeFile("w.txt", "x")],
    ["appendFile", () => fs.appendFile("notes.txt", "x")],
    ["writeJSON", () => fs.writeJSON("j.json", { a: 1 })],
    ["rm", () => fs.rm("notes.txt")],
  ];
  for (const [name, op] of ops) {
    try { await op(); out.push(name + " ok"); } catch (e: any) { out.push(name + " " + e.kind + ": " + e.message); }
  }
  out.push(String(fs.writeFile).includes("__mcpcode_") ? "host name leaked" : "no host name");
  return out;
}`,
		"skills/writer/index.ts": `import notes from "skills/notes"; export default () => notes();`,
	}
	for k, v := range extra {
		files[k] = v
	}
	return newWorkspace(t, files)
}

func TestSkillFilePermissions(t *testing.T) {
	denied := func(skill, op, path string) string {
		return op + ` permission: skill "` + skill + `" may not ` + op + `("` + path + `"): skills may only read workspace files unless their SKILL.md grants write (approve with --allow-write)`
	}
	tests := []struct {
		name   string
		policy fakePolicy
		src    string
		want   []string
		intact bool // notes.txt is unchanged
	}{
		{
			name:   "read-only skill",
			policy: fakePolicy{"notes": {}},
			src:    `import notes from "skills/notes"; export default await notes();`,
			want: []string{"read 21", "exists true", denied("notes", "writeFile", "w.txt"), denied("notes", "appendFile", "notes.txt"),
				denied("notes", "writeJSON", "j.json"), denied("notes", "rm", "notes.txt"), "no host name"},
			intact: true,
		},
		{
			name:   "skill granted write",
			policy: fakePolicy{"notes": {Write: true}},
			src:    `import notes from "skills/notes"; export default await notes();`,
			want:   []string{"read 21", "exists true", "writeFile ok", "appendFile ok", "writeJSON ok", "rm ok", "no host name"},
		},
		{
			name:   "nested under a skill without write",
			policy: fakePolicy{"notes": {Write: true}, "writer": {}},
			src:    `import writer from "skills/writer"; export default await writer();`,
			want: []string{"read 21", "exists true",
				`writeFile permission: skill "notes" may not writeFile("w.txt"): skills may only read workspace files, and not every skill it runs under (notes, writer) grants write in its SKILL.md (approve with --allow-write)`},
			intact: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := skillWorkspace(t, nil)
			p, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(tt.src), Skills: tt.policy})
			if err != nil {
				t.Fatal(err)
			}
			res := Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller()})
			mustOK(t, res)
			var got []string
			if err := json.Unmarshal(res.Result, &got); err != nil {
				t.Fatal(err)
			}
			if len(got) < len(tt.want) || strings.Join(got[:len(tt.want)], "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("outcomes:\n%s\nwant (prefix):\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			data, err := os.ReadFile(filepath.Join(ws, "workspace", "notes.txt"))
			if intact := err == nil && string(data) == "hello from workspace\n"; intact != tt.intact {
				t.Errorf("notes.txt intact = %v (%q, %v), want %v", intact, data, err, tt.intact)
			}
		})
	}
}

func TestSkillFileWriteDeniedUncaught(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"skills/cleaner/index.ts": `import { rm } from "mcpcode:fs"; export default () => rm("notes.txt");`})
	p, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(`import clean from "skills/cleaner"; await clean();`), Skills: fakePolicy{"cleaner": {}}})
	if err != nil {
		t.Fatal(err)
	}
	res := Run(t.Context(), p, RunOptions{Workspace: ws})
	if res.Error == nil || res.Error.Kind != KindPermission || !strings.Contains(res.Error.Message, `skill "cleaner" may not rm("notes.txt")`) {
		t.Fatalf("error = %+v, want a permission error", res.Error)
	}
	if _, err := os.Stat(filepath.Join(ws, "workspace", "notes.txt")); err != nil {
		t.Errorf("notes.txt was removed: %v", err)
	}
}

// TestNothingStartsAfterTheRunFinished: code that runs while the result or
// the error is read (toJSON, getters, a Proxy's traps) starts nothing.
//
// A tool call let through at that point would reach the caller from its own
// goroutine, after Run returned: the test waits, through the run's hooks,
// until every call goroutine is done with the caller before it counts the
// calls that reached it.
func TestNothingStartsAfterTheRunFinished(t *testing.T) {
	const write = `callMCPTool("salesforce", "updateRecord", { objectType: "O", recordId: "1", data: {} })`
	tests := []struct {
		name, src string
		kind, msg string // the error, or "" with msg a substring of the result
		// late: the case's code runs after the run finished and calls
		// callMCPTool there (the others start a timer or a file write, or
		// their code must not run at all).
		late bool
	}{
		{name: "tool call from toJSON", src: `export default { toJSON() { ` + write + `; return "r"; } };`, msg: `"r"`, late: true},
		{name: "tool call from a getter of the result", src: `export default { get x() { ` + write + `; return 1; } };`, msg: `{"x":1}`, late: true},
		{name: "timer from toJSON", src: `export default { toJSON() { setTimeout(() => ` + write + `, 1); return "r"; } };`,
			kind: KindRuntime, msg: "setTimeout: the run has finished, so nothing new can start"},
		{name: "file write from toJSON", src: `import { writeFile } from "mcpcode:fs"; export default { toJSON() { writeFile("late.txt", "x"); return "r"; } };`, msg: `"r"`},
		// The stack getter is defined first: goja builds an Error's stack
		// lazily, and redefining "stack" after the message getter would read
		// the message (and start the call) while the program still runs.
		{name: "getters of a thrown error", src: `const e = new Error("plain");
Object.defineProperty(e, "stack", { get() { ` + write + `; return "x"; } });
Object.defineProperty(e, "message", { get() { ` + write + `; return "from getter"; } });
throw e;`, kind: KindRuntime, msg: "Error: "},
		{name: "getter of a rejected value's name", src: `class E extends Error { get name() { ` + write + `; return "E"; } }
await Promise.reject(new E("m"));`, kind: KindRuntime, msg: "Error: m", late: true},
		{name: "a thrown Proxy", src: `throw new Proxy({}, { get() { ` + write + `; return "x"; }, getOwnPropertyDescriptor() { ` + write + `; return undefined; } });`,
			kind: KindRuntime, msg: "uncaught Proxy object (not inspected)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			fc := newFakeCaller()
			var lateAttempts atomic.Int32
			var callGoroutines sync.WaitGroup
			hooks := &runHooks{
				callAttempt: func(finished bool) {
					if finished {
						lateAttempts.Add(1)
					}
				},
				calls: &callGoroutines,
			}
			src := `import { callMCPTool } from "mcpcode:runtime";` + "\n" + tt.src
			res := runSource(t, src, RunOptions{Workspace: ws, Caller: fc, hooks: hooks})
			waitGuarded(t, &callGoroutines, "the tool-call goroutines")
			if tt.late && lateAttempts.Load() == 0 {
				t.Error("the program called no tool after the run finished: the case tests nothing")
			}
			if tt.kind == "" {
				mustOK(t, res)
				if !strings.Contains(string(res.Result), tt.msg) {
					t.Errorf("result = %s, want %s", res.Result, tt.msg)
				}
			} else if res.Error == nil || res.Error.Kind != tt.kind || !strings.Contains(res.Error.Message, tt.msg) {
				t.Errorf("error = %+v, want %s containing %q", res.Error, tt.kind, tt.msg)
			}
			if n := countCalls(fc, "salesforce", "updateRecord"); n != 0 {
				t.Errorf("updateRecord reached upstream %d times after the run finished", n)
			}
			if _, err := os.Stat(filepath.Join(ws, "workspace", "late.txt")); err == nil {
				t.Error("a file was written after the run finished")
			}
		})
	}
}

// waitGuarded waits for wg, failing the test if it takes longer than the
// hang guard.
func waitGuarded(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(guard):
		t.Fatalf("%s did not end within %s", what, guard)
	}
}

// TestErrorKindsCannotBeFaked: only errors the host created report a kind
// other than "runtime".
func TestErrorKindsCannotBeFaked(t *testing.T) {
	tests := []struct {
		name, src, kind, msg string
	}{
		{name: "constructed ToolError", src: `import { ToolError } from "mcpcode:runtime"; throw new ToolError("fake", "permission", "s", "t");`,
			kind: KindRuntime, msg: "ToolError: fake"},
		{name: "constructed limit", src: `import { ToolError } from "mcpcode:runtime"; throw new ToolError("fake", "limit", "s", "t");`,
			kind: KindRuntime, msg: "ToolError: fake"},
		{name: "kind changed on a real ToolError", src: `import { getDocument } from "servers/google-drive/getDocument";
try { await getDocument({ documentId: "missing" }); } catch (e: any) { e.kind = "permission"; throw e; }`, kind: KindTool, msg: "document missing not found"},
		{name: "real ToolError rethrown", src: `import { callMCPTool } from "mcpcode:runtime";
try { await callMCPTool("jira", "x", {}); } catch (e) { throw e; }`, kind: KindValidation, msg: `unknown server "jira"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSource(t, tt.src, RunOptions{})
			if res.Error == nil || res.Error.Kind != tt.kind || res.Error.Limit != "" || !strings.Contains(res.Error.Message, tt.msg) {
				t.Errorf("error = %+v, want kind %s with %q", res.Error, tt.kind, tt.msg)
			}
		})
	}
}

func TestCallArgumentsAreChecked(t *testing.T) {
	tests := []struct {
		name, call, want string
	}{
		{name: "an array", call: `callMCPTool("slack", "getDeployment", [1] as any)`,
			want: "returned: validation: invalid arguments for slack.getDeployment (nothing was sent): /: the arguments must be an object"},
		{name: "a date", call: `callMCPTool("slack", "getDeployment", new Date(0) as any)`,
			want: "returned: validation: invalid arguments for slack.getDeployment (nothing was sent): /: the arguments must be an object (got a Date)"},
		{name: "revoked Proxy as arguments", call: `callMCPTool("slack", "getDeployment", revoked())`,
			want: "returned: validation: invalid arguments for slack.getDeployment (nothing was sent): /: the arguments are a Proxy, whose traps mcpcode does not run: pass a plain object"},
		{name: "a getter", call: `callMCPTool("slack", "getDeployment", { get id() { return "x"; } } as any)`,
			want: "returned: validation: invalid arguments for slack.getDeployment (nothing was sent): /id: a getter or setter, which mcpcode does not run: pass plain data"},
		{name: "a cycle", call: `callMCPTool("slack", "getDeployment", (() => { const o: any = { a: [1] }; o.a.push(o); return o; })())`,
			want: "returned: validation: invalid arguments for slack.getDeployment (nothing was sent): /a/1: the value contains itself (a cycle), which JSON cannot hold"},
		{name: "a BigInt", call: `callMCPTool("slack", "getDeployment", { n: 1n } as any)`,
			want: "returned: validation: invalid arguments for slack.getDeployment (nothing was sent): /n: a BigInt has no JSON form: convert it with String() or Number()"},
		{name: "revoked Proxy as the server", call: `callMCPTool(revoked() as any, "getDeployment", {})`,
			want: "returned: validation: callMCPTool(server, tool, args): server and tool must be strings"},
		{name: "revoked Proxy as the tool", call: `callMCPTool("slack", revoked() as any, {})`,
			want: "returned: validation: callMCPTool(server, tool, args): server and tool must be strings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCaller()
			src := `import { callMCPTool } from "mcpcode:runtime";
function revoked(): any { const r = Proxy.revocable({}, {}); r.revoke(); return r.proxy; }
let out = "";
try { const p = ` + tt.call + `; out = "returned"; await p; } catch (e: any) { out += ": " + e.kind + ": " + e.message; }
export default out;`
			res := runSource(t, src, RunOptions{Caller: fc})
			mustOK(t, res)
			if got := resultString(t, res); got != tt.want {
				t.Errorf("outcome = %q\nwant      %q", got, tt.want)
			}
			if n := len(fc.Calls()); n != 0 {
				t.Errorf("%d calls reached upstream", n)
			}
		})
	}
}

func TestTimerDelaysOutOfRange(t *testing.T) {
	for _, delay := range []string{"Infinity", "2 ** 31", "1e300", "-5", "NaN", "0"} {
		t.Run(delay, func(t *testing.T) {
			res := runSource(t, `await new Promise((r) => setTimeout(r, `+delay+`)); export default "fired";`, RunOptions{Limits: Limits{Timeout: 2 * time.Second}})
			mustOK(t, res)
			if string(res.Result) != `"fired"` {
				t.Errorf("result = %s", res.Result)
			}
		})
	}
}

func TestDefaultExportThenables(t *testing.T) {
	tests := []struct {
		name, src, want, errMsg string
	}{
		{name: "thenable", src: `export default { then(r: any) { r(42); } };`, want: `42`},
		{name: "async function returning a thenable", src: `export default async () => ({ then(r: any) { r("later"); } });`, want: `"later"`},
		{name: "thenable resolving to a thenable", src: `export default { then(r: any) { r({ then(r2: any) { r2([1, 2]); } }); } };`, want: `[1,2]`},
		{name: "rejecting thenable", src: `export default { then(_: any, j: any) { j(new Error("no")); } };`, errMsg: "Error: no"},
		{name: "object with a then that is not a function", src: `export default { then: 1, x: 2 };`, want: `{"then":1,"x":2}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSource(t, tt.src, RunOptions{Limits: Limits{Timeout: 5 * time.Second}})
			if tt.errMsg != "" {
				if res.Error == nil || res.Error.Kind != KindRuntime || res.Error.Message != tt.errMsg {
					t.Errorf("error = %+v, want %q", res.Error, tt.errMsg)
				}
				return
			}
			mustOK(t, res)
			if string(res.Result) != tt.want {
				t.Errorf("result = %s, want %s", res.Result, tt.want)
			}
		})
	}
}

// TestResultGettersRunOnce: telling a promise from another result must not
// export (and so read) the whole value.
func TestResultGettersRunOnce(t *testing.T) {
	res := runSource(t, `export default { get x() { console.log("getter"); return 1; } };`, RunOptions{})
	mustOK(t, res)
	if got := logText(res); got != "getter" {
		t.Errorf("logs = %q, want the getter to run once (for JSON)", got)
	}
}

func TestDeeplyNestedResult(t *testing.T) {
	const src = `let v: any = 1; for (let i = 0; i < 10001; i++) v = [v]; export default v;`
	const msg = "the program's result cannot be returned: its JSON nests more than 10000 levels deep: return a flatter value"
	check := func(t *testing.T, res *Result) {
		t.Helper()
		if res.Error == nil || res.Error.Kind != KindRuntime || res.Error.Message != msg {
			t.Fatalf("error = %+v, want %q", res.Error, msg)
		}
		if _, err := json.Marshal(res); err != nil {
			t.Errorf("the Result cannot be encoded: %v", err)
		}
	}
	// runtime/worker's TestWorkerDeeplyNestedResult checks the same in a
	// worker process.
	t.Run("in process", func(t *testing.T) { check(t, runSource(t, src, RunOptions{})) })
}

func TestWorkspaceQuotaChargesEntries(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{name: "many empty files", src: `let n = 0;
try { for (; n < 1000; n++) await fs.writeFile("e" + n + ".txt", ""); out = "no quota error"; } catch (e: any) { out = n + " " + e.message; }`,
			want: `16 writeFile("e16.txt"): workspace write quota of 64 KiB exceeded (--fs-quota)`},
		{name: "deep directories", src: `try { await fs.writeFile("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q.txt", ""); } catch (e: any) { out = e.message; }`,
			want: `writeFile("a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q.txt"): workspace write quota of 64 KiB exceeded (--fs-quota)`},
		{name: "rewriting a file costs its bytes only", src: `for (let i = 0; i < 100; i++) await fs.writeFile("same.txt", "x"); out = "ok";`, want: "ok"},
		{name: "too many segments", src: `try { await fs.writeFile("a/".repeat(32) + "x.txt", ""); } catch (e: any) { out = e.message; }`,
			want: `has 33 segments, more than 32: use a flatter layout`},
		{name: "too long", src: `try { await fs.readFile("x".repeat(1025)); } catch (e: any) { out = e.message; }`,
			want: `is longer than 1024 bytes: use shorter names`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := `import * as fs from "mcpcode:fs"; let out = "";` + "\n" + tt.src + "\nexport default out;"
			res := runSource(t, src, RunOptions{Limits: Limits{FSQuota: 64 * kib}})
			mustOK(t, res)
			if got := resultString(t, res); !strings.Contains(got, tt.want) {
				t.Errorf("outcome = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReservedNamesIgnoreCase(t *testing.T) {
	for _, rel := range []string{"Workspace/evil.ts", "WORKSPACE/x.ts", ".MCPCODE/manifest.ts", "Skills/.Proposals/x/x.ts", "skills/.DISMISSED/x/x.ts", "lib/Node_Modules/x.ts"} {
		if unimportable(rel) == "" {
			t.Errorf("unimportable(%q) = \"\", want a reason", rel)
		}
	}
	b := &build{ws: t.TempDir(), spec: &realmSpec{entry: "prog.ts"}, skills: newSkillTable(fakePolicy{"x": {}})}
	r, err := b.resolve("prog.ts", "./Skills/x")
	if err != nil || r.virtual != "skill/x" {
		t.Errorf("./Skills/x = %+v, %v; want skill x", r, err)
	}
	if _, err := b.resolve("prog.ts", "./SKILLS/y"); err == nil || !strings.Contains(err.Error(), `skill "y" is not approved`) {
		t.Errorf("./SKILLS/y: error = %v, want the approval check", err)
	}
}

// TestArgumentsAreASnapshot: the host serialises a call's arguments from
// their own data; no toJSON (own or inherited), getter on a prototype,
// valueOf or Proxy of the program's runs or changes them.
func TestArgumentsAreASnapshot(t *testing.T) {
	fc := newFakeCaller()
	src := `import { callMCPTool } from "mcpcode:runtime";
let ran = 0;
Object.defineProperty(Object.prototype, "toJSON", { configurable: true, get() { ran++; return () => ({ id: "evil" }); } });
Object.defineProperty(Object.prototype, "id", { configurable: true, get() { ran++; return "evil"; } });
const n = new Number(7);
(n as any).valueOf = () => { ran++; return 666; };
await callMCPTool("slack", "getDeployment", {
  id: "d1", toJSON() { ran++; return { id: "evil" }; }, when: new Date(0), n, s: new String("x"),
  list: [1, undefined, () => 1, NaN, Infinity, -0], nested: { u: undefined, k: "v", "a/b": [] },
});
export default ran;`
	res := runSource(t, src, RunOptions{Caller: fc})
	mustOK(t, res)
	if string(res.Result) != "0" {
		t.Errorf("program code ran %s times while the arguments were serialised", res.Result)
	}
	calls := fc.Calls()
	want := `{"id":"d1","when":"1970-01-01T00:00:00.000Z","n":7,"s":"x","list":[1,null,null,null,null,0],"nested":{"k":"v","a/b":[]}}`
	if len(calls) != 1 || calls[0].Args != want {
		t.Errorf("arguments sent:\n%v\nwant %s", calls, want)
	}
}
