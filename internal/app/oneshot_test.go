package app

import (
	"context"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOneShotRunStartsOneWorker: a one-shot run (the CLI's) starts exactly
// one worker process; a run that is not keeps one warm for the next and so
// starts two.
func TestOneShotRunStartsOneWorker(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		oneShot bool
		want    int32
	}{{true, 1}, {false, 2}} {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "prog.ts"), `export default 6 * 7;`)
		var started atomic.Int32
		a := &App{WorkerCommand: func() *exec.Cmd { started.Add(1); return testWorkerCommand() }}
		ws := openDir(t, a, dir)
		res, err := ws.Run(t.Context(), RunRequest{File: filepath.Join(dir, "prog.ts"), OneShot: tt.oneShot})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK || string(res.Result) != "42" {
			t.Fatalf("OneShot %v: result %s, error %+v", tt.oneShot, res.Result, res.Error)
		}
		if !tt.oneShot {
			// The replacement starts in the background after the run.
			waitUntil(t, func() bool { return started.Load() == tt.want })
		}
		a.Close()
		if n := started.Load(); n != tt.want {
			t.Errorf("OneShot %v: %d workers started, want %d", tt.oneShot, n, tt.want)
		}
	}
}

// waitUntil polls cond until it holds, failing the test after the guard.
func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(guard); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("the condition never held")
}

// TestOneShotRunStopsServersOnClose: a one-shot run (the CLI's) hands its
// result over before its servers are stopped, since a server's exit can
// take longer than a small run, and the app's Close stops them; any other
// run stops its servers as it returns.
func TestOneShotRunStopsServersOnClose(t *testing.T) {
	t.Parallel()
	for _, oneShot := range []bool{true, false} {
		ended := make(chan struct{})
		srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "answer", Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct {
				N int `json:"n"`
			}, error) {
				return nil, struct {
					N int `json:"n"`
				}{42}, nil
			})
		a := &App{WorkerCommand: testWorkerCommand, Dial: func(ctx context.Context, _ servers.ServerConfig) (mcp.Transport, error) {
			ct, st := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(context.WithoutCancel(ctx), st, nil)
			if err != nil {
				return nil, err
			}
			go func() { _ = ss.Wait(); close(ended) }()
			return ct, nil
		}}
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "mcp.json"), `{"mcpServers":{"s":{"command":"unused"}}}`)
		writeFile(t, filepath.Join(dir, "prog.ts"), `import { callMCPTool } from "mcpcode:runtime";
export default (await callMCPTool("s", "answer", {})).n;`)
		ws, err := a.Open(OpenOptions{Dir: dir, RequireConfig: true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := ws.Run(t.Context(), RunRequest{File: filepath.Join(dir, "prog.ts"), OneShot: oneShot})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK || string(res.Result) != "42" {
			t.Fatalf("OneShot %v: result %s, error %+v", oneShot, res.Result, res.Error)
		}
		// A one-shot run leaves its servers to Close; any other run stops
		// them as it returns (the server sees its session end a little
		// after the client closed it: waited for, with a guard).
		a.later.mu.Lock()
		left := len(a.later.fns)
		a.later.mu.Unlock()
		if oneShot {
			if left != 1 {
				t.Errorf("the one-shot run left %d things for Close, want its servers' pool", left)
			}
			select {
			case <-ended:
				t.Error("the one-shot run stopped its server before handing its result over")
			default:
			}
		} else {
			if left != 0 {
				t.Errorf("a run that is not one-shot left %d things for Close, want none", left)
			}
			select {
			case <-ended:
			case <-time.After(guard):
				t.Fatal("the run returned and its server was never stopped")
			}
		}
		a.Close()
		select {
		case <-ended:
		case <-time.After(guard):
			t.Fatalf("OneShot %v: the server was not stopped by Close", oneShot)
		}
	}
}
