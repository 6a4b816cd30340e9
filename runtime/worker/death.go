package worker

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

// diagnose explains a worker that ended without a result: out of memory
// (the Go runtime's fatal message, or a SIGKILL the parent did not send, as
// the kernel's OOM killer does), a native stack overflow, or another crash.
// It waits a little for the process to end, then kills it.
func (s *session) diagnose() *runtime.RunError {
	select {
	case <-s.w.exited:
	case <-time.After(5 * time.Second):
		s.w.kill()
	}
	s.w.killMu.Lock()
	killedByUs := s.w.killed
	s.w.killMu.Unlock()
	stderr := s.w.stderr.String()
	sig, signaled := "", false
	if s.w.state != nil {
		sig, signaled = killedBySignal(s.w.state)
	}
	switch {
	case isOutOfMemory(stderr) || (signaled && sig == "killed" && !killedByUs):
		return s.lim.Exceeded(runtime.LimitMemory)
	case strings.Contains(stderr, "goroutine stack exceeds"):
		e := s.lim.Exceeded(runtime.LimitStack)
		e.Message += " (in native code)"
		return e
	}
	msg := "the worker process died"
	if s.w.state != nil {
		msg += " (" + fmt.Sprint(s.w.state) + ")"
	}
	if excerpt := stderrExcerpt(stderr); excerpt != "" {
		msg += "; its stderr ends:\n" + excerpt
	}
	return &runtime.RunError{Kind: runtime.KindCrashed, Message: msg}
}

// isOutOfMemory recognizes the Go runtime's (and the race detector's)
// fatal out-of-memory messages.
func isOutOfMemory(stderr string) bool {
	for _, s := range []string{"out of memory", "cannot allocate memory", "too many address space collisions", "ThreadSanitizer failed to allocate"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// stderrExcerpt is the last lines of a worker's stderr; when that is a
// goroutine dump, the first lines (where Go prints the fatal message) too.
func stderrExcerpt(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) <= 20 {
		return strings.Join(lines, "\n")
	}
	return strings.Join(lines[:5], "\n") + "\n...\n" + strings.Join(lines[len(lines)-15:], "\n")
}

// stderrBuffer keeps the first and the last bytes a worker writes to
// stderr: Go's fatal messages come first, followed by long goroutine dumps.
type stderrBuffer struct {
	mu      sync.Mutex
	headMax int
	tailMax int
	head    []byte
	tail    []byte
	dropped bool
}

func newStderrBuffer(headMax, tailMax int) *stderrBuffer {
	return &stderrBuffer{headMax: headMax, tailMax: tailMax}
}

func (b *stderrBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	b.tail = append(b.tail, p...)
	if over := len(b.tail) - b.tailMax; over > 0 {
		b.tail = append(b.tail[:0], b.tail[over:]...)
		b.dropped = true
	}
	return n, nil
}

// String returns what was kept, with a marker where bytes were dropped.
func (b *stderrBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.dropped {
		return string(b.head) + "\n...\n" + string(b.tail)
	}
	return string(b.head) + string(b.tail)
}
