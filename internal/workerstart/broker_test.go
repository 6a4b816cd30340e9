//go:build linux

package workerstart

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/workerstart/brokertest"
)

// This test binary plays the broker's parts: `__broker SOCKET` is the
// broker, `__runner` a runner whose "command" (fakeCommand) reports what
// it was given, and `run ...` (TestMain) a client, which reaches
// fakeCommand through a broker when one serves it, and otherwise reports
// its early worker as a local run and starts a broker afterwards.

// runnerReport is what fakeCommand prints: the command as the runner saw
// it.
type runnerReport struct {
	Runner bool     `json:"runner"`
	Args   []string `json:"args"`
	Value  string   `json:"value"` // $MCPCODE_TEST_VALUE
	Env    int      `json:"env"`   // the number of variables
	Dir    string   `json:"dir"`
	Stdin  string   `json:"stdin"`
	Pid    int      `json:"pid"`
}

func playBroker(args []string) int {
	switch args[0] {
	case BrokerArg:
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := ServeBroker(ctx, args[1]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		return 0
	default:
		return ServeRunner(fakeCommand, nil, func(w io.Writer) error {
			_, err := w.Write([]byte("warm up\n"))
			return err
		})
	}
}

// fakeCommand is the runner's command line: `run MODE`. report prints a
// runnerReport (reading stdin whole) and exits with the code in
// $MCPCODE_TEST_CODE; wait prints its pid and waits for SIGTERM, then
// exits 143; die kills its own process.
func fakeCommand(args []string, done func(int)) int {
	mode := ""
	if len(args) > 1 {
		mode = args[1]
	}
	switch mode {
	case "wait":
		terms := make(chan os.Signal, 1)
		signal.Notify(terms, syscall.SIGTERM)
		os.Stdout.WriteString(strconv.Itoa(os.Getpid()) + "\n")
		<-terms
		os.Stdout.WriteString("terminated\n")
		done(143)
		return 143
	case "die":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	dir, _ := os.Getwd()
	in, _ := io.ReadAll(os.Stdin)
	json.NewEncoder(os.Stdout).Encode(runnerReport{Runner: true, Args: args, Value: os.Getenv("MCPCODE_TEST_VALUE"),
		Env: len(os.Environ()), Dir: dir, Stdin: string(in), Pid: os.Getpid()})
	os.Stderr.WriteString("to stderr\n")
	code, _ := strconv.Atoi(os.Getenv("MCPCODE_TEST_CODE"))
	done(code)
	if after := os.Getenv("MCPCODE_TEST_AFTER"); after != "" {
		// Cleanup after the client has its code: the runner's own, which
		// holds the client's streams no longer.
		time.Sleep(2 * time.Second)
		os.Stdout.WriteString("after the end\n")
		os.WriteFile(after, []byte("cleaned up"), 0o600)
	}
	return code
}

// client runs this binary as a client: `run args...` in dir with env and
// stdin; it returns stdout, stderr and how it ended.
func client(t *testing.T, env []string, dir, stdin string, args ...string) (string, string, *os.ProcessState) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"run"}, args...)...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, dir, strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// A broker or runner holding the client's output pipe would block
	// Wait, until it closes it or WaitDelay passes.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		t.Fatalf("the client exited, but its output stayed open (stdout %q)", out.String())
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("client: %v (stderr %q)", err, errOut.String())
	}
	return out.String(), errOut.String(), cmd.ProcessState
}

// startBroker runs a client that finds no broker and starts one, and
// waits until the broker listens.
func startBroker(t *testing.T, xdg string) string {
	t.Helper()
	out, _, state := client(t, brokertest.Env(os.Environ(), xdg), "", "", "report")
	if !state.Success() || strings.Contains(out, `"runner":true`) {
		t.Fatalf("the first run (no broker yet) = %q, %v; want a local run", out, state)
	}
	return brokertest.WaitSockets(t, xdg, 1)[0]
}

// TestBrokerRunsTheCommandAsTheClientWould: the second run goes to a
// warm runner, which runs the command with the client's arguments,
// environment, working directory and standard streams, and the client
// exits with its code.
func TestBrokerRunsTheCommandAsTheClientWould(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	startBroker(t, xdg)
	dir := t.TempDir()
	after := filepath.Join(dir, "after")
	env := append(brokertest.Env(os.Environ(), xdg), "MCPCODE_TEST_VALUE=a value with spaces", "MCPCODE_TEST_CODE=3")
	out, errOut, state := client(t, env, dir, "the client's stdin\n", "report", "two words", "")
	var r runnerReport
	if err := json.Unmarshal([]byte(out), &r); err != nil || !r.Runner {
		t.Fatalf("output %q, want the runner's report", out)
	}
	if want := []string{"run", "report", "two words", ""}; strings.Join(r.Args, "|") != strings.Join(want, "|") {
		t.Errorf("args %q, want %q", r.Args, want)
	}
	if r.Value != "a value with spaces" || r.Env != len(env) {
		t.Errorf("environment: value %q of %d variables, want %q of %d", r.Value, r.Env, "a value with spaces", len(env))
	}
	if real, _ := filepath.EvalSymlinks(dir); r.Dir != real {
		t.Errorf("working directory %q, want %q", r.Dir, real)
	}
	if r.Stdin != "the client's stdin\n" || errOut != "to stderr\n" {
		t.Errorf("stdin %q, stderr %q", r.Stdin, errOut)
	}
	if state.ExitCode() != 3 {
		t.Errorf("exit code %d, want the command's 3", state.ExitCode())
	}
	if r.Pid == state.Pid() {
		t.Error("the command ran in the client")
	}
	// Each run gets a fresh runner, and the used one is gone. This one
	// exits 0 and its runner goes on (cleanup) with the client's output
	// released: client fails the test if the output stays open.
	out2, _, _ := client(t, append(brokertest.Env(os.Environ(), xdg), "MCPCODE_TEST_AFTER="+after), dir, "", "report")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(after); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the runner did not finish its cleanup after the client exited")
		}
	}
	if strings.Contains(out2, "after the end") {
		t.Errorf("the client's output %q has what its runner wrote after it ended", out2)
	}
	var r2 runnerReport
	if err := json.Unmarshal([]byte(out2), &r2); err != nil || !r2.Runner || r2.Pid == r.Pid {
		t.Fatalf("second run %q: want another runner than %d", out2, r.Pid)
	}
	if brokertest.Alive(r.Pid) {
		t.Errorf("the runner %d lives on after its run", r.Pid)
	}
}

// TestBrokerPassesSignalsAndDeaths: a signal the client gets reaches the
// command; a runner killed by a signal kills its client with it; a client
// killed mid-run takes its runner with it.
func TestBrokerPassesSignalsAndDeaths(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	startBroker(t, xdg)

	cmd := exec.Command(os.Args[0], "run", "wait")
	cmd.Env = brokertest.Env(os.Environ(), xdg)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatal("the command printed nothing")
	}
	runner, _ := strconv.Atoi(lines.Text())
	if runner == cmd.Process.Pid || runner == 0 {
		t.Fatalf("runner pid %q", lines.Text())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	if !lines.Scan() || lines.Text() != "terminated" {
		t.Errorf("after SIGTERM to the client the command printed %q, want terminated", lines.Text())
	}
	cmd.Wait()
	if cmd.ProcessState.ExitCode() != 143 {
		t.Errorf("client ended %v, want exit status 143", cmd.ProcessState)
	}

	_, _, state := client(t, brokertest.Env(os.Environ(), xdg), "", "", "die")
	if ws := state.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("client of a runner killed by SIGKILL ended %v, want killed", state)
	}

	cmd = exec.Command(os.Args[0], "run", "wait")
	cmd.Env = brokertest.Env(os.Environ(), xdg)
	stdout, _ = cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines = bufio.NewScanner(stdout)
	lines.Scan()
	runner, _ = strconv.Atoi(lines.Text())
	cmd.Process.Kill()
	cmd.Wait()
	for deadline := time.Now().Add(10 * time.Second); brokertest.Alive(runner); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			syscall.Kill(runner, syscall.SIGKILL)
			t.Fatalf("the runner %d of a killed client still runs", runner)
		}
	}
}

// TestBrokerOnlyForTheSameContext: a client whose runner would differ
// from it runs locally: another umask (part of the fingerprint: it gets a
// broker of its own), a variable the Go runtime reads at start, or the
// broker turned off; a client asking with another fingerprint is refused.
func TestBrokerOnlyForTheSameContext(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	sock := startBroker(t, xdg)
	for _, tc := range []struct {
		name string
		env  []string
	}{
		{"GODEBUG", append(brokertest.Env(os.Environ(), xdg), "GODEBUG=gctrace=0")},
		{"TZ", append(brokertest.Env(os.Environ(), xdg), "TZ=UTC")},
		{"off", append(brokertest.Env(os.Environ(), xdg), BrokerEnv+"=off")},
	} {
		if out, _, _ := client(t, tc.env, "", "", "report"); strings.Contains(out, `"runner":true`) {
			t.Errorf("%s: the run went to a runner: %q", tc.name, out)
		}
	}
	cmd := exec.Command("sh", "-c", `umask 077 && exec "$0" run report`, os.Args[0])
	cmd.Env = brokertest.Env(os.Environ(), xdg)
	if out, err := cmd.Output(); err != nil || strings.Contains(string(out), `"runner":true`) {
		t.Errorf("another umask: %q, %v; want a local run", out, err)
	}
	brokertest.WaitSockets(t, xdg, 2) // a broker for the other umask

	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}); err != nil {
		t.Fatal(err)
	}
	fp := []byte("exe 1 2 3\n")
	if err := writeAll(fd, append(appendUint32([]byte(brokerHello), uint32(len(fp))), fp...)); err != nil {
		t.Fatal(err)
	}
	var answer [1]byte
	if err := readFull(fd, answer[:]); err != nil || answer[0] != 'n' {
		t.Errorf("answer to another fingerprint %q (%v), want n", answer, err)
	}
}

// TestBrokerNeedsAPrivateDirectory: a broker directory other users can
// enter is neither used nor made a broker's.
func TestBrokerNeedsAPrivateDirectory(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	if err := os.Mkdir(filepath.Join(xdg, "mcpcode"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(xdg, "mcpcode"), 0o777); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if out, _, state := client(t, brokertest.Env(os.Environ(), xdg), "", "", "report"); !state.Success() || strings.Contains(out, `"runner":true`) {
			t.Fatalf("run = %q, %v; want a local run", out, state)
		}
	}
	time.Sleep(500 * time.Millisecond) // a broker, if one was started, would listen by now
	if s := brokertest.Sockets(xdg); len(s) != 0 {
		t.Errorf("a broker listens in a directory open to all: %q", s)
	}
	if err := checkPrivateDir(filepath.Join(xdg, "mcpcode")); err == nil {
		t.Error("checkPrivateDir accepts mode 0777")
	}

	// A broker started by hand on a socket there refuses to serve.
	fp, err := fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a broker that serves runs on
	defer cancel()
	out, err := exec.CommandContext(ctx, os.Args[0], BrokerArg, filepath.Join(xdg, "mcpcode", socketName(fp))).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "open to other users") || len(brokertest.Sockets(xdg)) != 0 {
		t.Errorf("a broker in a directory open to all: %v, %q, sockets %q", err, out, brokertest.Sockets(xdg))
	}

	// A broker's directory made open afterwards is no longer used.
	if err := os.Chmod(filepath.Join(xdg, "mcpcode"), 0o700); err != nil {
		t.Fatal(err)
	}
	startBroker(t, xdg)
	if err := os.Chmod(filepath.Join(xdg, "mcpcode"), 0o777); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := client(t, brokertest.Env(os.Environ(), xdg), "", "", "report"); strings.Contains(out, `"runner":true`) {
		t.Errorf("a run used the broker of a directory open to all: %q", out)
	}
	os.Chmod(filepath.Join(xdg, "mcpcode"), 0o700) // for the cleanup
}

// TestFingerprintChangesWithTheContext: what a worker inherits is in the
// fingerprint.
func TestFingerprintChangesWithTheContext(t *testing.T) {
	base, err := fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"exe ", "Uid:", "Groups:", "CapEff:", "NoNewPrivs:", "Seccomp:", "Cpus_allowed_list:", "Umask:",
		"/proc/self/cgroup", "Max open files", "ns mnt:", "ns user:", "ns pid:", "priority "} {
		if !bytes.Contains(base, []byte(want)) {
			t.Errorf("the fingerprint has no %q:\n%s", want, base)
		}
	}
	old := syscall.Umask(0o077)
	changed, err := fingerprint()
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(base, changed) || brokerSocket(base) == brokerSocket(changed) {
		t.Error("another umask gives the same fingerprint")
	}
}

// TestRequestStringsRoundTrip: what a client writes, a runner reads; a
// truncated or inflated request is refused.
func TestRequestStringsRoundTrip(t *testing.T) {
	in := []string{"run", "", "x=y", strings.Repeat("é", 1000)}
	b := appendStrings(nil, in)
	got, rest, ok := readStrings(b)
	if !ok || len(rest) != 0 || strings.Join(got, "|") != strings.Join(in, "|") {
		t.Fatalf("round trip: %q %q %v", got, rest, ok)
	}
	for i := 0; i < len(b); i++ {
		if _, _, ok := readStrings(b[:i]); ok {
			t.Fatalf("a request cut at %d of %d bytes reads", i, len(b))
		}
	}
	if _, _, ok := readStrings(appendUint32(nil, 1<<30)); ok {
		t.Error("a count larger than the request reads")
	}
}

func FuzzReadStrings(f *testing.F) {
	f.Add(appendStrings(nil, []string{"run", "a"}))
	f.Add([]byte{255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, b []byte) {
		got, rest, ok := readStrings(b)
		if !ok {
			return
		}
		if again := appendStrings(nil, got); !bytes.Equal(append(again, rest...), b) {
			t.Errorf("%q reads as %q + %q, which writes back differently", b, got, rest)
		}
	})
}
