package workerstart

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// TestMain makes this test binary the program of the tests below: with
// "__worker" it is a worker that reports what it was started with; with
// "run" it is a `mcpcode run` that reports the worker this package's init
// started for it.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case Arg:
			json.NewEncoder(os.Stdout).Encode(workerReport{Env: os.Environ(), Pid: os.Getpid(), Pgid: syscall.Getpgrp()})
			io.Copy(io.Discard, os.Stdin) // until the parent closes it
			os.Exit(0)
		case "run":
			code := reportEarlyWorker()
			StartBroker() // as the CLI does after a run
			os.Exit(code)
		case RunnerArg, BrokerArg, "forge", "fakebroker", "connect-and-leave":
			os.Exit(playBroker(os.Args[1:]))
		}
	}
	// The broker's tests turn it on for their own commands, with a
	// directory of their own; no other test may start or use one.
	os.Setenv(BrokerEnv, "off")
	os.Exit(m.Run())
}

type workerReport struct {
	Env  []string `json:"env"`
	Pid  int      `json:"pid"`
	Pgid int      `json:"pgid"`
}

// reportEarlyWorker prints "none", or the started worker's report; then
// checks that Take gives it only once and that Discard has nothing left.
func reportEarlyWorker() int {
	p := Take()
	if p == nil {
		fmt.Println("none")
		return 0
	}
	line, err := bufio.NewReader(p.Stdout).ReadString('\n')
	if err != nil {
		fmt.Println("reading the worker:", err)
		return 1
	}
	fmt.Print(line)
	if Take() != nil {
		fmt.Println("Take gave the early worker twice")
		return 1
	}
	p.Stdin.Close()
	if state, err := p.Wait(); err != nil || !state.Success() {
		fmt.Println("the worker did not end when its stdin closed:", state, err)
		return 1
	}
	return 0
}

// TestEarlyWorker: the command lines of a run that needs a worker get one
// from this package's init, started with an empty environment in its own
// process group; others get none.
func TestEarlyWorker(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"run", "prog.ts"}, true},
		{[]string{"run", "--isolation", "worker", "prog.ts"}, true},
		{[]string{"run", "prog.ts", "--", "--isolation", "none"}, true}, // after "--": not flags
		{[]string{"run", "--isolation", "none", "prog.ts"}, false},
		{[]string{"run", "prog.ts", "-isolation=none"}, false},
		{[]string{"run", "--help"}, false},
		{[]string{"gen"}, false},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			if got := wantsEarlyWorker(tc.args); got != tc.want {
				t.Errorf("wantsEarlyWorker = %v, want %v", got, tc.want)
			}
			if tc.args[0] != "run" {
				return // this binary's TestMain plays only run
			}
			cmd := exec.Command(os.Args[0], tc.args...)
			cmd.Env = append(os.Environ(), "MCPCODE_SECRET_TOKEN=do-not-pass")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if !tc.want {
				if string(out) != "none\n" {
					t.Errorf("output %q, want no early worker", out)
				}
				return
			}
			var r workerReport
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatalf("no worker report: %q", out)
			}
			if len(r.Env) != 0 {
				t.Errorf("the worker's environment is %q, want empty (no host secrets)", r.Env)
			}
			if r.Pgid != r.Pid {
				t.Errorf("the worker's process group is %d, want its own (%d)", r.Pgid, r.Pid)
			}
		})
	}
}

// TestDiscardStopsAnUntakenWorker: a worker nobody took is killed and
// reaped by Discard; Discard without one does nothing.
func TestDiscardStopsAnUntakenWorker(t *testing.T) {
	Discard() // none in this process
	p, err := Start(os.Args[0], []string{os.Args[0], Arg}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan *Process, 1)
	ch <- p
	earlyMu.Lock()
	early = ch
	earlyMu.Unlock()
	Discard()
	if Take() != nil {
		t.Fatal("Discard left the worker to be taken")
	}
	if err := syscall.Kill(p.Pid, 0); err == nil {
		t.Fatal("the discarded worker is still running")
	}
}
