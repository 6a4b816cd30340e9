package worker

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// sheetResult is a 10,000-row table as the demo's google-drive getSheet
// sends it: the rows as structured content and again as the content's text
// (5.4 MB in all), every cell a string as the demo sends it.
func sheetResult(n int) *mcptool.Result {
	var rows strings.Builder
	rows.WriteString(`{"columns":["orderId","orderDate","salesforceId","name","email","phone","product","quantity","amount","Status"],"rows":[`)
	for i := range n {
		if i > 0 {
			rows.WriteByte(',')
		}
		status := [4]string{"pending", "shipped", "delivered", "cancelled"}[i%4]
		fmt.Fprintf(&rows, `{"Status":%q,"amount":"%d.%02d","email":"customer%d@example.com","name":"Customer %d","orderDate":"2025-%02d-%02d","orderId":"ORD-%06d","phone":"(415) 555-%04d","product":"Data Connector","quantity":"%d","salesforceId":"00Q5f%012d"}`,
			status, 100+i%9000, i%100, i, i, 1+i%12, 1+i%28, 100000+i, i%10000, 1+i%20, i)
	}
	rows.WriteString(`],"sheetId":"abc123","title":"Orders"}`)
	text, _ := json.Marshal(rows.String())
	return &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":` + string(text) + `}]`), StructuredContent: json.RawMessage(rows.String())}
}

// sheetCaller serves google-drive.getSheet (output schema declared) with
// one precomputed result.
type sheetCaller struct{ res *mcptool.Result }

func (c sheetCaller) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	return newFakeCaller().Tools(ctx, server)
}

func (c sheetCaller) CallTool(context.Context, string, string, json.RawMessage) (*mcptool.Result, error) {
	r := *c.res
	return &r, nil
}

// BenchmarkRun10kRowsWorkerStructured is the worker's side of the
// article's flow as the demo server answers it: a 10,000-row getSheet
// result with structured content and its text copy (5.5 MB), relayed from
// this process to a waiting worker (the text copy left out: the program
// uses the structured content), built into JS values there, filtered, five
// rows returned. cpu-ms/run and faults/run are the worker's CPU and minor
// page faults.
func BenchmarkRun10kRowsWorkerStructured(b *testing.B) {
	ws := newWorkspace(b, nil)
	p := bundleSource(b, ws, `import { getSheet } from "servers/google-drive/getSheet";
const sheet = await getSheet({ sheetId: "orders" });
const pending = sheet.rows.filter((r) => r.Status === "pending");
console.log(pending.length + " pending of " + sheet.rows.length);
export default pending.slice(0, 5);`)
	res := sheetResult(10000)
	pool := NewPool(Options{Command: testWorkerCommand(), Warm: 1})
	defer pool.Close()
	opts := runtime.RunOptions{Workspace: ws, Caller: sheetCaller{res}}
	b.SetBytes(int64(len(res.Content) + len(res.StructuredContent)))
	b.ReportAllocs()
	waitIdleB(b, pool)
	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &before)
	runs := 0
	for b.Loop() {
		b.StopTimer()
		waitIdleB(b, pool)
		b.StartTimer()
		res := pool.RunProgram(context.Background(), p, opts)
		if !res.OK || res.Logs[0].Text != "2500 pending of 10000" {
			b.Fatalf("%+v %v", res.Error, res.Logs)
		}
		runs++
	}
	pool.Close() // waits for every worker: their CPU and faults are counted
	waitReaped(b)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &after)
	cpu := (after.Utime.Nano() + after.Stime.Nano()) - (before.Utime.Nano() + before.Stime.Nano())
	b.ReportMetric(float64(cpu)/1e6/float64(runs), "cpu-ms/run")
	b.ReportMetric(float64(after.Minflt-before.Minflt)/float64(runs), "faults/run")
}
