package worker

import (
	"context"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

const trivialProgram = `export default 1 + 1;`

// BenchmarkRunTrivialWorker measures a run that waits for its worker to
// start: back-to-back runs outpace the warm workers.
func BenchmarkRunTrivialWorker(b *testing.B) {
	ws := newWorkspace(b, nil)
	p := bundleSource(b, ws, trivialProgram)
	pool := NewPool(Options{Command: testWorkerCommand(), Warm: 2})
	defer pool.Close()
	opts := runtime.RunOptions{Workspace: ws, Caller: newFakeCaller()}
	pool.RunProgram(context.Background(), p, opts) // let the pool warm up
	b.ResetTimer()
	for b.Loop() {
		if res := pool.RunProgram(context.Background(), p, opts); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

// BenchmarkRunTrivialWorkerWarm measures the latency a caller sees when
// runs are spaced out (as an agent's are), so that the pool has a started
// worker waiting for each run: the pause between runs is not timed.
func BenchmarkRunTrivialWorkerWarm(b *testing.B) {
	ws := newWorkspace(b, nil)
	p := bundleSource(b, ws, trivialProgram)
	pool := NewPool(Options{Command: testWorkerCommand(), Warm: 1})
	defer pool.Close()
	opts := runtime.RunOptions{Workspace: ws, Caller: newFakeCaller()}
	for b.Loop() {
		b.StopTimer()
		time.Sleep(50 * time.Millisecond) // the next worker starts meanwhile
		b.StartTimer()
		if res := pool.RunProgram(context.Background(), p, opts); !res.OK {
			b.Fatal(res.Error)
		}
	}
}

// BenchmarkBundleAndRunTrivialWorkerWarm is BenchmarkRunTrivialWorkerWarm
// with the program bundled in the worker (Pool.Run), as untrusted source
// is: the latency that bundling in the worker adds.
func BenchmarkBundleAndRunTrivialWorkerWarm(b *testing.B) {
	ws := newWorkspace(b, nil)
	pool := NewPool(Options{Command: testWorkerCommand(), Warm: 1})
	defer pool.Close()
	src := source(ws, trivialProgram)
	opts := runtime.RunOptions{Workspace: ws, Caller: newFakeCaller()}
	for b.Loop() {
		b.StopTimer()
		time.Sleep(50 * time.Millisecond) // the next worker starts meanwhile
		b.StartTimer()
		if res := pool.Run(context.Background(), src, opts); !res.OK {
			b.Fatal(res.Error)
		}
	}
}
