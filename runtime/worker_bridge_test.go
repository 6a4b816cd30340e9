package runtime_test

import (
	"context"
	"io"
	"os/exec"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/worker"
)

// See compat_test.go: the old worker tests of package runtime reach
// runtime/worker through this bridge.
func init() {
	runtime.WorkerBridge.NewPool = func(command func() *exec.Cmd) runtime.BridgedPool {
		return worker.NewPool(worker.Options{Command: command})
	}
	runtime.WorkerBridge.Serve = func(ctx context.Context, in io.Reader, out io.Writer) error {
		return worker.Serve(ctx, in, out, worker.ServeOptions{})
	}
}
