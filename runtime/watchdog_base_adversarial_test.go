package runtime

import (
	"fmt"
	"os"
	"os/exec"
	goruntime "runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// TestAdversarialWatchdogBaseCountsGarbage: the memory watchdog stops a
// run only when the heap is still over base+limit after a collection, so
// its base must be live memory too: taken as the heap was at the start
// (found by an adversarial review), garbage included, it compared live
// memory with a base that holds garbage. A one-shot process (GOGC=400, as the CLI's `mcpcode run` and a
// worker set it) collects seldom, so at the start of the run its heap holds
// the garbage of everything before it: bundling and compiling the program,
// whose size the program controls (many files of just under 1 MiB each).
// That garbage becomes the program's extra allowance: a program that holds
// twice its --memory limit runs to its end. The control case (the same
// program, no padding) is stopped.
func TestAdversarialWatchdogBaseCountsGarbage(t *testing.T) {
	if os.Getenv("MCPCODE_TEST_ADV_WATCHDOG_BASE") != "" {
		debug.SetGCPercent(400) // as internal/cli/cmd_run.go and runtime/worker/limits.go
		const limit = 32 << 20
		for _, tt := range []struct {
			name     string
			padFiles int
		}{
			{"no padding", 0},
			{"padded with garbage-making source", 2},
		} {
			goruntime.GC() // each case starts from a clean heap
			files := map[string]string{}
			var imports strings.Builder
			for i := range tt.padFiles {
				name := fmt.Sprintf("pad%d.ts", i)
				files[name] = "export function pad" + fmt.Sprint(i) + "() { return [" + strings.Repeat("0,", 500000) + "]; }\n"
				fmt.Fprintf(&imports, "import { pad%d } from \"./pad%d\";\nif (Date.now() < 0) pad%d();\n", i, i, i)
			}
			// Holds 64 MiB (twice the limit) of 1 MiB strings, live
			// at once, and returns.
			src := imports.String() + `const keep: string[] = [];
for (let i = 0; i < 64; i++) keep.push("x".repeat(1 << 20) + i);
await new Promise((r) => setTimeout(r, 300)); // held across many watchdog samples
export default keep.length;`
			ws := newWorkspace(t, files)
			p, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(src), Skills: defaultPolicy})
			if err != nil {
				t.Fatalf("%s: bundling: %v", tt.name, err)
			}
			res := Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: Limits{Memory: limit, Timeout: 20 * time.Second}})
			if res.OK || res.Error == nil || res.Error.Limit != LimitMemory {
				t.Errorf("%s: a program holding 64 MiB under a 32 MiB limit: ok=%v result %s error %+v, want the memory limit", tt.name, res.OK, res.Result, res.Error)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdversarialWatchdogBaseCountsGarbage$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "MCPCODE_TEST_ADV_WATCHDOG_BASE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}
