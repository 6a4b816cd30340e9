// Package worker runs agent programs in worker processes: the binary
// re-executed in worker mode (`mcpcode __worker`, which calls Serve), one
// job per process, under an OS memory limit.
//
// Everything a program's source can do to the process that handles it
// happens in the worker: esbuild parses and bundles the untrusted source
// there (its recursion can overflow the Go stack, some shapes of code take
// it many seconds, and neither can be stopped from inside), goja runs the
// program there (a single huge allocation, or a deeply nested JSON.parse
// with a reviver, ends the process). The parent process only relays tool calls, enforces
// the wall time by killing the worker, and checks what comes back: it never
// parses the program's source.
//
// Pool.Run bundles and runs; Pool.Bundle only bundles, for callers that
// need the program's analysis (the tools it calls, the call sites that
// cannot be verified, the skills it imports); Pool.RunProgram runs a
// program bundled before.
package worker

import (
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

// Options configures a Pool.
type Options struct {
	// Command returns a command that re-executes this binary in worker mode
	// (the CLI passes Command, `mcpcode __worker`, which calls Serve; tests
	// re-execute the test binary). Only its Path, Args, Env and Dir are
	// used: the pool starts it itself (startProcess), with pipes for its
	// stdin, stdout and stderr, in its own process group. When Command
	// leaves Env nil the worker gets an empty
	// environment (no host secrets); an Env it sets is passed as is, so it
	// should hold nothing secret. Its Dir should be left empty: relative
	// paths are made absolute in the parent's working directory.
	Command func() *exec.Cmd
	// Warm is the number of started workers kept waiting for a job (default
	// 1), so that a job does not wait for a process to start. A waiting
	// worker prepares what its job will use (startup.go).
	Warm int
	// OneShot is for a pool that serves one job and is closed (the CLI's
	// run): no worker is kept warm or started after a job; the job's
	// worker is started when the job comes.
	// (Starting it as the run began, before the run's preparation, gained
	// nothing measurable: `mcpcode run hello.ts` took a median 22.6 ms
	// either way, 30 paired runs, 2026-12-01; the preparation takes well
	// under a millisecond.)
	OneShot bool
	// BundleTimeout bounds a Bundle call (default DefaultBundleTimeout);
	// after it the worker is killed.
	BundleTimeout time.Duration
	// Skills returns the skill policy of a workspace, as ServeOptions.Skills
	// does in the worker. The parent uses it to check the scope a worker
	// claims for a relayed tool call: the call reaches the Caller with
	// mcptool.WithScope, but a claim that an approved skill's code makes it
	// with the skill's write grant stands only when the policy of the run's
	// workspace grants that skill write; otherwise the Caller sees the scope
	// with Write false. Nil: no claim of write stands.
	Skills func(workspace string) runtime.SkillPolicy
}

// DefaultBundleTimeout is the time a Bundle call is given when
// Options.BundleTimeout is zero: far more than bundling a real program
// takes (milliseconds), and short enough for a person to wait.
const DefaultBundleTimeout = 30 * time.Second

// grace is how long after its wall-time limit the parent waits for a
// worker's own timeout result before killing it.
const grace = 2 * time.Second

// Pool hands each job to a fresh worker process (one job per process), so
// that the memory limit is enforced by the OS and a program that crashes,
// hangs or kills its process costs only that process. Tool calls are
// relayed to the caller in this process, which owns the upstream
// connections, with the scope of the code that makes them. The parent does
// not trust the worker: it enforces MaxToolCalls on the calls it relays,
// reports its own record of them, honours a claimed write grant only when
// the workspace's skill policy confirms it (Options.Skills), and bounds
// each message the worker sends (64 MiB), the result
// (runtime.MaxResultBytes) and the error's text (8 KiB). A Pool is safe for
// concurrent use.
type Pool struct {
	opts Options

	mu       sync.Mutex
	idle     []*proc
	starting int
	closed   bool
	wg       sync.WaitGroup
}

// NewPool returns a pool and starts its warm workers in the background.
func NewPool(opts Options) *Pool {
	switch {
	case opts.OneShot:
		opts.Warm = 0
	case opts.Warm <= 0:
		opts.Warm = 1
	}
	if opts.BundleTimeout <= 0 {
		opts.BundleTimeout = DefaultBundleTimeout
	}
	p := &Pool{opts: opts}
	for i := 0; i < opts.Warm; i++ {
		p.refill()
	}
	return p
}

// Close kills the waiting workers and waits until every worker the pool
// stopped is gone. Jobs in progress finish on their own; later calls fail
// with an error that says the pool is closed. Close always returns nil.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	idle := p.idle
	p.idle = nil
	p.mu.Unlock()
	for _, w := range idle {
		w.kill()
	}
	p.wg.Wait()
	return nil
}

// refill starts a warm worker in the background unless enough are waiting
// or starting.
func (p *Pool) refill() {
	p.mu.Lock()
	if p.closed || len(p.idle)+p.starting >= p.opts.Warm {
		p.mu.Unlock()
		return
	}
	p.starting++
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		w, err := p.start()
		if err == nil {
			// The worker prepares for its job while it waits.
			err = w.warmUp()
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		p.starting--
		if err != nil {
			if w != nil {
				go w.kill()
			}
			return // the next job starts one itself and reports the error
		}
		if p.closed {
			go w.kill()
			return
		}
		p.idle = append(p.idle, w)
	}()
}

// take returns a warm worker (and starts its replacement), or a worker it
// starts.
func (p *Pool) take() (*proc, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("the worker pool is closed")
	}
	var w *proc
	for len(p.idle) > 0 && w == nil {
		w = p.idle[0]
		p.idle = p.idle[1:]
		if w.hasExited() {
			w = nil
		}
	}
	p.mu.Unlock()
	p.refill()
	if w != nil {
		return w, nil
	}
	return p.start()
}

// proc is one started worker process.
type proc struct {
	process *process
	stdin   io.WriteCloser
	stdout  io.ReadCloser
	stderr  *stderrBuffer
	exited  chan struct{}
	state   interface{ Sys() any }

	killMu sync.Mutex
	killed bool
}

func (p *Pool) start() (*proc, error) {
	if p.opts.Command == nil {
		return nil, errors.New("starting a worker: no worker command configured")
	}
	cmd := p.opts.Command()
	if cmd.Err != nil {
		return nil, fmt.Errorf("starting a worker: %w", cmd.Err)
	}
	started, err := startProcess(cmd.Path, cmd.Args, cmd.Env, cmd.Dir)
	if err != nil {
		return nil, err
	}
	// Its stderr is kept (the first and last bytes, for diagnosing its
	// death) and its end is watched.
	w := &proc{process: started, stdin: started.stdin, stdout: started.stdout,
		stderr: newStderrBuffer(8<<10, 32<<10), exited: make(chan struct{})}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(w.stderr, started.stderr)
		started.stderr.Close()
		close(copied)
	}()
	go func() {
		state, _ := w.process.wait()
		<-copied // all it wrote, for diagnose
		if state != nil {
			w.state = state
		}
		close(w.exited)
	}()
	return w, nil
}

// warmUp asks a worker that will wait for its job to prepare for it
// meanwhile (Serve does it on a warmUp message before the job: prepare).
func (w *proc) warmUp() error { return newWireWriter(w.stdin).send(&wireMessage{Type: "warmUp"}) }

func (w *proc) hasExited() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// retire stops a worker whose job is over, in the background; Close waits
// for it, except in a one-shot pool: there the worker is killed at once
// and Close does not wait for the kernel to tear it down (the caller is
// about to exit; the process is gone either way).
func (p *Pool) retire(w *proc) {
	if p.opts.OneShot {
		w.signalKill()
		go w.kill()
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		w.kill()
	}()
}

// signalKill sends the worker's process group SIGKILL without waiting.
func (w *proc) signalKill() {
	w.killMu.Lock()
	w.killed = true
	w.killMu.Unlock()
	if !w.hasExited() {
		w.process.killGroup()
	}
}

// kill ends the worker's process group and waits for it.
func (w *proc) kill() {
	w.killMu.Lock()
	w.killed = true
	w.killMu.Unlock()
	if !w.hasExited() {
		w.process.killGroup()
	}
	_ = w.stdin.Close()
	<-w.exited
	_ = w.stdout.Close()
}
