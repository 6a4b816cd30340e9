package worker

import (
	"runtime/debug"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/internal/regexptimeout"
)

// heapSlack is what the Go runtime, esbuild and goja need besides the
// program's data.
const heapSlack = 32 << 20

// gcPercent is the GOGC of a process that serves one run and exits (a
// worker, and the CLI's run that started it): it collects a quarter as
// often as Go's default, which leaves its heap growing up to five times
// what is live (in a worker the memory limit still makes the GC work hard
// near the limit, and the memory watchdog counts only live memory). It took
// about 5% off the article's flow.
const gcPercent = 400

// OneRunProcess tunes this process for serving one run and exiting: it
// collects less often (gcPercent). A worker does it for its job; the CLI's
// `run` does it for its own process, which ends with the run.
func OneRunProcess() { debug.SetGCPercent(gcPercent) }

// limitRuntime sets the process-wide runtime limits of a worker: a soft
// heap limit near the memory limit (so the GC works hard before the OS
// limit is reached), fewer collections, and the regexp match timeout at
// the run's wall time (this process serves one job).
func limitRuntime(l runtime.Limits) {
	debug.SetMemoryLimit(l.Memory + heapSlack)
	OneRunProcess()
	regexptimeout.Set(l.Timeout)
}
