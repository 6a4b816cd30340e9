package worker

import (
	"runtime/debug"

	"github.com/mcpcode/mcpcode/internal/hugeheap"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/internal/regexptimeout"
)

// heapSlack is what the Go runtime, esbuild and goja need besides the
// program's data.
const heapSlack = 32 << 20

// hugeHeapBytes is the heap a worker has backed by huge pages when a large
// result comes (internal/hugeheap): room for its values (a 10,000-row
// table builds about 17 MB of them) and the garbage made on the way.
const hugeHeapBytes = 64 << 20

// limitRuntime sets the process-wide runtime limits of a worker: a soft
// heap limit near the memory limit (so the GC works hard before the OS
// limit is reached) and the regexp match timeout at the run's wall time
// (this process serves one job).
func limitRuntime(l runtime.Limits) {
	debug.SetMemoryLimit(l.Memory + heapSlack)
	// A large result's values, when one comes (wireReader.next), on huge
	// pages: this process serves one job.
	hugeheap.Allow(hugeHeapBytes, l.Memory)
	regexptimeout.Set(l.Timeout)
}
