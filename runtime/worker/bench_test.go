package worker

import (
	"context"
	"os"
	"strings"
	"syscall"
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

// smallProgram is what BenchmarkWorkerCPU runs: a few lines of the kind an
// agent sends to execute.
const smallProgram = `const rows = [1, 2, 3].map((id) => ({ id, ok: id % 2 === 1 }));
console.log("rows", rows.length);
export default rows.filter((r) => r.ok).map((r) => r.id);`

// BenchmarkWorkerCPU measures the CPU a run costs, as a server running many
// of them pays it: cpu-ms/run is the user and system time of the worker
// processes (each started, prepared, bundling and running the program,
// exiting), parent-ms/run that of this process (the pool's side and the
// benchmark itself). The program is bundled in the worker, as untrusted
// source is. "back-to-back" runs one job after another with a worker kept
// waiting (prepared while the previous job runs); "spaced" leaves the
// waiting worker time to prepare (as an agent's runs are spaced), which
// is not timed; "one-shot" starts each job's worker for it (mcpcode run).
// The variants leave out one trick of startup.go each: "no-bundler-prep"
// the bundler's preparation, "no-start-env" startEnv.
// The worker is the test binary, smaller than mcpcode: `go run
// ./testdata/bench/serveload cpu` measures the real thing.
func BenchmarkWorkerCPU(b *testing.B) {
	for _, mode := range []string{"back-to-back", "spaced", "one-shot", "back-to-back/no-bundler-prep", "spaced/no-bundler-prep", "back-to-back/no-start-env"} {
		b.Run(mode, func(b *testing.B) {
			var args []string
			if m, variant, ok := strings.Cut(mode, "/"); ok {
				mode, args = m, []string{variant}
				if variant == "no-start-env" {
					passGOMAXPROCS, args = false, nil
					defer func() { passGOMAXPROCS = true }()
				}
			}
			ws := newWorkspace(b, nil)
			src := source(ws, smallProgram)
			opts := runtime.RunOptions{Workspace: ws, Caller: newFakeCaller()}
			var pool *Pool
			if mode != "one-shot" {
				pool = NewPool(Options{Command: testWorkerCommand(args...), Warm: 1})
				waitIdleB(b, pool)
			}
			children, self := cpuTimes(b)
			runs := 0
			for b.Loop() {
				p := pool
				if mode == "one-shot" {
					p = NewPool(Options{Command: testWorkerCommand(), OneShot: true})
				}
				if mode == "spaced" {
					b.StopTimer()
					waitIdleB(b, pool)
					time.Sleep(20 * time.Millisecond) // its preparation done
					b.StartTimer()
				}
				if res := p.Run(context.Background(), src, opts); !res.OK {
					b.Fatal(res.Error)
				}
				if mode == "one-shot" {
					p.Close()
				}
				runs++
			}
			if pool != nil {
				pool.Close() // waits for every worker: their CPU is counted
			}
			waitReaped(b)
			c, s := cpuTimes(b)
			b.ReportMetric(float64(c-children)/1e6/float64(runs), "cpu-ms/run")
			b.ReportMetric(float64(s-self)/1e6/float64(runs), "parent-ms/run")
		})
	}
}

// cpuTimes returns the user and system time of this process's children
// that were waited for, and of this process.
func cpuTimes(b *testing.B) (children, self time.Duration) {
	var c, s syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &c); err != nil {
		b.Fatal(err)
	}
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &s); err != nil {
		b.Fatal(err)
	}
	return time.Duration(c.Utime.Nano() + c.Stime.Nano()), time.Duration(s.Utime.Nano() + s.Stime.Nano())
}

// waitReaped waits until this process has no child left to wait for (a
// one-shot pool's Close does not wait for its worker's end).
func waitReaped(b *testing.B) {
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		entries, err := os.ReadDir("/proc/self/task")
		if err != nil {
			return // not Linux: the figure may miss the last worker
		}
		busy := false
		for _, e := range entries {
			data, _ := os.ReadFile("/proc/self/task/" + e.Name() + "/children")
			if len(strings.TrimSpace(string(data))) > 0 {
				busy = true
			}
		}
		if !busy {
			return
		}
	}
	b.Fatal("a worker process did not end")
}
