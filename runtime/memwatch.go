package runtime

import (
	"runtime/metrics"
	"time"
)

// memorySampleEvery is how often the memory watchdog looks at the heap.
const memorySampleEvery = 10 * time.Millisecond

// watchMemory stops the run when the Go heap grows by more than the memory
// limit over what it was at the start. It is a best-effort guard: in-process
// the heap is shared with everything else (so growth is attributed
// approximately), and a single native allocation can outrun it; worker
// processes add an OS limit.
func (r *run) watchMemory(stop <-chan struct{}) {
	base := heapBytes()
	t := time.NewTicker(memorySampleEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-r.stopC:
			return
		case <-t.C:
			if now := heapBytes(); now > base && int64(now-base) > r.lim.Memory {
				r.stop(r.limitError(LimitMemory))
				return
			}
		}
	}
}

func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}
