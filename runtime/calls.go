package runtime

import (
	"sync"
	"time"
)

// callBook records the tool calls of a run, from the VM goroutine (start)
// and the call goroutines (finish).
type callBook struct {
	mu      sync.Mutex
	records []ToolCallRecord
	done    []bool
	started []time.Time
	bytes   int64
}

func (b *callBook) start(server, tool string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.records = append(b.records, ToolCallRecord{Server: server, Tool: tool})
	b.done = append(b.done, false)
	b.started = append(b.started, time.Now())
	return len(b.records) - 1
}

func (b *callBook) finish(i int, d time.Duration, ok bool, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.records[i].Ms = d.Milliseconds()
	b.records[i].OK = ok
	b.done[i] = true
	b.bytes += n
}

// snapshot returns the records; calls still in flight count as failed,
// with their time so far.
func (b *callBook) snapshot() ([]ToolCallRecord, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]ToolCallRecord, len(b.records))
	copy(out, b.records)
	for i := range out {
		if !b.done[i] {
			out[i].Ms = time.Since(b.started[i]).Milliseconds()
		}
	}
	return out, b.bytes
}
