package runtime

import (
	"runtime/debug"

	"github.com/dlclark/regexp2/v2"
)

// heapSlack is what the Go runtime and goja need besides the program's data.
const heapSlack = 32 << 20

// limitWorkerRuntime sets the process-wide runtime limits of a worker: a
// soft heap limit near the memory limit (so the GC works hard before the
// OS limit is reached) and the regexp match timeout at the run's wall time
// (this process serves one run).
func limitWorkerRuntime(l Limits) {
	debug.SetMemoryLimit(l.Memory + heapSlack)
	regexp2.DefaultMatchTimeout = l.Timeout
}
