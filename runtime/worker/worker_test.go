package worker

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// normalized drops what differs between two runs of the same program:
// timings.
func normalized(r *runtime.Result) *runtime.Result {
	c := *r
	c.Stats.DurationMs = 0
	c.ToolCalls = append([]runtime.ToolCallRecord(nil), r.ToolCalls...)
	for i := range c.ToolCalls {
		c.ToolCalls[i].Ms = 0
	}
	return &c
}

// TestWorkerMatchesInProcess runs each program three ways: bundled and run
// in this process, bundled and run in a worker (Run), and bundled here but
// run in a worker (RunProgram). The results must be the same.
func TestWorkerMatchesInProcess(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand(), Warm: 2})
	tests := []struct {
		name  string
		src   string
		input string
	}{
		{name: "tool calls and logs", src: `import { getSheet } from "servers/google-drive/getSheet";
import { search } from "servers/google-drive/search";
const sheet = await getSheet({ sheetId: "s" });
const pending = sheet.rows.filter((r) => r.Status === "pending");
console.log(pending.length, "pending");
console.warn((await search({ query: "x" })).data);
export default pending;`},
		{name: "function with input", src: `export default async (input: { n: number }) => ({ twice: input.n * 2 });`, input: `{"n":4}`},
		{name: "tool error", src: `import { getDocument } from "servers/google-drive/getDocument"; await getDocument({ documentId: "missing" });`},
		{name: "validation error", src: `import { callMCPTool } from "mcpcode:runtime"; await callMCPTool("google-drive", "getDocument", { documentID: "x" });`},
		{name: "unknown server", src: `import { callMCPTool } from "mcpcode:runtime"; await callMCPTool("jira", "x", {});`},
		{name: "runtime error", src: "const o: any = {};\no.f();"},
		{name: "workspace files", src: `import { writeFile, readFile } from "mcpcode:fs"; await writeFile("w.txt", "via worker"); export default await readFile("w.txt");`},
		{name: "output limit", src: `console.log("x".repeat(25000));`},
		{name: "a skill (the worker's policy)", src: `import pending from "skills/pending-orders"; export default await pending({ sheetId: "orders" });`},
		{name: "a skill's permission", src: `import pending from "skills/pending-orders"; export default await pending({ sheetId: "orders", markDone: true });`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, nil)
			var input json.RawMessage
			if tt.input != "" {
				input = json.RawMessage(tt.input)
			}
			opts := func() runtime.RunOptions {
				return runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Input: input, Limits: runtime.Limits{Timeout: guard}}
			}
			p := bundleSource(t, ws, tt.src)
			inProc := normalized(runtime.Run(t.Context(), p, opts()))
			for name, res := range map[string]*runtime.Result{
				"Run":        pool.Run(t.Context(), source(ws, tt.src), opts()),
				"RunProgram": pool.RunProgram(t.Context(), p, opts()),
			} {
				if got := normalized(res); !reflect.DeepEqual(inProc, got) {
					ja, _ := json.MarshalIndent(inProc, "", " ")
					jb, _ := json.MarshalIndent(got, "", " ")
					t.Errorf("in-process and worker (%s) results differ:\n%s\n---\n%s", name, ja, jb)
				}
			}
		})
	}
}

// TestWorkerBundleErrorsMatchInProcess: a program that cannot be bundled
// fails with the Result runtime.BundleErrorResult gives in-process, and
// Pool.Bundle returns the same diagnostics as runtime.Bundle.
func TestWorkerBundleErrorsMatchInProcess(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand()})
	tests := []struct{ name, src, want string }{
		{name: "syntax error", src: "const x = ;\n", want: "Unexpected \";\""},
		{name: "forbidden import", src: `import { readFileSync } from "fs"; export default readFileSync;`, want: `"fs"`},
		{name: "skill not approved", src: `import x from "skills/nope"; export default x;`, want: `skill "nope" is not approved`},
		{name: "nesting too deep", src: "export default " + strings.Repeat("[", 300) + strings.Repeat("]", 300) + ";", want: "nesting deeper than 200 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, nil)
			_, inErr := runtime.Bundle(source(ws, tt.src))
			var inBE *runtime.BundleError
			if !errors.As(inErr, &inBE) || !strings.Contains(inErr.Error(), tt.want) {
				t.Fatalf("in-process Bundle error = %v, want a *BundleError containing %q", inErr, tt.want)
			}
			res := pool.Run(t.Context(), source(ws, tt.src), runtime.RunOptions{Workspace: ws, Limits: runtime.Limits{Timeout: guard}})
			if want := normalized(runtime.BundleErrorResult(inErr)); !reflect.DeepEqual(normalized(res), want) {
				t.Errorf("Run = %+v (error %+v), want %+v (error %+v)", res, res.Error, want, want.Error)
			}
			_, err := pool.Bundle(t.Context(), source(ws, tt.src))
			var be *runtime.BundleError
			if !errors.As(err, &be) || !reflect.DeepEqual(be.Diagnostics, inBE.Diagnostics) {
				t.Errorf("Bundle error = %#v, want the in-process diagnostics %#v", err, inBE.Diagnostics)
			}
		})
	}
}

// TestWorkerBundle: Pool.Bundle gives the program and its analysis as
// runtime.Bundle does, reading the entry from disk in the worker, with the
// worker's skill policy; the program then runs with RunProgram.
func TestWorkerBundle(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand()})
	const src = `import { callMCPTool } from "mcpcode:runtime";
import { getDocument } from "servers/google-drive/getDocument";
import pending from "skills/pending-orders";
const f = callMCPTool;
await f("slack", "getDeployment", {});
export default [(await getDocument({ documentId: "d" })).title, await pending({ sheetId: "s" })];`
	ws := newWorkspace(t, map[string]string{"programs/analyzed.ts": src})
	entry := ws + "/programs/analyzed.ts"
	want, err := runtime.Bundle(runtime.BundleOptions{Workspace: ws, Entry: entry, Skills: defaultPolicy})
	if err != nil {
		t.Fatal(err)
	}
	got, err := pool.Bundle(t.Context(), runtime.BundleOptions{Workspace: ws, Entry: entry})
	if err != nil {
		t.Fatalf("Bundle: %v", err)
	}
	if got.Entry != "programs/analyzed.ts" || !reflect.DeepEqual(got.Calls, want.Calls) || !reflect.DeepEqual(got.Unverifiable, want.Unverifiable) || !reflect.DeepEqual(got.Skills, want.Skills) {
		t.Errorf("Bundle = entry %q calls %+v unverifiable %v skills %v; want %q %+v %v %v", got.Entry, got.Calls, got.Unverifiable, got.Skills, want.Entry, want.Calls, want.Unverifiable, want.Skills)
	}
	if len(got.Calls) == 0 || len(got.Unverifiable) != 1 || !reflect.DeepEqual(got.Skills, []string{"pending-orders"}) {
		t.Errorf("analysis: calls %+v, unverifiable %v, skills %v; want calls, the aliased call function and pending-orders", got.Calls, got.Unverifiable, got.Skills)
	}
	res := pool.RunProgram(t.Context(), got, runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: guard}})
	mustOK(t, res)
	if string(res.Result) != `["Doc d",["order-0","order-3"]]` {
		t.Errorf("result = %s", res.Result)
	}
}

// TestWorkerWithoutSkillPolicy: a worker served without
// ServeOptions.Skills imports no skill, whatever BundleOptions.Skills the
// parent holds (the policy is not sent).
func TestWorkerWithoutSkillPolicy(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand("noskills")})
	ws := newWorkspace(t, nil)
	res := pool.Run(t.Context(), source(ws, `import pending from "skills/pending-orders"; export default pending;`), runtime.RunOptions{Workspace: ws, Limits: runtime.Limits{Timeout: guard}})
	if res.Error == nil || res.Error.Kind != runtime.KindBundle || !strings.Contains(res.Error.Message, "no skill policy is configured") {
		t.Fatalf("error = %+v, want the bundle error of a worker without a skill policy", res.Error)
	}
}

func TestWorkerRelaysConcurrentCalls(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand()})
	ws := newWorkspace(t, nil)
	fc := newFakeCaller()
	fc.Barrier = 10
	res := pool.Run(t.Context(), source(ws, `import { getDocument } from "servers/google-drive/getDocument";
const docs = await Promise.all(Array.from({ length: 10 }, (_, i) => getDocument({ documentId: "d" + i })));
export default docs.length;`), runtime.RunOptions{Workspace: ws, Caller: fc, Limits: runtime.Limits{Timeout: guard}})
	mustOK(t, res)
	if fc.MaxInFlight() != 10 || len(fc.Calls()) != 10 || string(res.Result) != "10" {
		t.Errorf("max in flight %d, calls %d, result %s", fc.MaxInFlight(), len(fc.Calls()), res.Result)
	}
	if got := fc.ToolsAsked(); len(got) != 1 || got[0] != "google-drive" {
		t.Errorf("Tools asked for %v, want google-drive once", got)
	}
}

func TestWorkerHostile(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand()})
	small := runtime.Limits{Memory: 64 << 20, Timeout: 15 * time.Second}
	if raceEnabled {
		// The race detector slows goja's element-by-element fill of a
		// sparse array about tenfold: new Array(1e9).fill(0) then needs
		// about 15 s to reach 64 MiB (1.4 s without it), and on a loaded
		// machine several times that (43 s alone at a load of 11 on two
		// cores, over 90 s next to this package's other tests), so the
		// wall-time guard must not win the race. The expected outcome is
		// unchanged.
		small.Timeout = 5 * time.Minute
	}
	tests := []hostileCase{
		{name: "one huge string", src: `export default "x".repeat(2 ** 40).length;`, limits: small, kind: runtime.KindLimit, limit: runtime.LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "one huge array", src: `new Array(1e9).fill(0);`, limits: small, kind: runtime.KindLimit, limit: runtime.LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "string doubling", src: `let s = "x"; while (true) s += s;`, limits: small, kind: runtime.KindLimit, limit: runtime.LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "growing array", src: `const a: any[] = []; while (true) a.push({ n: a.length, s: "row " + a.length });`, limits: small, kind: runtime.KindLimit, limit: runtime.LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "infinite loop", src: `while (true) {}`, limits: runtime.Limits{Timeout: 500 * time.Millisecond}, kind: runtime.KindLimit, limit: runtime.LimitTimeout, msg: "wall-time limit of 500ms exceeded (--timeout)"},
		{name: "catastrophic backtracking", src: `export default /^(a+)+\1b$/.test("a".repeat(40) + "!");`, limits: runtime.Limits{Timeout: 500 * time.Millisecond}, kind: runtime.KindLimit, limit: runtime.LimitTimeout, msg: "wall-time limit of 500ms exceeded"},
		{name: "deep recursion", src: `function f(n: number): number { return f(n + 1) + 1; } f(0);`, kind: runtime.KindLimit, limit: runtime.LimitStack, msg: "call-stack limit of 1000 frames exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			res := pool.Run(t.Context(), source(ws, tt.src), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: tt.limits})
			checkHostile(t, tt, res)
			checkNormal(t, pool.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: guard}}))
		})
	}
}

func TestWorkerCrashes(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	crashing := newPool(t, Options{Command: testWorkerCommand("crash")})
	res := crashing.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller()})
	if res.Error == nil || res.Error.Kind != runtime.KindCrashed || !strings.Contains(res.Error.Message, "panic: test crash") {
		t.Fatalf("error = %+v, want crashed with the worker's stderr", res.Error)
	}
	again := crashing.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller()})
	if again.Error == nil || again.Error.Kind != runtime.KindCrashed {
		t.Fatalf("second run error = %+v, want crashed again (the pool lives on)", again.Error)
	}
	if _, err := crashing.Bundle(t.Context(), source(ws, normalProgram)); err == nil || !strings.Contains(err.Error(), "in a worker process failed: the worker process died") || !strings.Contains(err.Error(), "panic: test crash") {
		t.Errorf("Bundle error = %v, want the crash reported", err)
	}
}

func TestWorkerStuckIsKilledAtTheDeadline(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	hanging := newPool(t, Options{Command: testWorkerCommand("hang"), BundleTimeout: 100 * time.Millisecond})
	res := hanging.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: 100 * time.Millisecond}})
	if res.Error == nil || res.Error.Kind != runtime.KindLimit || res.Error.Limit != runtime.LimitTimeout || res.Error.Message != "wall-time limit of 100ms exceeded (--timeout)" {
		t.Fatalf("error = %+v, want the timeout limit", res.Error)
	}
	_, err := hanging.Bundle(t.Context(), source(ws, normalProgram))
	if err == nil || err.Error() != "bundling prog.ts took longer than 100ms, so its worker process was stopped: the program is too costly to bundle; make it smaller or simpler" {
		t.Errorf("Bundle error = %v, want the bundle timeout", err)
	}
}

func TestWorkerCanceled(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	hanging := newPool(t, Options{Command: testWorkerCommand("hang")})
	ctx, cancel := contextWithCancelAfter(t, 50*time.Millisecond)
	defer cancel()
	res := hanging.Run(ctx, source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Limits: runtime.Limits{Timeout: guard}})
	if res.Error == nil || res.Error.Kind != runtime.KindCanceled {
		t.Fatalf("error = %+v, want canceled", res.Error)
	}
}

func TestWorkerEnvironmentIsEmpty(t *testing.T) {
	t.Setenv("MCPCODE_TEST_SECRET", "s3cret")
	pool := newPool(t, Options{Command: testWorkerCommand("env")})
	ws := newWorkspace(t, nil)
	checkNormal(t, pool.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: guard}}))
}

func TestWorkerPoolClosed(t *testing.T) {
	t.Parallel()
	pool := NewPool(Options{Command: testWorkerCommand()})
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, nil)
	res := pool.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws})
	if res.Error == nil || !strings.Contains(res.Error.Message, "closed") {
		t.Fatalf("error = %+v, want the pool-closed error", res.Error)
	}
	if _, err := pool.Bundle(t.Context(), source(ws, normalProgram)); err == nil || !strings.Contains(err.Error(), "the worker pool is closed") {
		t.Errorf("Bundle error = %v, want the pool-closed error", err)
	}
}

// entryPoints are the pool's two ways to run a program: bundled in the
// worker (Run) and bundled before, here, as trusted source (RunProgram).
// The parent's checks of what the worker sends back hold for both.
var entryPoints = []struct {
	name string
	run  func(t *testing.T, p *Pool, ws, src string, r runtime.RunOptions) *runtime.Result
}{
	{"Run", func(t *testing.T, p *Pool, ws, src string, r runtime.RunOptions) *runtime.Result {
		return p.Run(t.Context(), source(ws, src), r)
	}},
	{"RunProgram", func(t *testing.T, p *Pool, ws, src string, r runtime.RunOptions) *runtime.Result {
		return p.RunProgram(t.Context(), bundleSource(t, ws, src), r)
	}},
}

func TestWorkerMessagesAreBounded(t *testing.T) {
	// Not parallel: it lowers the bound for the whole process.
	old := maxWireMessage
	maxWireMessage = 1 << 20
	t.Cleanup(func() { maxWireMessage = old })
	for _, ep := range entryPoints {
		t.Run(ep.name, func(t *testing.T) {
			pool := newPool(t, Options{Command: testWorkerCommand("flood")})
			ws := newWorkspace(t, nil)
			res := ep.run(t, pool, ws, normalProgram, runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: guard}})
			if res.Error == nil || res.Error.Kind != runtime.KindCrashed || !strings.Contains(res.Error.Message, "the worker process sent a message of more than 1 MiB") {
				t.Fatalf("error = %+v, want the oversized message reported", res.Error)
			}
		})
	}
}

// TestWorkerIsNotTrusted runs a worker that relays more calls than its
// limit and reports calls that never happened, with an oversized error.
func TestWorkerIsNotTrusted(t *testing.T) {
	t.Parallel()
	for _, ep := range entryPoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			pool := newPool(t, Options{Command: testWorkerCommand("rogue")})
			ws := newWorkspace(t, nil)
			fc := newFakeCaller()
			res := ep.run(t, pool, ws, normalProgram, runtime.RunOptions{Workspace: ws, Caller: fc, Limits: runtime.Limits{MaxToolCalls: 2, Timeout: guard}})
			if n := len(fc.Calls()); n != 2 {
				t.Errorf("upstream received %d calls, want the limit of 2", n)
			}
			if len(res.ToolCalls) != 2 || res.ToolCalls[0].Tool != "getDocument" || res.Stats.ToolCalls != 2 {
				t.Errorf("ToolCalls = %+v, Stats = %+v; want the parent's record of 2 relayed calls", res.ToolCalls, res.Stats)
			}
			var want int64
			for range 2 {
				want += resultBytes(&mcptool.Result{Content: textResult(`{"title":"Doc d","content":"Content of d"}`).Content, StructuredContent: obj(`{"title":"Doc d","content":"Content of d"}`)})
			}
			if res.Stats.BytesFromTools != want {
				t.Errorf("BytesFromTools = %d, want %d", res.Stats.BytesFromTools, want)
			}
			if res.Error == nil || len(res.Error.Message) > maxErrorText+100 || len(res.Error.Stack) > maxErrorText+100 || !strings.Contains(res.Error.Message, "more bytes omitted]") {
				t.Errorf("error message %d bytes, stack %d bytes; want both cut to about %d", len(res.Error.Message), len(res.Error.Stack), maxErrorText)
			}
		})
	}
}

// TestWorkerDeeplyNestedResult: a result Go's JSON cannot encode again is
// refused in the worker and reported like in-process.
func TestWorkerDeeplyNestedResult(t *testing.T) {
	t.Parallel()
	const src = `let v: any = 1; for (let i = 0; i < 10001; i++) v = [v]; export default v;`
	const msg = "the program's result cannot be returned: its JSON nests more than 10000 levels deep: return a flatter value"
	for _, ep := range entryPoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			pool := newPool(t, Options{Command: testWorkerCommand()})
			ws := newWorkspace(t, nil)
			res := ep.run(t, pool, ws, src, runtime.RunOptions{Workspace: ws, Limits: runtime.Limits{Memory: 64 << 20, Timeout: guard}})
			if res.Error == nil || res.Error.Kind != runtime.KindRuntime || res.Error.Message != msg {
				t.Fatalf("error = %+v, want %q", res.Error, msg)
			}
			if _, err := json.Marshal(res); err != nil {
				t.Errorf("the Result cannot be encoded: %v", err)
			}
		})
	}
}

// scopeProgram calls a write tool from a skill granted write (in the
// fixture's policy), then from its own code, then a read-only tool from a
// skill without write.
const scopeProgram = `import writer from "skills/order-writer";
import pending from "skills/pending-orders";
import { updateRecord } from "servers/salesforce/updateRecord";
await writer({ recordId: "7" });
await updateRecord({ objectType: "O", recordId: "own", data: {} });
export default await pending({ sheetId: "orders" });`

// fixturePolicy is Options.Skills with the fixture's policy, which the
// test workers use too.
func fixturePolicy(string) runtime.SkillPolicy { return defaultPolicy }

// TestWorkerRelaysTheScope: a call made by an approved skill's code
// reaches the parent's Caller with the skill's scope, as in-process
// (runtime's TestSkillScopeReachesTheCaller): a skill granted write with
// Write true, and the program's own call with no scope.
func TestWorkerRelaysTheScope(t *testing.T) {
	t.Parallel()
	want := []string{
		"salesforce.updateRecord by order-writer (write)",
		"salesforce.updateRecord, no scope",
		"google-drive.getSheet by pending-orders (no write)",
	}
	for _, ep := range entryPoints {
		t.Run(ep.name, func(t *testing.T) {
			t.Parallel()
			pool := newPool(t, Options{Command: testWorkerCommand(), Skills: fixturePolicy})
			ws := newWorkspace(t, nil)
			fc := newFakeCaller()
			mustOK(t, ep.run(t, pool, ws, scopeProgram, runtime.RunOptions{Workspace: ws, Caller: fc, Limits: runtime.Limits{Timeout: guard}}))
			if got := fc.Scopes(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("calls as the parent's caller saw them:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestWorkerScopeClaimsAreChecked: a worker that claims a skill's write
// grant for its calls is believed only where the workspace's policy grants
// that skill write, and its call reaches the caller only when the policy
// says the skill was approved for the tool; a pool without a policy
// believes no claim of write (and can check no tools).
func TestWorkerScopeClaimsAreChecked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		skills func(string) runtime.SkillPolicy
		want   []string
	}{
		{name: "with the workspace's policy", skills: fixturePolicy, want: []string{
			"salesforce.updateRecord by pending-orders (no write)",
			// made-up (no such skill) and reader (not approved for the
			// tool) are refused before the caller
			"salesforce.updateRecord by order-writer (write)", // true: the policy grants it
			"salesforce.updateRecord, no scope",
			"salesforce.updateRecord, no scope",
		}},
		{name: "without a policy", want: []string{
			"salesforce.updateRecord by pending-orders (no write)",
			"salesforce.updateRecord by made-up (no write)",
			"salesforce.updateRecord by order-writer (no write)",
			"salesforce.updateRecord by reader (no write)",
			"salesforce.updateRecord, no scope",
			"salesforce.updateRecord, no scope",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pool := newPool(t, Options{Command: testWorkerCommand("claim"), Skills: tt.skills})
			ws := newWorkspace(t, nil)
			fc := newFakeCaller()
			mustOK(t, pool.RunProgram(t.Context(), bundleSource(t, ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: fc, Limits: runtime.Limits{Timeout: guard}}))
			// Compare the distinct calls as sets: what matters is which
			// claims reach the caller and with which grant (the order, and
			// how many of the unscoped calls were counted, vary between
			// runs).
			got, want := slices.Clone(fc.Scopes()), slices.Clone(tt.want)
			slices.Sort(got)
			slices.Sort(want)
			got, want = slices.Compact(got), slices.Compact(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("calls as the parent's caller saw them:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
