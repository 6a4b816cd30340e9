package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// upstreamCaller is a Caller with the runtime's optional interfaces: its
// "work" tool reports progress and a log message through the call's
// notice sink; "hang" waits until its call is cancelled; it has one
// resource.
type upstreamCaller struct {
	mu        sync.Mutex
	cancelled int
	notices   bool // DeliversNotices
}

var (
	_ runtime.NoticeDeliverer = (*upstreamCaller)(nil)
	_ runtime.ResourceReader  = (*upstreamCaller)(nil)
)

func (c *upstreamCaller) Tools(context.Context, string) ([]mcptool.Tool, error) {
	var out []mcptool.Tool
	for _, raw := range []string{`{"name":"work","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		`{"name":"hang","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`,
		`{"name":"count","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`} {
		t, _, _ := mcptool.Parse(json.RawMessage(raw))
		out = append(out, t)
	}
	return out, nil
}

func (c *upstreamCaller) CallTool(ctx context.Context, server, tool string, _ json.RawMessage) (*mcptool.Result, error) {
	switch tool {
	case "work":
		if s := mcptool.NoticesOf(ctx); s != nil {
			s.Send(mcptool.Notice{Server: server, Kind: mcptool.NoticeLog, Level: "warning", Data: json.RawMessage(`"disk almost full"`)})
			for i := 1; i <= 3; i++ {
				s.Send(mcptool.Notice{Server: server, Kind: mcptool.NoticeProgress, Progress: float64(i), Total: 3, Message: "step"})
			}
		}
		return &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":"worked"}]`)}, nil
	case "count":
		c.mu.Lock()
		defer c.mu.Unlock()
		return &mcptool.Result{Content: json.RawMessage(fmt.Sprintf(`[{"type":"text","text":"%d"}]`, c.cancelled))}, nil
	case "hang":
		<-ctx.Done()
		c.mu.Lock()
		c.cancelled++
		c.mu.Unlock()
		return nil, ctx.Err()
	}
	return nil, errors.New("no such tool")
}

func (c *upstreamCaller) DeliversNotices() bool { return c.notices }

func (c *upstreamCaller) ListResources(context.Context, string) (json.RawMessage, error) {
	return json.RawMessage(`[{"uri":"test://a","name":"a"}]`), nil
}

func (c *upstreamCaller) ReadResource(_ context.Context, _, uri string) (json.RawMessage, error) {
	if uri != "test://a" {
		return nil, errors.New("resource " + uri + " not found")
	}
	return json.RawMessage(`[{"uri":"test://a","mimeType":"text/plain","text":"hello from a"}]`), nil
}

const upstreamProgram = `import { callMCPTool, readResource, listResources, AbortController, ToolError } from "mcpcode:runtime";
const seen: string[] = [];
await callMCPTool("up", "work", {}, { onProgress: (p) => seen.push(p.progress + "/" + p.total + " " + p.message) });
console.log("progress:", seen.join(", "));
try { await callMCPTool("up", "hang", {}, { timeoutMs: 30 }); } catch (e: any) { console.log("timeout:", e.kind, e.message); }
const ac = new AbortController();
const pending = callMCPTool("up", "hang", {}, { signal: ac.signal });
setTimeout(() => ac.abort(), 5);
try { await pending; } catch (e: any) { console.log("abort:", e.kind, e.message); }
try { await callMCPTool("up", "work", {}, { signal: ac.signal }); } catch (e: any) { console.log("already aborted:", e.kind); }
try { await callMCPTool("up", "work", {}, { timeoutMs: -1 }); } catch (e: any) { console.log("bad options:", e.kind); }
const list: any[] = await listResources("up");
const contents: any[] = await readResource("up", list[0].uri);
console.log("resource:", contents[0].text);
try { await readResource("up", "test://missing"); } catch (e: any) { console.log("missing:", e instanceof ToolError, e.kind); }
// Both hanging calls were cancelled upstream while the run goes on (not
// only when it ends): wait for it, bounded by the run's timeout.
while ((await callMCPTool<any>("up", "count", {})).text !== "2") await new Promise((r) => setTimeout(r, 5));
console.log("cancelled upstream during the run");
`

// TestCallOptionsNoticesAndResources runs one program in this process and
// in a worker: progress reaches onProgress and, with the server's log
// message, the run's output marked as the server's; a call's timeoutMs and
// signal cancel it (upstream too); resources are listed and read.
func TestCallOptionsNoticesAndResources(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand()})
	for _, isolation := range []string{"in-process", "worker"} {
		t.Run(isolation, func(t *testing.T) {
			ws := newWorkspace(t, nil)
			caller := &upstreamCaller{notices: true}
			opts := runtime.RunOptions{Workspace: ws, Caller: caller, Limits: runtime.Limits{Timeout: guard}}
			var res *runtime.Result
			if isolation == "worker" {
				res = pool.Run(t.Context(), source(ws, upstreamProgram), opts)
			} else {
				res = runtime.Run(t.Context(), bundleSource(t, ws, upstreamProgram), opts)
			}
			if !res.OK {
				t.Fatalf("run: %+v", res.Error)
			}
			var lines []string
			for _, l := range res.Logs {
				lines = append(lines, l.Level+": "+l.Text)
			}
			got := strings.Join(lines, "\n")
			for _, want := range []string{
				"server: [up warning] disk almost full",
				"server: [up progress] 1/3 step",
				"server: [up progress] 3/3 step",
				"log: progress: 1/3 step, 2/3 step, 3/3 step",
				"log: timeout: canceled calling up.hang: no answer within timeoutMs (30 ms); the call was cancelled",
				"log: abort: canceled calling up.hang: the call was aborted (its signal); the server was told to cancel it",
				"log: already aborted: canceled",
				"log: bad options: validation",
				"log: resource: hello from a",
				"log: missing: true transport",
				"log: cancelled upstream during the run",
			} {
				if !strings.Contains(got, want) {
					t.Errorf("the output lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// TestNoNoticesWithoutADeliverer: a Caller that does not deliver notices
// (a wrapper that transforms results, say) gets no sink, and nothing of
// the server's reaches the run's output.
func TestNoNoticesWithoutADeliverer(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	res := runtime.Run(t.Context(), bundleSource(t, ws, `import { callMCPTool } from "mcpcode:runtime";
let n = 0;
await callMCPTool("up", "work", {}, { onProgress: () => n++ });
console.log("progress reports:", n);`), runtime.RunOptions{Workspace: ws, Caller: &upstreamCaller{notices: false}, Limits: runtime.Limits{Timeout: guard}})
	if !res.OK || len(res.Logs) != 1 || res.Logs[0].Text != "progress reports: 0" {
		t.Errorf("run: %+v %+v", res.Logs, res.Error)
	}
}
