package worker

import (
	"runtime/debug"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/internal/regexptimeout"
)

// heapSlack is what the Go runtime, esbuild and goja need besides the
// program's data.
const heapSlack = 32 << 20

// limitRuntime sets the process-wide runtime limits of a worker: a soft
// heap limit near the memory limit (so the GC works hard before the OS
// limit is reached) and the regexp match timeout at the run's wall time
// (this process serves one job).
func limitRuntime(l runtime.Limits) {
	debug.SetMemoryLimit(l.Memory + heapSlack)
	allowHugeHeap(l.Memory)
	regexptimeout.Set(l.Timeout)
}
