package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/worker"
	"github.com/mcpcode/mcpcode/skills"
)

// Isolation modes of a run.
const (
	// IsolationWorker bundles and runs the program in a separate process
	// under an OS memory limit: the default, for untrusted programs.
	IsolationWorker = "worker"
	// IsolationNone bundles and runs it in this process: for trusted
	// programs and tests.
	IsolationNone = "none"
)

// RunRequest says what to run: exactly one of File, Source or Skill.
type RunRequest struct {
	// File is the program's path (relative to the current directory).
	File string
	// Source is the program's text (from stdin or an MCP client); it is
	// named stdin.ts at the workspace root.
	Source []byte
	// Skill is the name of an approved skill.
	Skill string
	// Input is the JSON argument of the default-exported function (a
	// skill's input; {} when a skill gets none).
	Input json.RawMessage
	// Limits bound the run; zero fields take runtime.DefaultLimits.
	Limits runtime.Limits
	// Isolation is IsolationWorker (default) or IsolationNone.
	Isolation string
	// OneShot says that this process ends with this run (the CLI's run):
	// its worker is started for it and none is kept warm for a next run, the process collects garbage less
	// often (worker.OneRunProcess), and its servers are stopped when the
	// app closes, after the result was handed over. Without it the app's
	// pool keeps a warmed-up worker waiting (serve).
	OneShot bool
	// ConnectTimeout bounds connecting to one server.
	ConnectTimeout time.Duration
	// Handlers answer what servers ask during the run's calls (elicitation,
	// sampling) when the run gets a pool of its own; nil declines.
	Handlers *ClientHandlers
	// Caller, when set, performs the tool calls (a pool kept across runs);
	// otherwise the run gets a pool of its own, closed when it ends.
	Caller mcptool.Caller
	// Privacy is PrivacyTokenize, PrivacyOff or "" for the workspace's
	// mode (privacy.go).
	Privacy string
	// By says who asked for the run, for the audit log (audit.go).
	By RunBy
	// Replay, when set, answers the run's tool calls from a recording
	// instead of any server (mcpcode run --replay).
	Replay *skills.Recording
	// Record, when set, is called after the run with its recording: every
	// tool call sent upstream and its answer (mcpcode run --record).
	Record func(*skills.Recording)
	// Check says whether the program is type-checked first: CheckOff (the
	// zero value), CheckAuto or CheckOn (check.go). A program that does
	// not type-check is a Result of kind runtime.KindTypeCheck, and
	// nothing of it runs.
	Check string
	// ReplayFile and RecordFile are Replay and Record as files: a
	// recording read before the run, written (atomically) after it.
	ReplayFile, RecordFile string
	// NoSession makes the run connect its servers itself even when a
	// session runs for the workspace.
	NoSession bool
	// Warn, when set, is told what the face should show beside the run's
	// output (a session that could not be used).
	Warn func(string)
}

// Run bundles and runs one program against the workspace's servers, each
// connected only if the program calls it. A program that fails (bundling
// included) is a Result with OK false, not an error; the error is a
// *UsageError for a request that cannot be run (no such file or skill).
func (w *Workspace) Run(ctx context.Context, req RunRequest) (*runtime.Result, error) {
	if req.OneShot {
		worker.OneRunProcess()
	}
	bopts, err := w.bundleOptions(req)
	if err != nil {
		return nil, err
	}
	if err := req.readReplay(); err != nil {
		return nil, err
	}
	var recorded *skills.Recording
	if req.RecordFile != "" {
		req.Record = func(r *skills.Recording) { recorded = r }
	}
	input := req.Input
	if req.Skill != "" && input == nil {
		input = json.RawMessage(`{}`)
	}
	caller := req.Caller
	if req.Replay != nil {
		caller = skills.NewReplayer(req.Replay) // no server is started
	}
	if caller == nil && !req.NoSession {
		// A session started on purpose keeps the servers running between
		// runs: the run's calls go through it (session.go).
		if s := w.runSession(ctx, req); s != nil {
			if req.OneShot {
				w.app.closeLater(s.Close)
			} else {
				defer s.Close()
			}
			caller = s
		}
	}
	if caller == nil {
		pool := w.Pool(PoolOptions{ConnectTimeout: req.ConnectTimeout, Handlers: req.Handlers})
		if req.OneShot {
			// Nothing follows in this process: its servers are stopped when
			// the app closes, after the result has been handed over (a
			// server's exit can take longer than a small run).
			w.app.closeLater(pool.Close)
		} else {
			defer pool.Close()
		}
		caller = pool
	}
	base := caller // under the run's wrappers: what notices and resources go through (upstream.go)
	var recorder *skills.Recorder
	if req.Record != nil {
		// Innermost, next to the servers: what was really sent and got.
		recorder = skills.NewRecorder(caller)
		caller = recorder
	}
	hook, caller, err := w.beginRun(req, bopts, caller) // privacy and audit (audit.go)
	if err != nil {
		return nil, err
	}
	if refused, err := w.checkBeforeRun(ctx, req); err != nil {
		return nil, err
	} else if refused != nil {
		return hook.finish(refused), nil // on record: nothing ran, no tool was called
	}
	withheld := "" // why resources and notices would bypass privacy
	switch {
	case hook.session != nil && hook.session.Tokenizing():
		withheld = privacyTokenizes
	case hook.session != nil:
		withheld = privacyFlows
	}
	caller = withUpstream(caller, base, req, withheld, hook.recorder)
	ropts := runtime.RunOptions{Workspace: w.Root, Caller: caller, Limits: req.Limits, Input: input}
	res := w.app.execute(ctx, req.Isolation, req.OneShot, bopts, ropts)
	if recorder != nil {
		req.Record(recorder.Recording(input, res))
	}
	res = hook.finish(res)
	if req.RecordFile != "" {
		if err := atomicfile.Write(req.RecordFile, recorded.Marshal(), 0o644); err != nil {
			return nil, fmt.Errorf("--record: %w", err)
		}
	}
	return res, nil
}

// readReplay reads ReplayFile into Replay.
func (req *RunRequest) readReplay() error {
	if req.ReplayFile != "" {
		data, err := os.ReadFile(req.ReplayFile)
		if err != nil {
			return usageErrorf(fmt.Errorf("--replay: %w", err))
		}
		if req.Replay, err = skills.ParseRecording(data); err != nil {
			return usageErrorf(fmt.Errorf("--replay %s: %w", req.ReplayFile, err))
		}
	}
	return nil
}

// SkillPolicy is the skill policy of a workspace: what its approved skills
// are, may import and may call (skills.Workspace.Policy). The one place it
// is built: for the parent's bundling, for the pool that checks a worker's
// claims (worker.Options.Skills) and for the worker itself
// (worker.ServeOptions.Skills, given by the CLI's worker command).
func SkillPolicy(workspace string) runtime.SkillPolicy {
	return skills.NewWorkspace(workspace).Policy()
}

// bundleOptions checks the request and says what to bundle.
func (w *Workspace) bundleOptions(req RunRequest) (runtime.BundleOptions, error) {
	policy := SkillPolicy(w.Root)
	opts := runtime.BundleOptions{Workspace: w.Root, Skills: policy}
	switch {
	case req.Skill != "":
		if err := skills.ValidateName(req.Skill); err != nil {
			return opts, usageErrorf(fmt.Errorf("--skill: %w", err))
		}
		if _, err := policy.Skill(req.Skill); err != nil {
			return opts, usageErrorf(err)
		}
		opts.Entry = filepath.Join(w.Root, "skill:"+req.Skill+".ts")
		opts.Source = skills.RunSource(req.Skill)
	case req.Source != nil:
		opts.Entry, opts.Source = filepath.Join(w.Root, "stdin.ts"), req.Source
	case req.File != "":
		entry, err := filepath.Abs(req.File)
		if err != nil {
			return opts, usageErrorf(err)
		}
		if _, err := os.Stat(entry); err != nil {
			return opts, usageErrorf(fmt.Errorf("cannot read the program: %w", err))
		}
		opts.Entry = entry
	default:
		return opts, usageErrorf(errors.New("nothing to run: give a file, a program text or a skill"))
	}
	return opts, nil
}

// execute bundles and runs a program with the given isolation; oneShot
// says that no run follows in this process (workersFor).
func (a *App) execute(ctx context.Context, isolation string, oneShot bool, b runtime.BundleOptions, r runtime.RunOptions) *runtime.Result {
	if isolation == IsolationNone {
		prog, err := runtime.Bundle(b)
		if err != nil {
			return runtime.BundleErrorResult(err)
		}
		return runtime.Run(ctx, prog, r)
	}
	workers, err := a.workersFor(oneShot)
	if err != nil {
		return notStarted(fmt.Errorf("%w (the app needs a WorkerCommand; isolation %q runs trusted programs in this process)", err, IsolationNone))
	}
	// The untrusted source is bundled in the worker too.
	return workers.Run(ctx, b, r)
}

// notStarted is the failed Result of a run that could not start: of kind
// "crashed", as worker.Pool reports a worker that could not be started.
func notStarted(err error) *runtime.Result {
	return &runtime.Result{Result: json.RawMessage("null"), Logs: []runtime.LogEntry{}, ToolCalls: []runtime.ToolCallRecord{},
		Error: &runtime.RunError{Kind: runtime.KindCrashed, Message: "the program could not start: " + err.Error()}}
}

// workerPools holds the app's worker pool, started on first use.
type workerPools struct {
	once sync.Once
	pool *worker.Pool
	err  error
	// bundleTimeout, when set before the pool starts, replaces
	// worker.DefaultBundleTimeout (tests shorten it).
	bundleTimeout time.Duration
}

// workers returns the app's worker pool, starting it on first use. The
// pool checks the scope a worker claims for a tool call against the
// workspace's skills (worker.Options.Skills).
func (a *App) workers() (*worker.Pool, error) { return a.workersFor(false) }

// workersFor is workers; oneShot makes the pool one-shot
// (worker.Options.OneShot) if this call creates it.
func (a *App) workersFor(oneShot bool) (*worker.Pool, error) {
	a.pools.once.Do(func() {
		if a.WorkerCommand == nil {
			a.pools.err = errNoWorkers
			return
		}
		a.pools.pool = worker.NewPool(worker.Options{
			Command:       a.WorkerCommand,
			OneShot:       oneShot,
			BundleTimeout: a.pools.bundleTimeout,
			Skills:        SkillPolicy,
		})
	})
	return a.pools.pool, a.pools.err
}

// bundleInWorker bundles a program in a worker process (worker.Pool.Bundle),
// where untrusted source that crashes esbuild or keeps it busy costs only
// that process. The skills' use cases analyse proposals with it.
func (a *App) bundleInWorker(ctx context.Context, o runtime.BundleOptions) (*runtime.Program, error) {
	workers, err := a.workers()
	if err != nil {
		return nil, err
	}
	return workers.Bundle(ctx, o)
}

// Close stops the servers of one-shot runs and the app's waiting worker
// processes, and sends the traces still waiting.
func (a *App) Close() error {
	a.flushTraces()
	a.later.mu.Lock()
	later := a.later.fns
	a.later.fns = nil
	a.later.mu.Unlock()
	for _, f := range later {
		_ = f()
	}
	if a.pools.pool != nil {
		return a.pools.pool.Close()
	}
	return nil
}

// closeLater has Close call f (a one-shot run's servers).
func (a *App) closeLater(f func() error) {
	a.later.mu.Lock()
	defer a.later.mu.Unlock()
	a.later.fns = append(a.later.fns, f)
}
