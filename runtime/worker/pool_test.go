package worker

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

// recordingWorkers is a worker command that counts the workers started
// and keeps a copy of what each was sent on its stdin (worker-N.in in dir).
type recordingWorkers struct {
	dir     string
	started atomic.Int32
	mu      sync.Mutex
	cmds    []*exec.Cmd
}

func newRecordingWorkers(t *testing.T) *recordingWorkers {
	if _, err := exec.LookPath("tee"); err != nil {
		t.Skip("no tee on PATH")
	}
	return &recordingWorkers{dir: t.TempDir()}
}

func (r *recordingWorkers) command() *exec.Cmd {
	n := r.started.Add(1)
	tee, _ := exec.LookPath("tee")
	in := filepath.Join(r.dir, fmt.Sprintf("worker-%d.in", n))
	script := fmt.Sprintf("%q %q | exec %q %s", tee, in, os.Args[0], workerArg)
	cmd := exec.Command("/bin/sh", "-c", script)
	r.mu.Lock()
	r.cmds = append(r.cmds, cmd)
	r.mu.Unlock()
	return cmd
}

// running reports whether a worker process started is still there.
func (r *recordingWorkers) running() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.cmds {
		if c.Process != nil && c.Process.Signal(syscall.Signal(0)) == nil {
			return true
		}
	}
	return false
}

// firstMessage is the type of the first message worker n was sent.
func (r *recordingWorkers) firstMessage(t *testing.T, n int) string {
	t.Helper()
	f, err := os.Open(filepath.Join(r.dir, fmt.Sprintf("worker-%d.in", n)))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	typ, _, _ := strings.Cut(strings.TrimPrefix(line, `{"type":"`), `"`)
	return typ
}

// TestOneShotPool: a one-shot pool starts exactly one worker, for its job,
// and does not ask it to warm up; a pool that keeps a worker warm asks the
// waiting worker to warm up and starts its replacement.
func TestOneShotPool(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	opts := runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: guard}}
	t.Run("one-shot", func(t *testing.T) {
		t.Parallel()
		rec := newRecordingWorkers(t)
		pool := NewPool(Options{Command: rec.command, OneShot: true})
		checkNormal(t, pool.Run(t.Context(), source(ws, normalProgram), opts))
		pool.Close()
		if n := rec.started.Load(); n != 1 {
			t.Errorf("%d workers started for one job, want 1", n)
		}
		if typ := rec.firstMessage(t, 1); typ != "job" {
			t.Errorf("the worker's first message is %q, want the job (no warm-up)", typ)
		}
	})
	t.Run("warm", func(t *testing.T) {
		t.Parallel()
		rec := newRecordingWorkers(t)
		pool := NewPool(Options{Command: rec.command, Warm: 1})
		waitIdle(t, pool)
		checkNormal(t, pool.Run(t.Context(), source(ws, normalProgram), opts))
		waitIdle(t, pool)
		pool.Close()
		if n := rec.started.Load(); n != 2 {
			t.Errorf("%d workers started, want 2 (the warm one and its replacement)", n)
		}
		if typ := rec.firstMessage(t, 1); typ != "warmUp" {
			t.Errorf("the warm worker's first message is %q, want warmUp", typ)
		}
	})
}

// waitIdle waits until the pool has a worker waiting.
func waitIdle(t *testing.T, p *Pool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		n := len(p.idle)
		p.mu.Unlock()
		if n > 0 {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("no worker became idle")
}

// BenchmarkRunOneShot is the CLI's one-shot path inside the parent: a
// one-shot pool, its worker started, the source bundled and run in it, the
// pool closed; process start and bundling included.
func BenchmarkRunOneShot(b *testing.B) {
	ws := newWorkspace(b, nil)
	src := source(ws, trivialProgram)
	opts := runtime.RunOptions{Workspace: ws, Caller: newFakeCaller()}
	for b.Loop() {
		pool := NewPool(Options{Command: testWorkerCommand(), OneShot: true})
		if res := pool.Run(context.Background(), src, opts); !res.OK {
			b.Fatal(res.Error)
		}
		pool.Close()
	}
}

// BenchmarkRun10kRowsWorker is the worker's side of the article's flow: a
// 10,000-row getSheet result relayed from this process to a worker, turned
// into JS values there, filtered, five rows returned (the program bundled
// before; a warm worker, so that process start is not timed).
func BenchmarkRun10kRowsWorker(b *testing.B) {
	ws := newWorkspace(b, nil)
	p := bundleSource(b, ws, `import { getSheet } from "servers/google-drive/getSheet";
const sheet = await getSheet({ sheetId: "orders" });
const pending = sheet.rows.filter((r) => r.Status === "pending" && (r.Amount as number) > 100);
console.log(pending.length + " pending of " + sheet.rows.length);
export default pending.slice(0, 5);`)
	fc := newFakeCaller()
	fc.Rows = 10000
	pool := NewPool(Options{Command: testWorkerCommand(), Warm: 1})
	defer pool.Close()
	opts := runtime.RunOptions{Workspace: ws, Caller: fc}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		waitIdleB(b, pool)
		b.StartTimer()
		res := pool.RunProgram(context.Background(), p, opts)
		if !res.OK || !strings.HasSuffix(res.Logs[0].Text, " pending of 10000") {
			b.Fatalf("%+v %v", res.Error, res.Logs)
		}
	}
}

// waitIdleB waits until the pool has a warm worker waiting.
func waitIdleB(b *testing.B, p *Pool) {
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(2 * time.Millisecond) {
		p.mu.Lock()
		n := len(p.idle)
		p.mu.Unlock()
		if n > 0 {
			return
		}
	}
	b.Fatal("no worker became idle")
}

// TestOneShotWorkerDeathIsDiagnosed: the death of a one-shot pool's
// worker is diagnosed with its stderr, and no second worker is started.
func TestOneShotWorkerDeathIsDiagnosed(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	var started atomic.Int32
	pool := NewPool(Options{OneShot: true, Command: func() *exec.Cmd {
		started.Add(1)
		return testWorkerCommand("crash")()
	}})
	res := pool.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: guard}})
	pool.Close()
	if res.Error == nil || res.Error.Kind != runtime.KindCrashed || !strings.Contains(res.Error.Message, "panic: test crash") {
		t.Fatalf("error = %+v, want crashed with the worker's stderr", res.Error)
	}
	if n := started.Load(); n != 1 {
		t.Errorf("%d workers started, want one", n)
	}
}
