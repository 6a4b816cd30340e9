package generator

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEachChunk is how many consecutive indexes a worker of forEach takes at
// a time.
const forEachChunk = 16

// forEach calls fn(i) for every i in [0, n), on up to GOMAXPROCS
// goroutines, and returns when all calls have returned. fn must only write
// what belongs to its i; callers collect results by index, so the output
// does not depend on the schedule. A panic in fn is raised again in the
// caller (after the other workers stop).
func forEach(n int, fn func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+forEachChunk-1)/forEachChunk)
	if workers <= 1 {
		for i := range n {
			fn(i)
		}
		return
	}
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	var once sync.Once
	var panicked any
	for range workers {
		wg.Go(func() {
			defer func() {
				if p := recover(); p != nil {
					failed.Store(true)
					once.Do(func() { panicked = p })
				}
			}()
			for !failed.Load() {
				start := int(next.Add(forEachChunk)) - forEachChunk
				if start >= n {
					return
				}
				for i := start; i < min(start+forEachChunk, n); i++ {
					fn(i)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() {
		panic(panicked)
	}
}
