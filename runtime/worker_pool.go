package runtime

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"time"
)

// WorkerOptions configures a WorkerPool.
type WorkerOptions struct {
	// Command returns a command that re-executes this binary in worker mode
	// (the CLI passes `mcpcode __worker`, which calls ServeWorker; tests use
	// the test binary with an environment variable). The pool sets its
	// stdin, stdout and stderr and its process group. When Command leaves
	// Env nil the worker gets an empty environment (no host secrets); an Env
	// it sets is passed as is, so it should hold nothing secret.
	Command func() *exec.Cmd
	// Warm is the number of started workers kept waiting for a job (default
	// 1), so that isolation adds little latency.
	Warm int
}

// workerGrace is how long after the wall-time limit the parent waits for a
// worker's own timeout result before killing it.
const workerGrace = 2 * time.Second

// WorkerPool runs each program in a fresh worker process (one job per
// process), so that the memory limit is enforced by the OS and a program
// that kills its process kills only that. Tool calls are relayed to the
// caller in this process, which owns the upstream connections. The parent
// does not trust the worker: it enforces MaxToolCalls on the calls it
// relays, reports its own record of them, bounds each message the worker
// sends (64 MiB) and the result (4 MiB).
type WorkerPool struct {
	opts WorkerOptions

	mu       sync.Mutex
	idle     []*worker
	starting int
	closed   bool
	wg       sync.WaitGroup
}

// NewWorkerPool returns a pool and starts its warm workers in the
// background.
func NewWorkerPool(opts WorkerOptions) *WorkerPool {
	if opts.Warm <= 0 {
		opts.Warm = 1
	}
	p := &WorkerPool{opts: opts}
	for i := 0; i < opts.Warm; i++ {
		p.refill()
	}
	return p
}

// Close kills the waiting workers. Runs in progress finish on their own.
func (p *WorkerPool) Close() error {
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
func (p *WorkerPool) refill() {
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
		p.mu.Lock()
		defer p.mu.Unlock()
		p.starting--
		if err != nil {
			return // the next Run starts one itself and reports the error
		}
		if p.closed {
			go w.kill()
			return
		}
		p.idle = append(p.idle, w)
	}()
}

// take returns a warm worker (and starts its replacement) or starts one.
func (p *WorkerPool) take() (*worker, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New("the worker pool is closed")
	}
	var w *worker
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

// worker is one started worker process.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *stderrBuffer
	exited chan struct{}
	state  interface{ Sys() any }

	killMu sync.Mutex
	killed bool
}

func (p *WorkerPool) start() (*worker, error) {
	if p.opts.Command == nil {
		return nil, errors.New("no worker command configured")
	}
	cmd := p.opts.Command()
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	isolateProcess(cmd)
	w := &worker{cmd: cmd, stderr: newStderrBuffer(8<<10, 32<<10), exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	var err error
	if w.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	// Not StdoutPipe: Wait closes that pipe as soon as the process exits,
	// possibly before the result it wrote last has been read.
	stdoutR, stdoutW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	cmd.Stdout = stdoutW
	w.stdout = stdoutR
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		stdoutR.Close()
		return nil, fmt.Errorf("starting a worker: %w", err)
	}
	go func() {
		_ = cmd.Wait()
		w.state = cmd.ProcessState
		close(w.exited)
	}()
	return w, nil
}

func (w *worker) hasExited() bool {
	select {
	case <-w.exited:
		return true
	default:
		return false
	}
}

// kill ends the worker's process group and waits for it.
// retire stops a worker whose job is over, in the background; Close waits
// for it.
func (p *WorkerPool) retire(w *worker) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		w.kill()
	}()
}

func (w *worker) kill() {
	w.killMu.Lock()
	w.killed = true
	w.killMu.Unlock()
	if !w.hasExited() {
		killProcessGroup(w.cmd)
	}
	_ = w.stdin.Close()
	<-w.exited
	_ = w.stdout.Close()
}
