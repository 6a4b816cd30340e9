package runtime

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// oneResultCaller serves one tool, t.x (with or without an output schema),
// whose every call returns res.
type oneResultCaller struct {
	structured bool
	res        *mcptool.Result
}

func (c oneResultCaller) Tools(context.Context, string) ([]mcptool.Tool, error) {
	return []mcptool.Tool{toolDef{Name: "x", HasOutputSchema: c.structured, ReadOnly: true}.tool()}, nil
}

func (c oneResultCaller) CallTool(context.Context, string, string, json.RawMessage) (*mcptool.Result, error) {
	r := *c.res
	return &r, nil
}

// describeResult calls t.x and describes what the program got: its JSON,
// its own keys in order, whether its prototype is Object.prototype; or the
// ToolError's kind and message.
const describeResult = `import { callMCPTool } from "mcpcode:runtime";
try {
  const v: any = await callMCPTool("t", "x", {});
  const proto = v !== null && typeof v === "object" && !Array.isArray(v) ? Object.getPrototypeOf(v) === Object.prototype : "n/a";
  const keys = v !== null && typeof v === "object" ? Object.getOwnPropertyNames(v).join(",") : "";
  console.log("ok " + JSON.stringify(v) + " keys=" + keys + " plainProto=" + proto);
} catch (e: any) {
  console.log("error " + e.kind + ": " + e.message);
}`

// TestToolResultShapes: what callMCPTool resolves to, built straight from
// the result's bytes.
func TestToolResultShapes(t *testing.T) {
	t.Parallel()
	text := func(s string) json.RawMessage { return textResult(s).Content }
	tests := []struct {
		name       string
		structured bool
		res        mcptool.Result
		want       string
	}{
		{"structured content is the value, in its key order (as JSON.parse orders keys)", true,
			mcptool.Result{Content: text(`{"b":1}`), StructuredContent: obj(`{"b":1,"a":[1,2.5,"é"],"1":null}`)},
			`ok {"1":null,"b":1,"a":[1,2.5,"é"]} keys=1,b,a plainProto=true`},
		{"a __proto__ key is data", true,
			mcptool.Result{StructuredContent: obj(`{"__proto__":{"polluted":true},"x":1}`)},
			`ok {"__proto__":{"polluted":true},"x":1} keys=__proto__,x plainProto=true`},
		{"the text copy is not decoded when structured content is the value", true,
			mcptool.Result{Content: obj(`"not an array of blocks"`), StructuredContent: obj(`{"a":1}`)},
			`ok {"a":1} keys=a plainProto=true`},
		{"no structured content: the text parsed as JSON", true,
			mcptool.Result{Content: text(`{"a":1}`)},
			`ok {"a":1} keys=a plainProto=true`},
		{"no output schema: a ToolResult", false,
			mcptool.Result{Content: text(`{"a":1}`), StructuredContent: obj(`{"a":1}`)},
			`ok {"content":[{"text":"{\"a\":1}","type":"text"}],"text":"{\"a\":1}","data":{"a":1},"structuredContent":{"a":1}} keys=content,text,data,structuredContent plainProto=true`},
		{"broken content without structured content is a transport error", false,
			mcptool.Result{Content: obj(`"not blocks"`)},
			`error transport: calling t.x: the server sent content that is not an array of content blocks`},
		{"structured content that is not JSON", true,
			mcptool.Result{StructuredContent: obj(`{"a":1,}`)},
			`error transport: calling t.x: the result is not valid JSON (at byte 7: expected a property name, found '}')`},
		{"structured content nested too deep", true,
			mcptool.Result{StructuredContent: obj(strings.Repeat(`{"a":`, maxJSONDepth+1) + "1" + strings.Repeat("}", maxJSONDepth+1))},
			`error transport: calling t.x: the result cannot be used: it nests more than 10000 levels deep`},
		{"a tool error keeps its result", true,
			mcptool.Result{IsError: true, Content: text("no such sheet"), StructuredContent: obj(`{"code":404}`)},
			`error tool: no such sheet`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := runSource(t, describeResult, RunOptions{Caller: oneResultCaller{structured: tt.structured, res: &tt.res}})
			mustOK(t, res)
			if got := logLines(res); !strings.HasPrefix(got, tt.want) {
				t.Errorf("program saw\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func logLines(res *Result) string {
	var lines []string
	for _, l := range res.Logs {
		lines = append(lines, l.Text)
	}
	return strings.Join(lines, "\n")
}
