package worker

import (
	goruntime "runtime"
	"strconv"
	"strings"

	"github.com/mcpcode/mcpcode/runtime"
)

// Worker start-up: what makes a worker process cheaper to start and its job
// quicker lives here, each with a benchmark (bench_test.go,
// BenchmarkWorkerCPU measures the CPU of a run, worker included).
//
// The promise every trick keeps: each job gets a fresh process and a fresh
// VM; a worker serves one job and exits, so nothing of one run reaches
// another. A pool may start the next worker before a job needs it
// (Options.Warm), and that worker may prepare what its job will use while
// it waits, as long as the preparation depends on nothing the job brings
// and nothing of it is thrown away.
//
// The CPU a run costs is the point: on a server, isolated runs are bound
// by it (`mcpcode serve` on two cores). What a worker costs, measured on
// the development machine (docs/BENCHMARKS.md, "serve"): the process's
// start up to Serve (exec, the Go runtime, package initialisers, page
// faults of a 37 MB binary) about 6 ms; bundling a small program 5 ms,
// half of it esbuild parsing its own runtime helpers, once per process;
// the VM and the run about 1 ms.
//
// Tried and removed: a waiting worker used to warm itself up by bundling
// and running a tiny program twice, collect its garbage and reserve heap
// for huge pages, which took 1-3 ms off a job's latency for about 30 ms of
// CPU thrown away per run: 44 ms of CPU per execute of serve against
// 16.6 ms without (testdata/bench/serveload cpu). The huge pages
// (internal/hugeheap, for the values of a large result) went with it: they
// saved the page faults of heap the warm-up had used and freed; a worker's
// heap is fresh now, and reserving the room when a large result comes
// made more faults, not fewer (BenchmarkRun10kRowsWorkerStructured: about
// 6,700 faults and 80-107 ms of CPU a run without it, 5,800-15,000 and
// 110-169 ms with it). Tried, no gain measured: GOMAXPROCS=1 in workers
// (slower, no less CPU), growing the main goroutine's stack at once,
// MADV_HUGEPAGE on the heap as a worker starts (about 1 ms more).

// prepare makes, while a worker waits for its job, what every job uses,
// once per process whatever the job is: its VM (runtime.Prewarm, built on
// another core) and esbuild's runtime helpers (runtime.PrepareBundler,
// parsed once per process). Nothing of it is thrown away; it takes about
// 3 ms off a job's latency for a fraction of a millisecond of CPU
// (BenchmarkWorkerCPU, "no-bundler-prep").
func prepare() {
	runtime.Prewarm()
	if prepareBundler {
		runtime.PrepareBundler()
	}
}

// prepareBundler is false only in a benchmark's worker that shows what the
// preparation of the bundler gains.
var prepareBundler = true

// startEnv returns env with what a worker's Go runtime is told at its
// start (startProcess): GOMAXPROCS, this process's, so that the worker's
// runtime does not read its cgroup's files to choose it (the same files
// give the same answer; about 1% of a small run's CPU in a profile). An env
// that sets GOMAXPROCS itself keeps its value. Nothing here is secret.
func startEnv(env []string) []string {
	if !passGOMAXPROCS {
		return env
	}
	for _, kv := range env {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return env
		}
	}
	return append(env, "GOMAXPROCS="+strconv.Itoa(goruntime.GOMAXPROCS(0)))
}

// passGOMAXPROCS is false only while a benchmark shows what startEnv gains
// (BenchmarkWorkerCPU, "no-start-env").
var passGOMAXPROCS = true
