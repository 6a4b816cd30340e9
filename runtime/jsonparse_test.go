package runtime

import (
	"strings"
	"testing"
)

// TestSandboxJSONParse: a program's JSON.parse builds its values from the
// text (jsonToValue) and still behaves as the built-in: the same values,
// a reviver, SyntaxErrors, ToString of its argument, its name, length and
// property flags, and a bound on nesting instead of a crash.
func TestSandboxJSONParse(t *testing.T) {
	res := runSource(t, `const checks: Record<string, boolean> = {};
const v = JSON.parse('{"b":1,"a":[true,null,"x\\u00e9",-0,1.5e3],"__proto__":{"p":1}}');
checks.values = JSON.stringify(v) === '{"b":1,"a":[true,null,"xé",0,1500],"__proto__":{"p":1}}' && Object.is(v.a[3], -0);
checks.protoIsData = Object.getPrototypeOf(v) === Object.prototype && Object.keys(v).join() === "b,a,__proto__";
checks.reviver = JSON.parse('{"a":1,"b":[2]}', (k, x) => typeof x === "number" ? x * 10 : x).b[0] === 20;
checks.toString = JSON.parse({ toString: () => "[1,2]" } as any).length === 2;
const threw = (f: () => unknown) => { try { f(); return ""; } catch (e) { return e instanceof SyntaxError ? "SyntaxError: " + e.message : String(e); } };
checks.syntax = threw(() => JSON.parse("{a:1}")).startsWith("SyntaxError: JSON.parse: at byte 1");
checks.empty = threw(() => JSON.parse(undefined as any)).startsWith("SyntaxError");
checks.deep = threw(() => JSON.parse("[".repeat(200000))).includes("nests more than");
checks.symbol = threw(() => JSON.parse(Symbol() as any)).includes("TypeError");
const d = Object.getOwnPropertyDescriptor(JSON, "parse")!;
checks.flags = d.writable === true && d.enumerable === false && d.configurable === true;
checks.fn = JSON.parse.name === "parse" && JSON.parse.length === 2;
const failed = Object.keys(checks).filter((k) => !checks[k]);
export default failed.length ? "failed: " + failed.join(", ") : "ok";`, RunOptions{})
	mustOK(t, res)
	if string(res.Result) != `"ok"` {
		t.Fatalf("result %s", res.Result)
	}
}

// TestSandboxJSONParseIsTheFastOne: the sandbox's JSON.parse is not goja's
// (whose message for the same text comes from encoding/json).
func TestSandboxJSONParseIsTheFastOne(t *testing.T) {
	res := runSource(t, `try { JSON.parse("[1,]"); } catch (e) { console.log(String(e)); }`, RunOptions{})
	mustOK(t, res)
	if got := logText(res); !strings.HasPrefix(got, "SyntaxError: JSON.parse: at byte 3") {
		t.Fatalf("logged %q", got)
	}
}
