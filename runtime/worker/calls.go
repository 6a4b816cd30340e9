package worker

import (
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

// callLog is the parent's own record of the tool calls it relays for one
// job: it replaces what the worker reports.
type callLog struct {
	mu      sync.Mutex
	records []runtime.ToolCallRecord
	done    []bool
	started []time.Time
	bytes   int64
}

// start records a call about to be sent and returns its index.
func (l *callLog) start(server, tool string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, runtime.ToolCallRecord{Server: server, Tool: tool})
	l.done = append(l.done, false)
	l.started = append(l.started, time.Now())
	return len(l.records) - 1
}

// finish records how call i ended and the bytes its answer had.
func (l *callLog) finish(i int, d time.Duration, ok bool, n int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records[i].Ms = d.Milliseconds()
	l.records[i].OK = ok
	l.done[i] = true
	l.bytes += n
}

// snapshot returns the records (never nil) and the bytes received; calls
// still in flight count as failed, with their time so far.
func (l *callLog) snapshot() ([]runtime.ToolCallRecord, int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]runtime.ToolCallRecord, len(l.records))
	copy(out, l.records)
	for i := range out {
		if !l.done[i] {
			out[i].Ms = time.Since(l.started[i]).Milliseconds()
		}
	}
	return out, l.bytes
}
