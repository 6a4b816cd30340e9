package runtime

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// normalized drops what differs between two runs of the same program:
// timings.
func normalized(r *Result) *Result {
	c := *r
	c.Stats.DurationMs = 0
	c.ToolCalls = append([]ToolCallRecord(nil), r.ToolCalls...)
	for i := range c.ToolCalls {
		c.ToolCalls[i].Ms = 0
	}
	return &c
}

func TestWorkerMatchesInProcess(t *testing.T) {
	pool := NewWorkerPool(WorkerOptions{Command: testWorkerCommand()})
	defer pool.Close()
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			p := bundleSource(t, ws, tt.src)
			var input json.RawMessage
			if tt.input != "" {
				input = json.RawMessage(tt.input)
			}
			inProc := Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller(), Input: input})
			viaWorker := pool.Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller(), Input: input})
			a, b := normalized(inProc), normalized(viaWorker)
			if !reflect.DeepEqual(a, b) {
				ja, _ := json.MarshalIndent(a, "", " ")
				jb, _ := json.MarshalIndent(b, "", " ")
				t.Errorf("in-process and worker results differ:\n%s\n---\n%s", ja, jb)
			}
		})
	}
}

func TestWorkerRelaysConcurrentCalls(t *testing.T) {
	pool := NewWorkerPool(WorkerOptions{Command: testWorkerCommand(), Warm: 2})
	defer pool.Close()
	ws := newWorkspace(t, nil)
	fc := newFakeCaller()
	fc.barrier = 10
	p := bundleSource(t, ws, `import { getDocument } from "servers/google-drive/getDocument";
const docs = await Promise.all(Array.from({ length: 10 }, (_, i) => getDocument({ documentId: "d" + i })));
export default docs.length;`)
	res := pool.Run(t.Context(), p, RunOptions{Workspace: ws, Caller: fc, Limits: Limits{Timeout: guard}})
	mustOK(t, res)
	if fc.maxInFlight != 10 || len(fc.callList()) != 10 || string(res.Result) != "10" {
		t.Errorf("max in flight %d, calls %d, result %s", fc.maxInFlight, len(fc.callList()), res.Result)
	}
	if got := fc.toolsList(); len(got) != 1 || got[0] != "google-drive" {
		t.Errorf("Tools asked for %v, want google-drive once", got)
	}
}

func TestWorkerHostile(t *testing.T) {
	pool := NewWorkerPool(WorkerOptions{Command: testWorkerCommand()})
	defer pool.Close()
	small := Limits{Memory: 64 << 20, Timeout: 15 * time.Second}
	if raceEnabled {
		// The race detector slows goja's element-by-element fill of a
		// sparse array about tenfold: new Array(1e9).fill(0) then needs
		// about 15 s to reach 64 MiB (1.4 s without it), so the wall-time
		// guard must not win the race. The expected outcome is unchanged.
		small.Timeout = 90 * time.Second
	}
	tests := []hostileCase{
		{name: "one huge string", src: `export default "x".repeat(2 ** 40).length;`, limits: small, kind: KindLimit, limit: LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "one huge array", src: `new Array(1e9).fill(0);`, limits: small, kind: KindLimit, limit: LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "string doubling", src: `let s = "x"; while (true) s += s;`, limits: small, kind: KindLimit, limit: LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "growing array", src: `const a: any[] = []; while (true) a.push({ n: a.length, s: "row " + a.length });`, limits: small, kind: KindLimit, limit: LimitMemory, msg: "memory limit of 64 MiB exceeded (--memory)"},
		{name: "infinite loop", src: `while (true) {}`, limits: Limits{Timeout: 500 * time.Millisecond}, kind: KindLimit, limit: LimitTimeout, msg: "wall-time limit of 500ms exceeded (--timeout)"},
		{name: "catastrophic backtracking", src: `export default /^(a+)+\1b$/.test("a".repeat(40) + "!");`, limits: Limits{Timeout: 500 * time.Millisecond}, kind: KindLimit, limit: LimitTimeout, msg: "wall-time limit of 500ms exceeded"},
		{name: "deep recursion", src: `function f(n: number): number { return f(n + 1) + 1; } f(0);`, kind: KindLimit, limit: LimitStack, msg: "call-stack limit of 1000 frames exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			p := bundleSource(t, ws, tt.src)
			res := pool.Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: tt.limits})
			checkHostile(t, tt, res)
			checkNormal(t, pool.Run(t.Context(), bundleSource(t, ws, normalProgram), RunOptions{Workspace: ws, Caller: newFakeCaller()}))
		})
	}
}

func TestWorkerCrashes(t *testing.T) {
	ws := newWorkspace(t, nil)
	p := bundleSource(t, ws, normalProgram)
	crashing := NewWorkerPool(WorkerOptions{Command: testWorkerCommand("crash")})
	defer crashing.Close()
	res := crashing.Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller()})
	if res.Error == nil || res.Error.Kind != KindCrashed || !strings.Contains(res.Error.Message, "panic: test crash") {
		t.Fatalf("error = %+v, want crashed with the worker's stderr", res.Error)
	}
	again := crashing.Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller()})
	if again.Error == nil || again.Error.Kind != KindCrashed {
		t.Fatalf("second run error = %+v, want crashed again (the pool lives on)", again.Error)
	}
}

func TestWorkerStuckIsKilledAtTheDeadline(t *testing.T) {
	ws := newWorkspace(t, nil)
	p := bundleSource(t, ws, normalProgram)
	hanging := NewWorkerPool(WorkerOptions{Command: testWorkerCommand("hang")})
	defer hanging.Close()
	res := hanging.Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: Limits{Timeout: 100 * time.Millisecond}})
	if res.Error == nil || res.Error.Kind != KindLimit || res.Error.Limit != LimitTimeout || res.Error.Message != "wall-time limit of 100ms exceeded (--timeout)" {
		t.Fatalf("error = %+v, want the timeout limit", res.Error)
	}
}

func TestWorkerEnvironmentIsEmpty(t *testing.T) {
	t.Setenv("MCPCODE_TEST_SECRET", "s3cret")
	pool := NewWorkerPool(WorkerOptions{Command: testWorkerCommand("env")})
	defer pool.Close()
	ws := newWorkspace(t, nil)
	checkNormal(t, pool.Run(t.Context(), bundleSource(t, ws, normalProgram), RunOptions{Workspace: ws, Caller: newFakeCaller()}))
}

func TestWorkerPoolClosed(t *testing.T) {
	pool := NewWorkerPool(WorkerOptions{Command: testWorkerCommand()})
	if err := pool.Close(); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(t, nil)
	res := pool.Run(t.Context(), bundleSource(t, ws, normalProgram), RunOptions{Workspace: ws})
	if res.Error == nil || !strings.Contains(res.Error.Message, "closed") {
		t.Fatalf("error = %+v, want the pool-closed error", res.Error)
	}
}
