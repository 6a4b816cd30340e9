package runtime

import (
	"container/heap"
	"sync"
	"time"
)

// eventLoop is the run's own small event loop. Everything that touches the
// VM runs on the VM goroutine: tool-call goroutines post their completions
// to the queue and the loop runs them there; timers fire there too. A
// pending counter (calls in flight + timers scheduled) tells when the
// program has nothing left to wait for.
type eventLoop struct {
	mu    sync.Mutex
	queue []func() error
	wake  chan struct{}

	// VM goroutine only:
	callsInFlight int
	timers        timerHeap
	timerByID     map[int64]*timer
	nextTimerID   int64
	// now is the loop's clock: time.Now, or a test's stopped clock.
	now func() time.Time
}

func newEventLoop() *eventLoop {
	return &eventLoop{wake: make(chan struct{}, 1), timerByID: map[int64]*timer{}, now: time.Now}
}

// post queues fn to run on the VM goroutine. Safe from any goroutine; never
// blocks, so a completion arriving after the run ended is simply dropped
// with the loop.
func (l *eventLoop) post(fn func() error) {
	l.mu.Lock()
	l.queue = append(l.queue, fn)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// pending is the number of things the program still waits for: calls in
// flight, timers, and work queued (a skill's call about to start, say).
func (l *eventLoop) pending() int {
	l.mu.Lock()
	queued := len(l.queue)
	l.mu.Unlock()
	return l.callsInFlight + len(l.timerByID) + queued
}

// step runs queued completions, or due timers, or waits for either until
// stop is closed. It returns the first error a callback returns (an
// uncaught exception or an interrupt).
func (l *eventLoop) step(stop <-chan struct{}) error {
	l.mu.Lock()
	queued := l.queue
	l.queue = nil
	l.mu.Unlock()
	if len(queued) > 0 {
		for _, fn := range queued {
			if err := fn(); err != nil {
				return err // the run is over; the rest is dropped with it
			}
		}
		return nil
	}
	if t := l.dueTimer(l.now()); t != nil {
		return t.fire()
	}
	var timerC <-chan time.Time
	if len(l.timers) > 0 {
		tm := time.NewTimer(l.timers[0].when.Sub(l.now()))
		defer tm.Stop()
		timerC = tm.C
	}
	select {
	case <-l.wake:
	case <-timerC:
	case <-stop:
	}
	return nil
}

// timer is one setTimeout.
type timer struct {
	id    int64
	when  time.Time
	seq   int64
	index int
	fire  func() error
}

// dueTimer removes and returns the earliest timer due at now, or nil.
func (l *eventLoop) dueTimer(now time.Time) *timer {
	if len(l.timers) == 0 || l.timers[0].when.After(now) {
		return nil
	}
	t := heap.Pop(&l.timers).(*timer)
	delete(l.timerByID, t.id)
	return t
}

// addTimer schedules fire after d and returns the timer's id.
func (l *eventLoop) addTimer(d time.Duration, fire func() error) int64 {
	l.nextTimerID++
	t := &timer{id: l.nextTimerID, when: l.now().Add(d), seq: l.nextTimerID, fire: fire}
	heap.Push(&l.timers, t)
	l.timerByID[t.id] = t
	return t.id
}

// clearTimer cancels a pending timer; unknown ids are ignored.
func (l *eventLoop) clearTimer(id int64) {
	if t, ok := l.timerByID[id]; ok {
		heap.Remove(&l.timers, t.index)
		delete(l.timerByID, id)
	}
}

// timerHeap orders timers by due time, then by creation.
type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].when.Equal(h[j].when) {
		return h[i].seq < h[j].seq
	}
	return h[i].when.Before(h[j].when)
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}
