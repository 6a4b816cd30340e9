package runtime

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRunResults(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		input string
		want  string
	}{
		{name: "structured content", src: `import { getDocument } from "servers/google-drive/getDocument"; export default await getDocument({ documentId: "d1" });`, want: `{"title":"Doc d1","content":"Content of d1"}`},
		{name: "structured tool, JSON text only", src: `import { getSheet } from "servers/google-drive/getSheet"; const s = await getSheet({ sheetId: "s" }); export default s.rows.filter((r) => r.Status === "pending").map((r) => r.id);`, want: `[0,3]`},
		{name: "ToolResult with JSON text", src: `import { search } from "servers/google-drive/search"; export default await search({ query: "q" });`, want: `{"content":[{"text":"[{\"name\":\"a.txt\"},{\"name\":\"b.txt\"}]","type":"text"}],"text":"[{\"name\":\"a.txt\"},{\"name\":\"b.txt\"}]","data":[{"name":"a.txt"},{"name":"b.txt"}]}`},
		{name: "ToolResult with plain text has no data", src: `import { query } from "servers/salesforce/query"; const r = await query({ soql: "x" }); export default [r.text, "data" in r, r.content.length];`, want: `["plain text answer",false,1]`},
		{name: "default value", src: `export default { a: 1, b: [true, null] };`, want: `{"a":1,"b":[true,null]}`},
		{name: "no default export", src: `const x = 1;`, want: `null`},
		{name: "undefined", src: `export default undefined;`, want: `null`},
		{name: "function without input", src: `export default function () { return arguments.length; }`, want: `0`},
		{name: "async function with input", src: `export default async (input: { n: number }) => input.n * 2;`, input: `{"n":21}`, want: `42`},
		{name: "promise", src: `export default Promise.resolve("later");`, want: `"later"`},
		{name: "BigInt becomes a string", src: `export default { big: 2n ** 70n };`, want: `{"big":"1180591620717411303424"}`},
		{name: "top-level await and for-await", src: `async function* gen() { yield 1; yield 2; }
let sum = 0;
for await (const v of gen()) sum += v;
await new Promise((r) => setTimeout(r, 1));
export default sum;`, want: `3`},
		{name: "classes, private fields, optional chaining", src: `class A { #x = 1; get x() { return this.#x; } }
const o: any = { a: { b: null } };
export default [new A().x, o.a?.b?.c ?? "none"];`, want: `[1,"none"]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := RunOptions{}
			if tt.input != "" {
				opts.Input = json.RawMessage(tt.input)
			}
			res := runSource(t, tt.src, opts)
			mustOK(t, res)
			if got := string(res.Result); got != tt.want {
				t.Errorf("result = %s\nwant     %s", got, tt.want)
			}
		})
	}
}

func TestRunToolErrors(t *testing.T) {
	catcher := func(call string) string {
		return `import { ToolError } from "mcpcode:runtime";
import { getDocument } from "servers/google-drive/getDocument";
import { callMCPTool } from "mcpcode:runtime";
try {
  await ` + call + `;
  export default "no error";
} catch (e) {
  console.log(e.stack);
  export default [e instanceof ToolError, e instanceof Error, e.name, e.kind, e.server, e.tool, e.message, e.result?.text ?? null];
}`
	}
	tests := []struct {
		name string
		call string
		want string
	}{
		{name: "tool error", call: `getDocument({ documentId: "missing" })`, want: `[true,true,"ToolError","tool","google-drive","getDocument","document missing not found","document missing not found"]`},
		{name: "transport", call: `callMCPTool("slack", "down", {})`, want: `[true,true,"ToolError","transport","slack","down","calling slack.down: connection closed: EOF",null]`},
		{name: "unknown tool", call: `callMCPTool("google-drive", "getDocment", { documentId: "x" })`, want: `[true,true,"ToolError","validation","google-drive","getDocment","unknown tool \"getDocment\" on server \"google-drive\" (did you mean \"getDocument\"?)",null]`},
		{name: "unknown server", call: `callMCPTool("jira", "getIssue", {})`, want: `[true,true,"ToolError","validation","jira","getIssue","unknown server \"jira\": the configured servers are google-drive, salesforce, slack",null]`},
		{name: "arguments not an object", call: `callMCPTool("slack", "getDeployment", [1])`, want: `[true,true,"ToolError","validation","slack","getDeployment","invalid arguments for slack.getDeployment (nothing was sent): /: the arguments must be an object",null]`},
		{name: "server not a string", call: `(callMCPTool as any)(1, "x")`, want: `[true,true,"ToolError","validation","1","x","callMCPTool(server, tool, args): server and tool must be strings",null]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// "export default" inside try is not valid; build the program
			// with a variable instead.
			src := strings.Replace(strings.Replace(catcher(tt.call), "export default \"no error\"", "out = \"no error\"", 1), "export default [", "out = [", 1)
			src = "let out: any;\n" + src + "\nexport default out;"
			res := runSource(t, src, RunOptions{})
			mustOK(t, res)
			if got := string(res.Result); got != tt.want {
				t.Errorf("result = %s\nwant     %s", got, tt.want)
			}
			if !strings.Contains(logText(res), "prog.ts:") {
				t.Errorf("ToolError stack does not point into prog.ts: %q", logText(res))
			}
		})
	}
}

func TestRunUncaughtToolErrorKinds(t *testing.T) {
	tests := []struct {
		name, src, kind, msg string
	}{
		{name: "tool", src: `import { getDocument } from "servers/google-drive/getDocument"; await getDocument({ documentId: "missing" });`, kind: KindTool, msg: "document missing not found"},
		{name: "transport", src: `import { callMCPTool } from "mcpcode:runtime"; await callMCPTool("slack", "down", {});`, kind: KindTransport, msg: "connection closed"},
		{name: "validation", src: `import { getDocument } from "servers/google-drive/getDocument"; await getDocument({} as any);`, kind: KindValidation, msg: "/documentId: required property missing"},
		{name: "runtime", src: "const x: any = undefined;\nx.y;", kind: KindRuntime, msg: "TypeError: Cannot read property 'y' of undefined"},
		{name: "thrown string", src: `throw "plain";`, kind: KindRuntime, msg: "uncaught plain"},
		{name: "thrown object", src: `throw { code: 7 };`, kind: KindRuntime, msg: `uncaught {"code":7}`},
		{name: "cyclic result", src: `const a: any = {}; a.self = a; export default a;`, kind: KindRuntime, msg: "the program's result cannot be converted to JSON"},
		{name: "invalid input", src: `export default (x: any) => x;`, kind: KindRuntime, msg: "the input is not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := RunOptions{}
			if tt.name == "invalid input" {
				opts.Input = json.RawMessage(`{"unterminated`)
			}
			res := runSource(t, tt.src, opts)
			if res.OK || res.Error == nil {
				t.Fatalf("run succeeded, want a %s error", tt.kind)
			}
			if res.Error.Kind != tt.kind || !strings.Contains(res.Error.Message, tt.msg) {
				t.Errorf("error = %+v, want kind %s with %q", res.Error, tt.kind, tt.msg)
			}
			if string(res.Result) != "null" {
				t.Errorf("result = %s, want null", res.Result)
			}
		})
	}
}

func TestRunValidation(t *testing.T) {
	tests := []struct {
		name string
		call string
		want []string // problem lines; nil: the call goes through
	}{
		{name: "missing required", call: `callMCPTool("google-drive", "getDocument", {})`, want: []string{"/documentId: required property missing"}},
		{name: "closed schema typo", call: `callMCPTool("google-drive", "getDocument", { documentID: "x" })`, want: []string{`/documentID: unknown property "documentID" (did you mean "documentId"?)`, "/documentId: required property missing"}},
		{name: "closed schema unknown", call: `callMCPTool("google-drive", "getDocument", { documentId: "x", colour: 1 })`, want: []string{`/colour: unknown property "colour"`}},
		{name: "wrong type", call: `callMCPTool("google-drive", "getSheet", { sheetId: "s", limit: "5" })`, want: []string{"/limit: expected integer, got string"}},
		{name: "several problems", call: `callMCPTool("google-drive", "getSheet", { limit: 0 })`, want: []string{"/limit: must be at least 1, got 0", "/sheetId: required property missing"}},
		{name: "open schema typo", call: `callMCPTool("google-drive", "search", { query: "q", limt: 5 })`, want: []string{`/limt: unknown property "limt" (did you mean "limit"?)`}},
		{name: "open schema case-only typo", call: `callMCPTool("google-drive", "search", { Query: "q" })`, want: []string{`/Query: unknown property "Query" (did you mean "query"?)`, "/query: required property missing"}},
		{name: "open schema extra property is fine", call: `callMCPTool("google-drive", "search", { query: "q", page: 2 })`},
		{name: "typo of a passed property is not a typo", call: `callMCPTool("google-drive", "search", { query: "q", limit: 1, limits: 2 })`},
		{name: "nested", call: `callMCPTool("salesforce", "updateRecord", { objectType: "O", recordId: 1, data: {} })`, want: []string{"/recordId: expected string, got number"}},
		{name: "uncompilable schema skips validation", call: `callMCPTool("salesforce", "sloppy", { anything: 1 })`},
		{name: "empty schema", call: `callMCPTool("salesforce", "broken", { anything: 1 })`},
		{name: "no schema", call: `callMCPTool("slack", "down", {})`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCaller()
			src := `import { callMCPTool } from "mcpcode:runtime";
let out: any = "sent";
try { await ` + tt.call + `; } catch (e) { out = [e.kind, e.message]; }
export default out;`
			res := runSource(t, src, RunOptions{Caller: fc})
			mustOK(t, res)
			var got any
			_ = json.Unmarshal(res.Result, &got)
			if tt.want == nil {
				if arr, ok := got.([]any); ok && arr[0] == KindValidation {
					t.Fatalf("call was refused: %v", got)
				}
				if len(fc.Calls()) != 1 {
					t.Fatalf("upstream received %d calls, want 1", len(fc.Calls()))
				}
				return
			}
			arr, ok := got.([]any)
			if !ok || arr[0] != KindValidation {
				t.Fatalf("result = %s, want a validation error", res.Result)
			}
			msg := arr[1].(string)
			var lines []string
			if i := strings.Index(msg, ":\n  "); i >= 0 {
				lines = strings.Split(msg[i+4:], "\n  ")
			} else {
				lines = []string{msg[strings.Index(msg, "(nothing was sent): ")+len("(nothing was sent): "):]}
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
			if n := len(fc.Calls()); n != 0 {
				t.Errorf("upstream received %d calls, want none", n)
			}
		})
	}
}

func TestRunCallsRunConcurrently(t *testing.T) {
	fc := newFakeCaller()
	fc.Barrier = 10 // every call waits until 10 are in flight together
	src := `import { getDocument } from "servers/google-drive/getDocument";
const ids = Array.from({ length: 10 }, (_, i) => "d" + i);
const docs = await Promise.all(ids.map((documentId) => getDocument({ documentId })));
export default docs.map((d) => d.title);`
	res := runSource(t, src, RunOptions{Caller: fc})
	mustOK(t, res)
	if fc.MaxInFlight() != 10 {
		t.Errorf("max calls in flight = %d, want 10", fc.MaxInFlight())
	}
	if !strings.Contains(string(res.Result), `"Doc d9"`) || res.Stats.ToolCalls != 10 {
		t.Errorf("result = %s, stats = %+v", res.Result, res.Stats)
	}
	for _, c := range res.ToolCalls {
		if !c.OK || c.Server != "google-drive" || c.Tool != "getDocument" {
			t.Errorf("call record = %+v", c)
		}
	}
}

func TestRunServersAreLookedUpLazily(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{name: "no calls", src: `import { getDocument } from "servers/google-drive/getDocument"; console.log(typeof getDocument);`, want: nil},
		{name: "one server, many calls", src: `import { getDocument } from "servers/google-drive/getDocument";
await Promise.all([1, 2, 3, 4, 5].map((i) => getDocument({ documentId: "d" + i })));`, want: []string{"google-drive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc := newFakeCaller()
			mustOK(t, runSource(t, tt.src, RunOptions{Caller: fc}))
			if got := fc.ToolsAsked(); strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Tools was asked for %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRunStatsAndRecords(t *testing.T) {
	res := runSource(t, `import { getDocument } from "servers/google-drive/getDocument";
await getDocument({ documentId: "a" });
try { await getDocument({ documentId: "missing" }); } catch {}`, RunOptions{})
	mustOK(t, res)
	if len(res.ToolCalls) != 2 || !res.ToolCalls[0].OK || res.ToolCalls[1].OK {
		t.Errorf("ToolCalls = %+v, want one ok and one failed call", res.ToolCalls)
	}
	if res.Stats.ToolCalls != 2 || res.Stats.BytesFromTools <= 0 {
		t.Errorf("Stats = %+v", res.Stats)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"ok":true`, `"result":null`, `"logs":[]`, `"toolCalls":[`, `"stats":{"durationMs":`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON %s lacks %s", b, key)
		}
	}
}

func TestRunConsole(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []LogEntry
	}{
		{name: "levels", src: `console.log("a"); console.info("b"); console.warn("c"); console.error("d"); console.debug("e");`,
			want: []LogEntry{{"log", "a"}, {"info", "b"}, {"warn", "c"}, {"error", "d"}, {"debug", "e"}}},
		{name: "strings as is, values like JSON", src: `console.log("n =", 1.5, true, null, undefined, "x\ny", ["s", 2], { k: "v", u: undefined });`,
			want: []LogEntry{{"log", "n = 1.5 true null undefined x\ny [\"s\",2] {\"k\":\"v\",\"u\":undefined}"}}},
		{name: "functions, BigInt, symbols", src: `function named() {} console.log(named, () => 1, 10n, Symbol("s"), { f: named });`,
			want: []LogEntry{{"log", `[Function: named] [Function (anonymous)] 10n Symbol(s) {"f":[Function: named]}`}}},
		{name: "cycles", src: `const a: any = { name: "a" }; a.self = a; a.list = [a]; console.log(a);`,
			want: []LogEntry{{"log", `{"name":"a","self":"[Circular]","list":["[Circular]"]}`}}},
		{name: "maps, sets, dates", src: `console.log(new Map([["k", 1]]), new Set([1, 2]), new Date(0));`,
			want: []LogEntry{{"log", `Map(1) {"k" => 1} Set(2) {1,2} "1970-01-01T00:00:00.000Z"`}}},
		{name: "errors as their stack", src: "const e = new Error(\"boom\");\nconsole.error(e);\nconsole.log({ e });",
			want: []LogEntry{{"error", "Error: boom\n    at prog.ts:1:11"}, {"log", `{"e":[Error: boom]}`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSource(t, tt.src, RunOptions{})
			mustOK(t, res)
			if len(res.Logs) != len(tt.want) {
				t.Fatalf("logs = %q, want %q", res.Logs, tt.want)
			}
			for i := range tt.want {
				if res.Logs[i] != tt.want[i] {
					t.Errorf("log %d = %q, want %q", i, res.Logs[i], tt.want[i])
				}
			}
		})
	}
}

func TestRunOutputLimit(t *testing.T) {
	res := runSource(t, `console.log("x".repeat(30)); console.log("y".repeat(30)); console.log("z");`, RunOptions{Limits: Limits{MaxOutput: 40}})
	mustOK(t, res)
	want := []LogEntry{
		{"log", strings.Repeat("x", 30)},
		{"log", strings.Repeat("y", 10)},
		{"warn", "[mcpcode: 21 characters of output omitted: output limit of 40 characters reached (--max-output)]"},
	}
	if len(res.Logs) != len(want) {
		t.Fatalf("logs = %q, want %q", res.Logs, want)
	}
	for i := range want {
		if res.Logs[i] != want[i] {
			t.Errorf("log %d = %q, want %q", i, res.Logs[i], want[i])
		}
	}
	if res.LogsOmitted != 21 {
		t.Errorf("LogsOmitted = %d, want 21", res.LogsOmitted)
	}
}

// TestRunTimers runs timers through setTimeout. A timer is due at its
// creation time plus its delay, so a timer created later with an equal or a
// longer delay fires later, whatever the machine's speed: the cases assert
// only such orders. That a shorter delay created later fires first is
// asserted with the loop's clock stopped, in
// TestRunTimersOrderByDueTimeThenCreation.
func TestRunTimers(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
		logs []string
	}{
		// 0 and 1 ms are the same delay (1 ms); b's 5 ms and the awaited
		// timer, created after b with the same delay, come last.
		{name: "order by delay, then creation", src: `const out: string[] = [];
setTimeout(() => out.push("a"), 0);
setTimeout(() => out.push("a2"), 0);
setTimeout((x: string) => out.push(x), 1, "arg");
setTimeout(() => out.push("b"), 5);
await new Promise((r) => setTimeout(r, 5));
export default out;`, want: `["a","a2","arg","b"]`},
		// The awaited timer is created after the cleared one, with a longer
		// delay: the cleared one would have fired first.
		{name: "clearTimeout", src: `let fired = false;
const id = setTimeout(() => { fired = true; }, 1);
clearTimeout(id);
clearTimeout(12345);
await new Promise((r) => setTimeout(r, 5));
export default fired;`, want: `false`},
		// The result is read before the timer fires; the timer's log shows
		// the run waited for it.
		{name: "run waits for pending timers", src: `let n = 0;
setTimeout(() => { n++; console.log("late", n); }, 5);
export default "early";`, want: `"early"`, logs: []string{"late 1"}},
		// The default export has settled before its timer even exists, and
		// the run still waits for it and for the timer it starts.
		{name: "run waits for timers started after the result settled", src: `export default async () => {
  console.log("settled");
  setTimeout(() => {
    console.log("timer");
    setTimeout(() => console.log("timer from a timer"), 1);
  }, 1);
  return "early";
};`, want: `"early"`, logs: []string{"settled", "timer", "timer from a timer"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runSource(t, tt.src, RunOptions{})
			mustOK(t, res)
			if string(res.Result) != tt.want {
				t.Errorf("result = %s, want %s", res.Result, tt.want)
			}
			if got, want := logText(res), strings.Join(tt.logs, "\n"); got != want {
				t.Errorf("logs = %q, want %q", got, want)
			}
		})
	}
}

// TestRunTimersOrderByDueTimeThenCreation: the loop fires timers by due time
// (creation time plus delay), and timers due at the same instant in the
// order they were created. The loop's clock is stopped and moved by hand,
// so no wall time passes between creations.
func TestRunTimersOrderByDueTimeThenCreation(t *testing.T) {
	l := newEventLoop()
	base := time.Now()
	clock := base
	l.now = func() time.Time { return clock }
	var fired []string
	add := func(name string, d time.Duration) {
		l.addTimer(d*time.Millisecond, func() error { fired = append(fired, name); return nil })
	}
	add("b", 5)  // due at 5
	add("a", 1)  // due at 1: created after b, fires before it
	add("a2", 1) // due at 1 too: fires after a, created before it
	add("gone", 1)
	l.clearTimer(l.nextTimerID) // never fires
	clock = base.Add(3 * time.Millisecond)
	add("c", 2) // due at 5 too: fires after b, created before it
	add("d", 1) // due at 4: created after b, fires before it

	fireDue := func(at time.Duration) {
		t.Helper()
		for {
			tm := l.dueTimer(base.Add(at * time.Millisecond))
			if tm == nil {
				return
			}
			if err := tm.fire(); err != nil {
				t.Fatal(err)
			}
		}
	}
	steps := []struct {
		at      time.Duration
		fired   string
		pending int
	}{
		{at: 0, fired: "", pending: 5},
		{at: 1, fired: "a a2", pending: 3},
		{at: 3, fired: "a a2", pending: 3},
		{at: 4, fired: "a a2 d", pending: 2},
		{at: 5, fired: "a a2 d b c", pending: 0},
	}
	for _, s := range steps {
		fireDue(s.at)
		if got := strings.Join(fired, " "); got != s.fired || l.pending() != s.pending {
			t.Errorf("at %d ms: fired %q with %d pending, want %q with %d pending", s.at, got, l.pending(), s.fired, s.pending)
		}
	}
}

func TestRunPollingLoop(t *testing.T) {
	fc := newFakeCaller()
	src := `import { getDeployment } from "servers/slack/getDeployment";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let polls = 0;
while (true) {
  polls++;
  const d = await getDeployment({ id: "deploy-1" });
  if (d.data?.status === "complete" || (d as any).status === "complete") break;
  await sleep(10);
}
console.log("deployment complete after", polls, "polls");
export default polls;`
	res := runSource(t, src, RunOptions{Caller: fc})
	mustOK(t, res)
	if string(res.Result) != "3" || logText(res) != "deployment complete after 3 polls" {
		t.Errorf("result %s, logs %q", res.Result, logText(res))
	}
}

func TestRunErrorsMapToTypeScriptLines(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"util.ts": "export interface X { a: number }\n\nexport function explode(x: X): number {\n  throw new RangeError(\"bad \" + x.a);\n}\n"})
	src := "import { explode } from \"./util\";\ninterface Unused { b: string }\n\nfunction outer(): number {\n  return explode({ a: 1 });\n}\nexport default outer();\n"
	res := runSource(t, src, RunOptions{Workspace: ws})
	if res.Error == nil || res.Error.Kind != KindRuntime {
		t.Fatalf("error = %+v, want a runtime error", res.Error)
	}
	if res.Error.Message != "RangeError: bad 1" {
		t.Errorf("message = %q", res.Error.Message)
	}
	for _, want := range []string{"at explode (util.ts:4:9)", "at outer (prog.ts:5:10)", "at prog.ts:7:16"} {
		if !strings.Contains(res.Error.Stack, want) {
			t.Errorf("stack lacks %q:\n%s", want, res.Error.Stack)
		}
	}
	if strings.Contains(res.Error.Stack, bundleFileName) || strings.Contains(res.Error.Stack, "mcpcode:") {
		t.Errorf("stack shows runtime internals:\n%s", res.Error.Stack)
	}
}

func TestRunUnhandledRejectionIsReported(t *testing.T) {
	res := runSource(t, `import { getDocument } from "servers/google-drive/getDocument";
["missing"].forEach(async (id) => { await getDocument({ documentId: id }); });
export default "done";`, RunOptions{})
	mustOK(t, res)
	if !strings.Contains(logText(res), "unhandled promise rejection") || !strings.Contains(logText(res), "document missing not found") {
		t.Errorf("logs = %q, want an unhandled rejection warning", logText(res))
	}
}

func TestRunNeverSettles(t *testing.T) {
	res := runSource(t, `await new Promise(() => {}); export default 1;`, RunOptions{})
	if res.Error == nil || res.Error.Kind != KindRuntime || !strings.Contains(res.Error.Message, "never finished") {
		t.Fatalf("error = %+v, want the never-finished runtime error", res.Error)
	}
}
