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

	"github.com/mcpcode/mcpcode/internal/ptytest"
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
		if err := ServeBroker(ctx, args[1], args[2]); err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			return 1
		}
		return 0
	case "forge":
		return forge(args[1], args[2])
	case "fakebroker":
		return fakeBroker(args[1], args[2])
	case "connect-and-leave":
		return connectAndLeave(args[1])
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
	case "big":
		os.WriteFile(os.Getenv("MCPCODE_TEST_WRITING"), nil, 0o600)
		if _, err := os.Stdout.Write(bytes.Repeat([]byte("x"), 300_001)); err != nil {
			os.Stderr.WriteString(err.Error())
			done(1)
			return 1
		}
		done(0)
		return 0
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
	cmd := brokertest.Command(os.Args[0], append([]string{"run"}, args...)...)
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

	cmd := brokertest.Command(os.Args[0], "run", "wait")
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

	cmd = brokertest.Command(os.Args[0], "run", "wait")
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

// TestBrokerRunnerThatEndsBeforeTheRunRunsItHere: a runner that ends after
// the broker handed it the run but before it began it (it died waiting, or
// could not take the request) leaves the run to the client, which runs it
// itself; before, the client ended with the runner's status and no output.
func TestBrokerRunnerThatEndsBeforeTheRunRunsItHere(t *testing.T) {
	t.Parallel()
	// Stopped, it takes the run's connection and request into its socket
	// but begins nothing; then it dies.
	xdg, runner := stoppedRunner(t)
	go func() {
		time.Sleep(500 * time.Millisecond)
		syscall.Kill(runner, syscall.SIGKILL)
	}()
	out, errOut, state := client(t, brokertest.Env(os.Environ(), xdg), "", "", "report")
	if !state.Success() || strings.Contains(out, `"runner":true`) || out == "" {
		t.Fatalf("client of a runner that died before the run: %v, output %q, stderr %q; want the run done here", state, out, errOut)
	}
}

// TestBrokerSignalEndsTheWaitForAStoppedRunner: a client whose runner is
// stopped (or stuck) before it begins the run is not held: SIGTERM ends
// the client as it would a local run, and the runner, told not to begin,
// runs nothing even when it is continued (found by an adversarial review:
// before, the signal waited for the runner, and only SIGKILL ended the
// client).
func TestBrokerSignalEndsTheWaitForAStoppedRunner(t *testing.T) {
	t.Parallel()
	xdg, runner := stoppedRunner(t)
	dir := t.TempDir()
	after := filepath.Join(dir, "after")
	cmd := brokertest.Command(os.Args[0], "run", "report")
	cmd.Env = append(brokertest.Env(os.Environ(), xdg), "MCPCODE_TEST_AFTER="+after)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stdin = &out, strings.NewReader("")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The stopped runner holds the client's stdout until it is killed.
	cmd.WaitDelay = time.Second
	ended := make(chan struct{})
	go func() { cmd.Wait(); close(ended) }()
	time.Sleep(time.Second) // the request is in the stopped runner's socket
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ended:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-ended
		t.Fatal("the client of a stopped runner did not end within 10 s of SIGTERM")
	}
	if ws := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGTERM || out.Len() != 0 {
		t.Errorf("client ended %v with output %q; want ended by SIGTERM, nothing run", cmd.ProcessState, out.String())
	}
	syscall.Kill(runner, syscall.SIGCONT)
	for deadline := time.Now().Add(5 * time.Second); brokertest.Alive(runner) && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
	}
	if _, err := os.Stat(after); err == nil {
		t.Error("the runner, continued, ran the command its client had run")
	}
}

// stoppedRunner starts a broker in a directory of its own and stops
// (SIGSTOP) the runner it keeps ready, which the test's end kills; it
// returns the directory and the runner's pid.
func stoppedRunner(t *testing.T) (string, int) {
	t.Helper()
	xdg := brokertest.NewXDG(t)
	startBroker(t, xdg)
	broker := brokertest.Pid(t, brokertest.Sockets(xdg)[0])
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if kids := brokertest.Children(broker); len(kids) > 0 {
			runner := kids[0]
			if err := syscall.Kill(runner, syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(runner, syscall.SIGKILL) })
			return xdg, runner
		} else if time.Now().After(deadline) {
			t.Fatal("the broker started no runner")
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
	cmd := brokertest.Command("sh", "-c", `umask 077 && exec "$0" run report`, os.Args[0])
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

	// A broker's directory made open afterwards is no longer used.
	if err := os.Chmod(filepath.Join(xdg, "mcpcode"), 0o700); err != nil {
		t.Fatal(err)
	}
	sock := startBroker(t, xdg)
	if err := os.Chmod(filepath.Join(xdg, "mcpcode"), 0o777); err != nil {
		t.Fatal(err)
	}
	if out, _, _ := client(t, brokertest.Env(os.Environ(), xdg), "", "", "report"); strings.Contains(out, `"runner":true`) {
		t.Errorf("a run used the broker of a directory open to all: %q", out)
	}

	// A broker started by hand on that socket there refuses to serve.
	os.Chmod(filepath.Join(xdg, "mcpcode"), 0o700)
	brokertest.Stop(t, xdg)
	os.Chmod(filepath.Join(xdg, "mcpcode"), 0o777)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a broker that serves runs on
	defer cancel()
	broker := brokertest.Command(os.Args[0], BrokerArg, sock, "0")
	out, err := exec.CommandContext(ctx, broker.Path, broker.Args[1:]...).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "open to other users") || len(brokertest.Sockets(xdg)) != 0 {
		t.Errorf("a broker in a directory open to all: %v, %q, sockets %q", err, out, brokertest.Sockets(xdg))
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
		"cgroup", "Max open files", "ns mnt:", "ns user:", "ns pid:", "sched ", "ioprio ", "root ", "SigIgn:", "TracerPid:", "oom_score_adj", "coredump_filter", "loginuid"} {
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

// forge asks the broker at sock for a runner with the fingerprint in the
// file fpFile (another process's) and prints the answer.
func forge(sock, fpFile string) int {
	fp, err := os.ReadFile(fpFile)
	if err != nil {
		return 2
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil || syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}) != nil {
		return 2
	}
	if writeAll(fd, append(appendUint32([]byte(brokerHello), uint32(len(fp))), fp...)) != nil {
		return 2
	}
	var answer [1]byte
	readFull(fd, answer[:])
	os.Stdout.Write(answer[:])
	return 0
}

// fakeBroker listens on sock in place of the broker, takes one connection,
// answers 'y' to whatever comes, and writes to the file record what the
// client sent and the descriptors it passed.
func fakeBroker(sock, record string) int {
	os.Remove(sock)
	lfd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil || syscall.Bind(lfd, &syscall.SockaddrUnix{Name: sock}) != nil || syscall.Listen(lfd, 4) != nil {
		return 2
	}
	os.WriteFile(record+".ready", nil, 0o600)
	fd, _, err := syscall.Accept4(lfd, syscall.SOCK_CLOEXEC)
	if err != nil {
		return 2
	}
	setTimeout(fd, 2)
	var got []byte
	buf := make([]byte, 65536)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	answered := false
	for {
		n, oobn, _, _, err := syscall.Recvmsg(fd, buf, oob, 0)
		if n <= 0 || err != nil {
			break
		}
		got = append(got, buf[:n]...)
		if fds := receivedFDs(oob[:oobn]); len(fds) > 0 {
			got = append(got, []byte(" [descriptors]")...)
		}
		if !answered {
			writeAll(fd, []byte{'y'})
			answered = true
		}
	}
	os.WriteFile(record, got, 0o600)
	return 0
}

// TestBrokerClientsAndBrokersCheckEachOther: a process of this user in
// another context (here: another umask) can neither get a runner by
// sending the broker's fingerprint as its own, nor take the broker's
// place on its socket and receive a run's request.
func TestBrokerClientsAndBrokersCheckEachOther(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	sock := startBroker(t, xdg)
	broker := brokertest.Pid(t, sock)
	fp, err := fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	fpFile := filepath.Join(t.TempDir(), "fp")
	if err := os.WriteFile(fpFile, fp, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := brokertest.Command("sh", "-c", `umask 077 && exec "$0" forge "$1" "$2"`, os.Args[0], sock, fpFile).Output()
	if err != nil || string(out) != "n" {
		t.Errorf("a client in another context sending this one's fingerprint got %q (%v), want n", out, err)
	}

	record := filepath.Join(t.TempDir(), "record")
	fake := brokertest.Command("sh", "-c", `umask 077 && exec "$0" fakebroker "$1" "$2"`, os.Args[0], sock, record)
	if err := fake.Start(); err != nil {
		t.Fatal(err)
	}
	defer fake.Process.Kill()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(record + ".ready"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake broker did not start")
		}
	}
	out2, _, state := client(t, append(brokertest.Env(os.Environ(), xdg), "SECRET_TOKEN=hunter2"), "", "", "report")
	if !state.Success() || strings.Contains(out2, `"runner":true`) {
		t.Errorf("run with a fake broker on the socket: %q, %v; want a local run", out2, state)
	}
	fake.Wait()
	got, _ := os.ReadFile(record)
	if len(got) != 0 {
		t.Errorf("the fake broker received %q from the client", got)
	}
	// The real broker lost its socket: stop it by its pid.
	os.Remove(sock)
	syscall.Kill(broker, syscall.SIGTERM)
}

// TestBrokerNotInASandbox: with no_new_privs (as Landlock and many
// sandboxes set it) or a controlling terminal a run stays local, and
// starts no broker.
func TestBrokerNotInASandbox(t *testing.T) {
	t.Parallel()
	// In a sandbox with no_new_privs, no broker is started or used, even
	// by runs that share it (Landlock rules, for one, cannot be compared).
	nnp := brokertest.NewXDG(t)
	for range 2 {
		cmd := brokertest.Command("setpriv", "--no-new-privs", os.Args[0], "run", "report")
		cmd.Env = brokertest.Env(os.Environ(), nnp)
		out, err := cmd.Output()
		if err != nil || strings.Contains(string(out), `"runner":true`) {
			t.Errorf("with no_new_privs: %q, %v; want a local run (setpriv is util-linux's)", out, err)
		}
	}
	time.Sleep(500 * time.Millisecond) // a broker, if one was started, would listen by now
	if s := brokertest.Sockets(nnp); len(s) != 0 {
		t.Errorf("a broker was started with no_new_privs: %q", s)
	}

	xdg := brokertest.NewXDG(t)
	startBroker(t, xdg)

	_, tty := ptytest.Open(t)
	cmd := brokertest.Command(os.Args[0], "run", "report")
	cmd.Env = brokertest.Env(os.Environ(), xdg)
	cmd.ExtraFiles = []*os.File{tty} // descriptor 3: the controlling terminal, not a standard stream
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 3}
	out, err := cmd.Output()
	if err != nil || strings.Contains(string(out), `"runner":true`) {
		t.Errorf("with a controlling terminal: %q, %v; want a local run", out, err)
	}
	if s := brokertest.Sockets(xdg); len(s) != 1 {
		t.Errorf("sockets %q: want only the first broker's", s)
	}
}

// TestBrokerStreamsAsTheClientHasThem: a non-blocking stdout (a pipe
// shared with a process that set O_NONBLOCK) gets all of a large output.
func TestBrokerStreamsAsTheClientHasThem(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	startBroker(t, xdg)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	raw := int(w.Fd()) // Fd makes it blocking, and Start calls it again
	writing := filepath.Join(t.TempDir(), "writing")
	cmd := brokertest.Command(os.Args[0], "run", "big")
	cmd.Env = append(brokertest.Env(os.Environ(), xdg), "MCPCODE_TEST_WRITING="+writing)
	cmd.Stdout = w
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Shared with the client's stdout: the same open file.
	if err := syscall.SetNonblock(raw, true); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// Read late, so that the pipe fills and the writer meets EAGAIN.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(writing); err == nil || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(300 * time.Millisecond)
	got, _ := io.ReadAll(r)
	cmd.Wait()
	if len(got) != 300_001 || !cmd.ProcessState.Success() {
		t.Errorf("got %d bytes of 300,001 (%v, stderr %q)", len(got), cmd.ProcessState, errOut.String())
	}
}

// TestBrokerIgnoredSignalsStayIgnored: a run started with SIGHUP ignored
// (nohup) is served by runners that ignore it too (SigIgn is part of the
// fingerprint), never by those of a broker started without.
func TestBrokerIgnoredSignalsStayIgnored(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	startBroker(t, xdg)
	nohup := func(mode string) *exec.Cmd {
		cmd := brokertest.Command("sh", "-c", `trap "" HUP && exec "$0" run "$1"`, os.Args[0], mode)
		cmd.Env = brokertest.Env(os.Environ(), xdg)
		return cmd
	}
	if out, err := nohup("report").Output(); err != nil || strings.Contains(string(out), `"runner":true`) {
		t.Fatalf("the first run with SIGHUP ignored: %q, %v; want a local run (another context)", out, err)
	}
	brokertest.WaitSockets(t, xdg, 2)
	cmd := nohup("wait")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	if !lines.Scan() {
		t.Fatal("the command printed nothing")
	}
	cmd.Process.Signal(syscall.SIGHUP)
	time.Sleep(200 * time.Millisecond) // a SIGHUP that got through would have ended it
	cmd.Process.Signal(syscall.SIGTERM)
	if !lines.Scan() || lines.Text() != "terminated" {
		t.Errorf("after SIGHUP then SIGTERM the command printed %q, want terminated", lines.Text())
	}
	cmd.Wait()
	if cmd.ProcessState.ExitCode() != 143 {
		t.Errorf("client ended %v, want exit status 143", cmd.ProcessState)
	}
}

// TestBrokerNotWhereProcSaysTooLittle: a traced run (a ptrace supervisor
// can confine it), one with a personality other than the default, and,
// when these tests run with CAP_SYS_ADMIN, one that keeps it (with it,
// Landlock needs no no_new_privs) stay local.
func TestBrokerNotWhereProcSaysTooLittle(t *testing.T) {
	t.Parallel()
	xdg := brokertest.NewXDG(t)
	startBroker(t, xdg)
	cases := map[string]*exec.Cmd{
		"traced":      brokertest.Command("strace", "-f", "-o", os.DevNull, os.Args[0], "run", "report"),
		"personality": brokertest.Command("setarch", "-R", os.Args[0], "run", "report"),
	}
	if plain := exec.Command(os.Args[0]); brokertest.Command(os.Args[0]).Path != plain.Path {
		// This process has CAP_SYS_ADMIN (brokertest.Command drops it).
		cases["CAP_SYS_ADMIN"] = exec.Command(os.Args[0], "run", "report")
	}
	for name, cmd := range cases {
		cmd.Env = brokertest.Env(os.Environ(), xdg)
		out, err := cmd.Output()
		if err != nil || strings.Contains(string(out), `"runner":true`) {
			t.Errorf("%s: %q, %v; want a local run", name, out, err)
		}
	}
	time.Sleep(500 * time.Millisecond) // a broker, if one was started, would listen by now
	if s := brokertest.Sockets(xdg); len(s) != 1 {
		t.Errorf("sockets %q: want only the first broker's (none started by these runs)", s)
	}
}

// TestPeerMatchesOnlyALiveOtherProcess: the peer is the process that
// connected, not whatever has its pid now, and never this process itself.
func TestPeerMatchesOnlyALiveOtherProcess(t *testing.T) {
	self, err := fingerprint()
	if err != nil {
		t.Fatal(err)
	}
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(pair[0])
	defer syscall.Close(pair[1])
	if peerMatches(pair[0], self) {
		t.Error("a connection to this very process matches")
	}
	// A child that connected and is gone, its connection kept open by its
	// own child: the peer's pid is dead (and may be anyone's by now).
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	lfd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil || syscall.Bind(lfd, &syscall.SockaddrUnix{Name: sock}) != nil || syscall.Listen(lfd, 1) != nil {
		t.Fatal("listening", err)
	}
	defer syscall.Close(lfd)
	conn := exec.Command(os.Args[0], "connect-and-leave", sock)
	if err := conn.Run(); err != nil {
		t.Fatalf("the connecting child: %v", err)
	}
	fd, _, err := syscall.Accept4(lfd, syscall.SOCK_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if peerMatches(fd, self) {
		t.Error("a connection whose connecting process has exited matches")
	}
}

// connectAndLeave connects to sock, hands the connection to a child that
// keeps it open for a while, and exits.
func connectAndLeave(sock string) int {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil || syscall.Connect(fd, &syscall.SockaddrUnix{Name: sock}) != nil {
		return 2
	}
	keeper := exec.Command("sleep", "5")
	keeper.ExtraFiles = []*os.File{os.NewFile(uintptr(fd), "connection")}
	if keeper.Start() != nil {
		return 2
	}
	return 0
}
