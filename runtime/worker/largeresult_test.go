package worker

import (
	"context"
	"testing"

	"github.com/mcpcode/mcpcode/runtime"
)

// TestLargeResultInWorker: a result of several megabytes reaches the
// program whole.
func TestLargeResultInWorker(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	pool := NewPool(Options{Command: testWorkerCommand()})
	defer pool.Close()
	res := pool.Run(context.Background(), source(ws, `import { getSheet } from "servers/google-drive/getSheet";
const sheet = await getSheet({ sheetId: "orders" });
export default [sheet.rows.length, sheet.rows[9999].orderId, sheet.rows.filter((r) => r.Status === "pending").length];`),
		runtime.RunOptions{Workspace: ws, Caller: sheetCaller{sheetResult(10000)}})
	mustOK(t, res)
	if string(res.Result) != `[10000,"ORD-109999",2500]` {
		t.Errorf("result %s", res.Result)
	}
}
