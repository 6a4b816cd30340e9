package worker

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

// TestAdversarialWorkerWatchdogBaseCountsGarbage: in worker isolation the
// memory watchdog's base was the heap as the run started, garbage included
// (the worker runs with GOGC=400 and has just bundled and compiled the
// program, whose size the program controls), while it stops a run only if
// the heap is still over base+limit after a collection (found by an
// adversarial review; the base is now live memory, runtime.memoryBase). A program padded with source that makes garbage as it is
// bundled holds 1.25 times its --memory limit, live, and runs to its end; the
// same program without the padding is stopped.
func TestAdversarialWorkerWatchdogBaseCountsGarbage(t *testing.T) {
	t.Parallel()
	const limit = 64 << 20
	for _, tt := range []struct {
		name     string
		oneShot  bool // a worker started for its job (no warm-up)
		padFiles int
	}{
		{"no padding", false, 0},
		{"padded with garbage-making source", false, 1},
		{"one-shot, padded with garbage-making source", true, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pool := newPool(t, Options{Command: testWorkerCommand(), OneShot: tt.oneShot})
			files := map[string]string{}
			var imports strings.Builder
			for i := range tt.padFiles {
				files[fmt.Sprintf("pad%d.ts", i)] = fmt.Sprintf("export function pad%d() { return [", i) + strings.Repeat("0,", 500000) + "]; }\n"
				fmt.Fprintf(&imports, "import { pad%d } from \"./pad%d\";\nif (Date.now() < 0) pad%d();\n", i, i, i)
			}
			// 80 MiB of 1 MiB strings, live at once, held across many
			// watchdog samples.
			src := imports.String() + `const keep: string[] = [];
for (let i = 0; i < 80; i++) keep.push("x".repeat(1 << 20) + i);
await new Promise((r) => setTimeout(r, 300)); // held across many watchdog samples
export default keep.length;`
			ws := newWorkspace(t, files)
			res := pool.Run(t.Context(), source(ws, src), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Memory: limit, Timeout: 5 * time.Minute}}) // bundling 1 MB under the race detector takes long
			if res.OK || res.Error == nil || res.Error.Limit != runtime.LimitMemory {
				t.Errorf("a program holding 80 MiB under a 64 MiB limit: ok=%v result %s error %+v, want the memory limit", res.OK, res.Result, res.Error)
			}
		})
	}
}
