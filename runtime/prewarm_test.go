package runtime

import (
	"context"
	"strings"
	"testing"
)

// TestPrewarmedVMServesOneRun: the VM Prewarm makes is taken by exactly
// one run (a second run gets a fresh VM: nothing the first left on its
// globals), and it gets the run's own stack limit, not the default it was
// made with. Not parallel: Prewarm's VM is the process's.
func TestPrewarmedVMServesOneRun(t *testing.T) {
	ws := newWorkspace(t, nil)
	Prewarm()
	Prewarm() // a second call while a VM waits makes no second one
	first := Run(context.Background(), bundleSource(t, ws, `(globalThis as any).leftOver = "from the first run"; export default 1;`), RunOptions{Workspace: ws})
	if !first.OK {
		t.Fatalf("first run failed: %+v", first.Error)
	}
	if _, waiting := takeSpareVM(); waiting {
		t.Fatal("a VM was still waiting after the first run: two were made, or the run did not take it")
	}
	second := Run(context.Background(), bundleSource(t, ws, `export default typeof (globalThis as any).leftOver;`), RunOptions{Workspace: ws})
	if !second.OK || string(second.Result) != `"undefined"` {
		t.Fatalf("second run = %s, %+v; want \"undefined\": the prewarmed VM served two runs", second.Result, second.Error)
	}

	Prewarm()
	deep := Run(context.Background(), bundleSource(t, ws, `function f(n: number): number { return n === 0 ? 0 : f(n - 1) + 1; } export default f(200);`),
		RunOptions{Workspace: ws, Limits: Limits{MaxStackDepth: 50}})
	if deep.OK || deep.Error.Kind != KindLimit || !strings.Contains(deep.Error.Message, "50 frames") {
		t.Fatalf("a 200-deep recursion under a 50-frame limit in a prewarmed VM: ok=%v %+v; want the stack limit", deep.OK, deep.Error)
	}
}
