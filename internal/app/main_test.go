package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/worker"
	"github.com/mcpcode/mcpcode/skills"
)

// workerArg makes this test binary a worker process, as `mcpcode __worker`
// is: TestMain serves one job with the skills' policy, as the CLI does.
const workerArg = "__worker"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workerArg {
		policy := func(ws string) runtime.SkillPolicy { return skills.NewWorkspace(ws).Policy() }
		if err := worker.Serve(context.Background(), os.Stdin, os.Stdout, worker.ServeOptions{Skills: policy}); err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testWorkerCommand starts this test binary as a worker process.
func testWorkerCommand() *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, workerArg)
}

// guard bounds a wait so that a hang fails the test instead of blocking it.
const guard = 60 * time.Second

// newWorkerApp returns an app whose workers are this test binary, with
// bundling bounded by bundleTimeout (0: the default); its workers stop when
// the test ends.
func newWorkerApp(t *testing.T, bundleTimeout time.Duration) *App {
	a := &App{WorkerCommand: testWorkerCommand}
	a.pools.bundleTimeout = bundleTimeout
	t.Cleanup(func() { a.Close() })
	return a
}

// openDir opens the workspace at dir (no mcp.json needed).
func openDir(t *testing.T, a *App, dir string) *Workspace {
	t.Helper()
	ws, err := a.Open(OpenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// within runs f and returns its error, failing the test when f takes longer
// than the hang guard.
func within(t *testing.T, what string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(guard):
		t.Fatalf("%s did not end within %s", what, guard)
		return nil
	}
}
