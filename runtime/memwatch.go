package runtime

import (
	goruntime "runtime"
	"runtime/metrics"
	"time"
)

// memorySampleEvery is how often the memory watchdog looks at the heap.
const memorySampleEvery = 10 * time.Millisecond

// watchMemory stops the run when the Go heap grows by more than the memory
// limit over base, what was live before the program came (MemoryBase). It
// is a best-effort guard: in-process the heap is shared with everything
// else (so growth is attributed approximately), and a single native
// allocation can outrun it; worker processes add an OS limit. The heap it reads counts garbage not yet
// collected, and a one-shot process collects seldom (cli, worker): before
// stopping the run it collects and reads again, so that only memory still
// in use counts.
func (r *run) watchMemory(stop <-chan struct{}, base uint64) {
	t := time.NewTicker(memorySampleEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-r.stopC:
			return
		case <-t.C:
			if over(HeapBytes(), base, r.lim.Memory) {
				goruntime.GC()
				if over(HeapBytes(), base, r.lim.Memory) {
					r.stop(r.limitError(LimitMemory))
					return
				}
			}
		}
	}
}

// MemoryBase is a heap a run's memory can be counted from
// (RunOptions.MemoryBase): what is live now, after a garbage collection.
// The heap as it is holds the garbage of what came before (bundling and
// compiling the program, whose size the program controls), which a
// process that collects seldom (a worker) has plenty of; counted from
// there, it would be the program's to fill. What the last collection found
// live is no better: it may have run while the bundler's data was live.
func MemoryBase() uint64 {
	goruntime.GC()
	return HeapBytes()
}

// over says whether the heap has grown from base by more than limit.
func over(now, base uint64, limit int64) bool {
	return now > base && int64(now-base) > limit
}

// HeapBytes is the Go heap of this process as it is, garbage not yet
// collected included.
func HeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
