//go:build linux

package cli

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/workerstart/brokertest"
)

// TestWarmRunnerEndToEnd: with the broker on (the default), the first run
// starts it without holding the caller's output open; later runs go to a
// warm runner and print, exit and fail exactly as a run without the broker
// does: a result, a failing program, a usage error, a program on stdin.
func TestWarmRunnerEndToEnd(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	ws := t.TempDir()
	for name, content := range map[string]string{
		"mcp.json": `{"mcpServers":{}}`,
		"prog.ts": `export default function (input: { n: number }) {
  console.log("n is", input.n);
  return { double: input.n * 2 };
}
`,
		"fail.ts": "const x: number = 1;\nthrow new Error(`boom ${x}`);\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	on := []string{"MCPCODE_WARM=on", "XDG_RUNTIME_DIR=" + xdg}
	off := []string{"MCPCODE_WARM=off", "XDG_RUNTIME_DIR=" + xdg}
	prog := []string{"run", "prog.ts", "--input", `{"n":21}`}

	want := runWithStdin(t, ws, off, "", prog...)
	if want.code != 0 || !strings.Contains(want.stdout, "n is 21") || !strings.Contains(want.stdout, `"double": 42`) {
		t.Fatalf("run without the broker: %+v", want)
	}
	if got := runWithStdin(t, ws, on, "", prog...); got != want {
		t.Errorf("the run that starts the broker: %+v, want %+v", got, want)
	}
	broker := brokertest.Pid(t, brokertest.WaitSockets(t, xdg, 1)[0])

	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
	}{
		{"result", "", prog},
		{"failing program", "", []string{"run", "fail.ts"}},
		{"usage error", "", []string{"run", "--timeout", "-1s", "prog.ts"}},
		{"program on stdin", `console.log("from stdin"); export default 7;`, []string{"run", "-"}},
	} {
		runner := waitRunner(t, broker)
		got := runWithStdin(t, ws, on, tc.stdin, tc.args...)
		want := runWithStdin(t, ws, off, tc.stdin, tc.args...)
		if got != want {
			t.Errorf("%s: through the broker %+v, without %+v", tc.name, got, want)
		}
		for deadline := time.Now().Add(10 * time.Second); brokertest.Alive(runner); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the warm runner %d did not take the run (it still waits)", tc.name, runner)
			}
		}
	}
}

// waitRunner waits until the broker has a runner waiting, and returns it.
func waitRunner(t testing.TB, broker int) int {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c := brokertest.Children(broker); len(c) == 1 {
			return c[0]
		}
	}
	t.Fatalf("the broker %d has no runner", broker)
	return 0
}

// runWithStdin runs the binary in dir with env added and stdin; its output
// must reach its end when the binary exits (nothing else may hold it).
func runWithStdin(t *testing.T, dir string, env []string, stdin string, args ...string) runResult {
	t.Helper()
	cmd := brokertest.Command(binary, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, append(os.Environ(), env...), strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 10 * time.Second
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("mcpcode %s did not finish within 2m", strings.Join(args, " "))
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("mcpcode %s exited, but its output stayed open (held by a process it left)", strings.Join(args, " "))
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{stdout.String(), stderr.String(), code}
}

// TestWarmRunnerInABackgroundJob: a script's background job starts with
// SIGINT ignored, a context of its own (the fingerprint has the ignored
// signals); the broker it starts must serve it all the same, which it
// cannot if anything in the broker catches SIGINT before it reads its own
// context.
func TestWarmRunnerInABackgroundJob(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	ws := t.TempDir()
	for name, content := range map[string]string{"mcp.json": `{"mcpServers":{}}`, "hello.ts": `console.log("hello");`} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func() runResult {
		t.Helper()
		cmd := brokertest.Command("sh", "-c", `trap "" INT && exec "$0" run hello.ts`, binary)
		cmd.Dir, cmd.Env = ws, append(os.Environ(), "MCPCODE_WARM=on", "XDG_RUNTIME_DIR="+xdg)
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != "hello\n" {
			t.Fatalf("run with SIGINT ignored: %q, %v", out, err)
		}
		return runResult{stdout: string(out)}
	}
	run() // starts the broker
	broker := brokertest.Pid(t, brokertest.WaitSockets(t, xdg, 1)[0])
	runner := waitRunner(t, broker)
	run()
	for deadline := time.Now().Add(10 * time.Second); brokertest.Alive(runner); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the warm runner %d did not take the run of a background job", runner)
		}
	}
}
