package runtime

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"
)

// This file is a temporary bridge for tests of this package that predate
// runtime/worker: hardening_test.go's worker tests (TestWorkerIsNotTrusted,
// TestWorkerMessagesAreBounded, TestDeeplyNestedResult/worker) and the old
// names LimitOutput and withDefaults. The worker pool moved to
// runtime/worker, which imports this package, so these tests cannot import
// it; worker_bridge_test.go (package runtime_test, which can) fills in
// WorkerBridge. Equivalents of those tests now live in runtime/worker; this
// file goes when they leave this package.

// LimitOutput is the old name of LimitResultSize.
const LimitOutput = LimitResultSize

// withDefaults is the old name of WithDefaults.
func (l Limits) withDefaults() Limits { return l.WithDefaults() }

// maxWireMessage stands for the worker's bound on one message, which lives
// in runtime/worker now and cannot be lowered from here: the test that
// lowers it, TestWorkerMessagesAreBounded, is skipped (see TestMain) and
// runs as runtime/worker's test of the same name.
var maxWireMessage = 64 << 20

// WorkerBridge is set by worker_bridge_test.go from runtime/worker.
var WorkerBridge struct {
	NewPool func(command func() *exec.Cmd) BridgedPool
	Serve   func(ctx context.Context, in io.Reader, out io.Writer) error
}

// BridgedPool is what the old tests use of a worker pool.
type BridgedPool interface {
	RunProgram(ctx context.Context, p *Program, opts RunOptions) *Result
	Close() error
}

// WorkerOptions and NewWorkerPool keep the old tests' calls.
type WorkerOptions struct{ Command func() *exec.Cmd }

type oldPool struct{ BridgedPool }

func (p oldPool) Run(ctx context.Context, prog *Program, opts RunOptions) *Result {
	return p.RunProgram(ctx, prog, opts)
}

func NewWorkerPool(opts WorkerOptions) oldPool { return oldPool{WorkerBridge.NewPool(opts.Command)} }

// The test binary doubles as the worker: `<test binary>
// mcpcode-test-worker [mode]` serves one job on stdin/stdout; mode "rogue"
// ignores its job, relays more tool calls than its limit and reports a
// made-up result.
const workerArg = "mcpcode-test-worker"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workerArg {
		os.Exit(testWorkerMain(os.Args[2:]))
	}
	flag.Parse()
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() == "" {
		_ = flag.Set("test.skip", "^TestWorkerMessagesAreBounded$")
	}
	os.Exit(m.Run())
}

func testWorkerMain(args []string) int {
	if len(args) > 0 && args[0] == "rogue" {
		return rogueWorker()
	}
	if err := WorkerBridge.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	return 0
}

// testWorkerCommand re-executes the test binary as a worker.
func testWorkerCommand(mode ...string) func() *exec.Cmd {
	return func() *exec.Cmd {
		return exec.Command(os.Args[0], append([]string{workerArg}, mode...)...)
	}
}

// rogueWorker behaves like a compromised worker: it relays five tool calls
// whatever its limits, then claims calls and bytes that never happened. It
// speaks the worker protocol (see runtime/worker) by hand.
func rogueWorker() int {
	dec := json.NewDecoder(os.Stdin)
	enc := json.NewEncoder(os.Stdout)
	var job map[string]any
	if err := dec.Decode(&job); err != nil {
		return 1
	}
	for i := 1; i <= 5; i++ {
		_ = enc.Encode(map[string]any{"type": "call", "id": i, "server": "google-drive", "tool": "getDocument", "args": map[string]any{"documentId": "d"}})
		var reply map[string]any
		if err := dec.Decode(&reply); err != nil {
			return 1
		}
	}
	fake := &Result{OK: true, Result: json.RawMessage(`"done"`), Logs: []LogEntry{},
		ToolCalls: []ToolCallRecord{{Server: "made", Tool: "up", Ms: 1, OK: true}},
		Stats:     Stats{ToolCalls: 99, BytesFromTools: 12345}}
	_ = enc.Encode(map[string]any{"type": "result", "result": fake})
	return 0
}
