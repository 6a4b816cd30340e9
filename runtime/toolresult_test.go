package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// oneResultCaller serves one tool, t.x (with or without an output schema),
// whose every call returns res. With dropText it honours
// mcptool.WithStructuredOnly as the worker relay does: the content is left
// out when the structured content suffices.
type oneResultCaller struct {
	structured bool
	res        *mcptool.Result
	dropText   bool
}

func (c oneResultCaller) Tools(context.Context, string) ([]mcptool.Tool, error) {
	return []mcptool.Tool{mcptest.ToolDef{Name: "x", HasOutputSchema: c.structured, ReadOnly: true}.Tool()}, nil
}

func (c oneResultCaller) CallTool(ctx context.Context, _, _ string, _ json.RawMessage) (*mcptool.Result, error) {
	r := *c.res
	if c.dropText && mcptool.StructuredOnly(ctx) && r.StructuredSuffices() {
		r.Content = nil
	}
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
// the result's bytes; the same whether the caller leaves the content out
// when the program said it uses the structured content alone
// (mcptool.WithStructuredOnly) or not.
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
		{"null structured content: the text parsed as JSON", true,
			mcptool.Result{Content: text(`{"a":2}`), StructuredContent: obj(` null `)},
			`ok {"a":2} keys=a plainProto=true`},
	}
	for _, tt := range tests {
		for _, drop := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/dropText=%v", tt.name, drop), func(t *testing.T) {
				t.Parallel()
				res := runSource(t, describeResult, RunOptions{Caller: oneResultCaller{structured: tt.structured, res: &tt.res, dropText: drop}})
				mustOK(t, res)
				if got := logLines(res); !strings.HasPrefix(got, tt.want) {
					t.Errorf("program saw\n%s\nwant\n%s", got, tt.want)
				}
			})
		}
	}
}

// hintCaller records whether each call's context asked for structured
// content alone.
type hintCaller struct {
	oneResultCaller
	mu   sync.Mutex
	seen []bool
}

func (c *hintCaller) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	c.mu.Lock()
	c.seen = append(c.seen, mcptool.StructuredOnly(ctx))
	c.mu.Unlock()
	return c.oneResultCaller.CallTool(ctx, server, tool, args)
}

// TestStructuredOnlyHint: a call asks for structured content alone exactly
// when the tool declares an output schema (then shapeToolResult uses
// nothing else when the structured content suffices).
func TestStructuredOnlyHint(t *testing.T) {
	t.Parallel()
	for _, structured := range []bool{false, true} {
		c := &hintCaller{oneResultCaller: oneResultCaller{structured: structured, res: &mcptool.Result{Content: textResult("{}").Content}}}
		res := runSource(t, describeResult, RunOptions{Caller: c})
		mustOK(t, res)
		if len(c.seen) != 1 || c.seen[0] != structured {
			t.Errorf("output schema %v: the call's context asked for structured content alone: %v", structured, c.seen)
		}
	}
}

func logLines(res *Result) string {
	var lines []string
	for _, l := range res.Logs {
		lines = append(lines, l.Text)
	}
	return strings.Join(lines, "\n")
}
