package runtime

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
)

// hostileCase is a program that must be stopped or refused.
type hostileCase struct {
	name   string
	src    string
	limits Limits
	kind   string // expected error kind ("" when the program succeeds)
	limit  string // expected limit
	msg    string // substring of the error message (or of the result)
}

// normalProgram must run fine on a host right after a hostile one.
const normalProgram = `import { getDocument } from "servers/google-drive/getDocument";
const d = await getDocument({ documentId: "ok" });
console.log("still fine");
export default d.title;`

func checkHostile(t *testing.T, tt hostileCase, res *Result) {
	t.Helper()
	if tt.kind == "" {
		mustOK(t, res)
		if !strings.Contains(string(res.Result), tt.msg) {
			t.Errorf("result = %s, want it to contain %q", res.Result, tt.msg)
		}
		return
	}
	if res.OK || res.Error == nil {
		t.Fatalf("run succeeded (result %s), want a %s error", res.Result, tt.kind)
	}
	if res.Error.Kind != tt.kind || res.Error.Limit != tt.limit || !strings.Contains(res.Error.Message, tt.msg) {
		t.Errorf("error = %+v, want kind %q limit %q containing %q", res.Error, tt.kind, tt.limit, tt.msg)
	}
}

func checkNormal(t *testing.T, res *Result) {
	t.Helper()
	mustOK(t, res)
	if string(res.Result) != `"Doc ok"` || logText(res) != "still fine" {
		t.Errorf("normal program after a hostile one: result %s logs %q", res.Result, logText(res))
	}
}

func TestHostileInProcess(t *testing.T) {
	leak := t.TempDir()
	leakMap := filepath.Join(leak, "leak.map")
	if err := os.WriteFile(leakMap, []byte(`{"version":3,"sources":["LEAKED_HOST_FILE.ts"],"names":[],"mappings":"AAAA;AACA;AACA;AACA"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// goja would resolve a relative URL from the process's directory.
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if leakMap, err = filepath.Rel(cwd, leakMap); err != nil {
		t.Fatal(err)
	}
	short := Limits{Timeout: 400 * time.Millisecond}
	tests := []hostileCase{
		{name: "infinite loop", src: `while (true) {}`, limits: short, kind: KindLimit, limit: LimitTimeout, msg: "wall-time limit of 400ms exceeded (--timeout)"},
		{name: "infinite await loop", src: `while (true) { await null; }`, limits: short, kind: KindLimit, limit: LimitTimeout, msg: "wall-time limit of 400ms exceeded"},
		{name: "idle while waiting on a tool call", src: `import { callMCPTool } from "mcpcode:runtime"; await callMCPTool("slack", "hang", {});`, limits: short, kind: KindLimit, limit: LimitTimeout, msg: "wall-time limit of 400ms exceeded"},
		{name: "idle while waiting on a timer", src: `await new Promise((r) => setTimeout(r, 60000));`, limits: short, kind: KindLimit, limit: LimitTimeout, msg: "(--timeout)"},
		{name: "deep recursion", src: `function f(n: number): number { return f(n + 1) + 1; } f(0);`, kind: KindLimit, limit: LimitStack, msg: "call-stack limit of 1000 frames exceeded (--max-stack-depth)"},
		{name: "deep async recursion", src: `async function f(n: number): Promise<number> { return await f(n + 1); } await f(0);`, kind: KindLimit, limit: LimitStack, msg: "call-stack limit"},
		{name: "proxy getter recursion", src: `const p: any = new Proxy({}, { get(t, k, r) { return r[k]; } }); p.x;`, kind: KindLimit, limit: LimitStack, msg: "call-stack limit"},
		{name: "stack limit is configurable", src: `function f(n: number): number { return f(n + 1) + 1; } f(0);`, limits: Limits{MaxStackDepth: 50}, kind: KindLimit, limit: LimitStack, msg: "call-stack limit of 50 frames"},
		{name: "timer flood", src: `for (;;) setTimeout(() => {}, 1e9);`, kind: KindLimit, limit: LimitTimers, msg: "timer limit of 1000 pending timers reached (--max-timers)"},
		{name: "too many tool calls", src: `import { getDocument } from "servers/google-drive/getDocument";
for (let i = 0; i < 10; i++) await getDocument({ documentId: "d" + i });`, limits: Limits{MaxToolCalls: 3}, kind: KindLimit, limit: LimitToolCalls, msg: "tool-call limit of 3 reached (--max-tool-calls)"},
		// Go's linear regexp runs these patterns (no backreference or
		// lookaround). A backtracking engine would need about 2^40 steps on
		// each and, stopped by regexp2's match timeout, answer false to the
		// second: the answer, not a deadline, tells the engines apart.
		{name: "catastrophic regexp", src: `const s = "a".repeat(40) + "!";
export default [/(a+)+$/.test(s), /(a+)+$|!/.test(s)];`, msg: "[false,true]"},
		{name: "catastrophic backtracking regexp", src: `export default /^(a+)+\1b$/.test("a".repeat(40) + "!");`, limits: short, kind: KindLimit, limit: LimitTimeout, msg: "wall-time limit"},
		{name: "no require, process or host globals", src: `const g: any = Function("return this")();
const names = Object.getOwnPropertyNames(g).filter((n) => ["require", "process", "module", "exports", "Buffer", "fetch", "XMLHttpRequest", "Deno", "Bun", "GoError", "global", "__dirname"].includes(n));
export default [names, typeof (globalThis as any).require, typeof (globalThis as any).process];`, msg: `[[],"undefined","undefined"]`},
		{name: "indirect eval", src: `export default (0, eval)("globalThis.process");`, kind: KindRuntime, msg: "eval is not available"},
		{name: "eval via the global object", src: `const g: any = Function("return this")(); export default g["ev" + "al"]("1 + 1");`, kind: KindRuntime, msg: "eval is not available"},
		{name: "Function constructor reaches only the sandbox", src: `const f = Function("return typeof require + typeof process + typeof this.console + typeof this.__mcpcode");
export default f();`, msg: `"undefinedundefinedobjectundefined"`},
		{name: "constructor chain to Function", src: `const F = (async () => {}).constructor as any; export default await F("return typeof process")();`, msg: `"undefined"`},
		{name: "dynamic import with a computed path", src: `const name = "./li" + "b"; const m = await import(name); export default m;`, kind: KindRuntime, msg: `Dynamic require of "./lib" is not supported`},
		{name: "require by computed name", src: `const r = (globalThis as any)["req" + "uire"]; export default r("fs");`, kind: KindRuntime, msg: "TypeError"},
		{name: "arguments of the wrapper", src: `export default (arguments as any)[0];`, kind: KindRuntime, msg: "ReferenceError: arguments is not defined"},
		{name: "sourceMappingURL to a host file (program)", src: "throw new Error(\"x\");\n//# sourceMappingURL=" + leakMap + "\n", kind: KindRuntime, msg: "Error: x"},
		{name: "sourceMappingURL to a host file (Function)", src: "let s = \"\";\ntry { Function(\"throw new Error('y')\\n//# sourceMappingURL=" + leakMap + "\")(); } catch (e) { s = String(e.stack); }\nexport default s;", msg: "Error: y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			fc := newFakeCaller()
			res := runSource(t, tt.src, RunOptions{Workspace: ws, Caller: fc, Limits: tt.limits})
			checkHostile(t, tt, res)
			if b, _ := json.Marshal(res); strings.Contains(string(b), "LEAKED_HOST_FILE") {
				t.Errorf("a host file was read as a source map: %s", b)
			}
			if tt.limit == LimitToolCalls {
				if n := len(fc.Calls()); n != 3 {
					t.Errorf("upstream received %d calls, want 3", n)
				}
			}
			checkNormal(t, runSource(t, normalProgram, RunOptions{Workspace: ws}))
		})
	}
}

func TestConsoleFloodIsCapped(t *testing.T) {
	res := runSource(t, `const line = "x".repeat(1000);
for (let i = 0; i < 10000; i++) console.log(line);
export default "done";`, RunOptions{})
	mustOK(t, res)
	kept := 0
	for _, l := range res.Logs[:len(res.Logs)-1] {
		kept += len(l.Text)
	}
	if kept != 20000 {
		t.Errorf("kept %d characters, want 20000", kept)
	}
	if res.LogsOmitted != 10000*1000-20000 {
		t.Errorf("LogsOmitted = %d, want %d", res.LogsOmitted, 10000*1000-20000)
	}
	last := res.Logs[len(res.Logs)-1]
	if !strings.Contains(last.Text, "9980000 characters of output omitted") || !strings.Contains(last.Text, "--max-output") {
		t.Errorf("last log = %q, want the omitted marker", last.Text)
	}
}

func TestRunCanceled(t *testing.T) {
	ws := newWorkspace(t, nil)
	p := bundleSource(t, ws, `while (true) {}`)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	res := Run(ctx, p, RunOptions{Workspace: ws, Limits: Limits{Timeout: guard}})
	if res.Error == nil || res.Error.Kind != KindCanceled {
		t.Fatalf("error = %+v, want canceled", res.Error)
	}
}

func TestLimitMessages(t *testing.T) {
	l := DefaultLimits()
	tests := []struct{ limit, want string }{
		{LimitTimeout, "wall-time limit of 30s exceeded (--timeout)"},
		{LimitMemory, "memory limit of 256 MiB exceeded (--memory)"},
		{LimitToolCalls, "tool-call limit of 500 reached (--max-tool-calls)"},
		{LimitStack, "call-stack limit of 1000 frames exceeded (--max-stack-depth)"},
		{LimitTimers, "timer limit of 1000 pending timers reached (--max-timers)"},
		{LimitFSQuota, "workspace write quota of 64 MiB exceeded (--fs-quota)"},
	}
	for _, tt := range tests {
		if got := l.limitMessage(tt.limit); got != tt.want {
			t.Errorf("limitMessage(%s) = %q, want %q", tt.limit, got, tt.want)
		}
	}
	if got := (Limits{}).WithDefaults(); got != DefaultLimits() {
		t.Errorf("zero limits with defaults = %+v, want %+v", got, DefaultLimits())
	}
	if !slices.Equal([]string{formatBytes(1536), formatBytes(3 << 30), formatBytes(100)}, []string{"1536 bytes", "3 GiB", "100 bytes"}) {
		t.Errorf("formatBytes: %s %s %s", formatBytes(1536), formatBytes(3<<30), formatBytes(100))
	}
}

func TestInProcessMemoryWatchdog(t *testing.T) {
	res := runSource(t, `const rows: string[] = [];
while (true) rows.push("row ".repeat(64) + rows.length);`, RunOptions{Limits: Limits{Memory: 32 << 20}})
	checkHostile(t, hostileCase{kind: KindLimit, limit: LimitMemory, msg: "memory limit of 32 MiB exceeded (--memory)"}, res)
}

// TestMemoryWatchdogCountsLiveMemory: garbage the GC has not collected yet
// does not count against the memory limit (a one-shot process collects
// seldom; here the GC is off): a program that makes 200 MB of garbage under
// a limit of 32 MiB, holding little at any time, runs to its end. The
// watchdog reads the whole process's heap, so the run is the only thing in
// a process of its own (this test binary again).
func TestMemoryWatchdogCountsLiveMemory(t *testing.T) {
	if os.Getenv("MCPCODE_TEST_WATCHDOG") != "" {
		debug.SetGCPercent(-1)
		// Not runSource's guard: under -race on a loaded machine the 200
		// MB take over 20 s; this test is about memory, not time.
		ws := newWorkspace(t, nil)
		p := bundleSource(t, ws, `let total = 0;
for (let i = 0; i < 200; i++) total += ("x".repeat(1 << 20) + i).length;
export default total;`)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		res := Run(ctx, p, RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: Limits{Memory: 32 << 20, Timeout: 3 * time.Minute}})
		if !res.OK || string(res.Result) != "209715690" {
			t.Fatalf("result %s, error %+v; want 209715690", res.Result, res.Error)
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryWatchdogCountsLiveMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), "MCPCODE_TEST_WATCHDOG=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestHostSourceMapsAreNeverRead checks the compile paths directly: a
// sourceMappingURL naming a host file must not be followed. The control
// case shows that goja's default would read it.
func TestHostSourceMapsAreNeverRead(t *testing.T) {
	dir := t.TempDir()
	leakMap := filepath.Join(dir, "leak.map")
	if err := os.WriteFile(leakMap, []byte(`{"version":3,"sources":["LEAKED_HOST_FILE.ts"],"names":[],"mappings":"AAAA;AACA;AACA;AACA"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	// goja resolves the URL against the script's (relative) name, so a
	// relative path leads from the process's working directory.
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relMap, err := filepath.Rel(cwd, leakMap)
	if err != nil {
		t.Fatal(err)
	}
	code := "(async (h) => {\nthrow new Error('x');\n})\n//# sourceMappingURL=" + relMap + "\n"

	control, err := parser.ParseFile(nil, bundleFileName, code, 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := control.File.Position(20); !strings.Contains(p.Filename, "LEAKED_HOST_FILE") {
		t.Fatalf("control: goja's default loader did not read the map (position %v); the test cannot detect a leak", p)
	}

	prg, err := compileCode(code)
	if err != nil {
		t.Fatal(err)
	}
	vm, _, err := newSandboxVM(100)
	if err != nil {
		t.Fatal(err)
	}
	fn, err := vm.RunProgram(prg)
	if err != nil {
		t.Fatal(err)
	}
	call, _ := goja.AssertFunction(fn)
	v, err := call(goja.Undefined())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := promiseOf(v)
	if stack := p.Result().ToObject(vm).Get("stack").String(); strings.Contains(stack, "LEAKED") || !strings.Contains(stack, bundleFileName) {
		t.Errorf("compiled program's stack = %q, want positions in %s", stack, bundleFileName)
	}
	got, err := vm.RunString("let s = ''; try { Function(\"\\nthrow new Error('y')\\n//# sourceMappingURL=" + relMap + "\")(); } catch (e) { s = String(e.stack); } s")
	if err != nil || strings.Contains(got.String(), "LEAKED") {
		t.Errorf("Function's stack = %v, %v", got, err)
	}
}
