//go:build linux

package workerstart

import (
	"errors"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

// runnerUnsafeEnv are variables read as a process starts (by the Go
// runtime, or by this binary before main): a runner, started without them,
// would not be the process this one is, so a run with any of them set
// stays local.
var runnerUnsafeEnv = []string{"GODEBUG", "GOGC", "GOMEMLIMIT", "GOMAXPROCS", "GOTRACEBACK", "GORACE", "TZ", "ZONEINFO"}

// oPath is O_PATH (Linux 2.6.39; the same value on the architectures Go
// supports but alpha, parisc and sparc, which it does not): a descriptor
// of the working directory that needs no permission to read it.
const oPath = 0x200000

// forwardedSignals are the signals a client passes on to its runner.
var forwardedSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// brokerState is what this process learned about the broker: the socket
// where none answered, for StartBroker.
var brokerState struct {
	sync.Mutex
	socket string
	// sigIgn is the signals ignored as this process started (the SigIgn
	// of /proc/self/status), which the CLI's own handlers change later.
	sigIgn string
}

// runViaBroker hands the command line args to a warm runner of the broker
// and exits with the runner's status. It returns, having done nothing,
// when the command must run here: not a run, the broker turned off, a
// terminal on a standard stream, an environment the runner could not
// reproduce, no broker (then StartBroker starts one afterwards), or a
// broker with no runner for this process.
func runViaBroker(args []string) {
	if run, help, _ := readRunFlags(args); !run || help || !brokerEnabled() {
		return
	}
	for _, v := range runnerUnsafeEnv {
		if _, ok := os.LookupEnv(v); ok {
			return
		}
	}
	for fd := 0; fd <= 2; fd++ {
		if isTerminal(fd) {
			return
		}
	}
	if sandboxed() != "" {
		return
	}
	fp, err := fingerprint()
	if err != nil {
		return
	}
	path := brokerSocket(fp)
	if path == "" {
		return
	}
	if err := checkPrivateDir(dirOf(path)); err != nil {
		if errors.Is(err, syscall.ENOENT) {
			noteNoBroker(path)
		}
		return // a directory we do not trust: no broker at all
	}
	fd, err := askBroker(path, fp)
	if err != nil {
		if errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED) {
			noteNoBroker(path)
		}
		return
	}
	// Signals from here on are the run's (none is lost before the
	// runner has the request).
	sigs := make(chan os.Signal, 8)
	for _, sig := range forwardedSignals {
		// As a local run: the CLI catches SIGINT and SIGTERM even when
		// they were ignored; SIGHUP and SIGQUIT, ignored here (nohup),
		// are ignored by the runner too (part of the fingerprint).
		if sig == syscall.SIGINT || sig == syscall.SIGTERM || !signal.Ignored(sig) {
			signal.Notify(sigs, sig)
		}
	}
	if err := sendRequest(fd, args); err != nil {
		// The runner got no request, so it runs nothing: run here, with
		// the signals that came meanwhile.
		runHere(fd, sigs)
		return
	}
	if !runnerBegan(fd, sigs) {
		// The runner ended before it began the run (it could not take
		// it, or died waiting), or a signal came first and the runner was
		// told not to: nothing of the run has happened there, so it runs
		// here, as after an unsent request.
		runHere(fd, sigs)
		return
	}
	os.Exit(awaitRunner(fd, sigs))
}

// runHere gives up the runner's connection fd and has this process run
// the command, with the signals that came meanwhile.
func runHere(fd int, sigs chan os.Signal) {
	signal.Stop(sigs)
	syscall.Close(fd)
	for {
		select {
		case sig := <-sigs:
			_ = syscall.Kill(os.Getpid(), sig.(syscall.Signal))
		default:
			return
		}
	}
}

// runnerBegan waits until the runner says that it began the run (runBegan),
// lets it go on (runGo) and reports true. It reports false when the
// runner ended before (anything else, or the connection's end), or when a
// signal for the run came first: the runner is then told not to begin
// (runStop), and the signal is left in sigs, for runHere.
func runnerBegan(fd int, sigs chan os.Signal) bool {
	setTimeout(fd, 0) // the runner may still be warming up
	began := make(chan bool, 1)
	go func() {
		var b [1]byte
		began <- readFull(fd, b[:]) == nil && b[0] == runBegan
	}()
	select {
	case ok := <-began:
		return ok && writeAll(fd, []byte{runGo}) == nil
	case sig := <-sigs:
		_ = writeAll(fd, []byte{runStop})
		select {
		case sigs <- sig:
		default: // full: the signals in it end the run as well
		}
		return false
	}
}

func noteNoBroker(path string) {
	sigIgn := "0"
	if status, err := readSmall("/proc/self/status"); err == nil {
		for _, line := range lines(status) {
			if hasPrefix(line, "SigIgn:\t") {
				sigIgn = string(line[len("SigIgn:\t"):])
			}
		}
	}
	brokerState.Lock()
	brokerState.socket, brokerState.sigIgn = path, sigIgn
	brokerState.Unlock()
}

// isTerminal says whether fd is a terminal.
func isTerminal(fd int) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}

// askBroker connects to the broker at path and asks for a runner for
// fingerprint fp; the connection, now the runner's, when one was given.
func askBroker(path string, fp []byte) (int, error) {
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	// A broker answers at once; a stuck one must not stall the run, which
	// then runs here.
	setTimeout(fd, 1)
	// Whatever listens there gets this run's environment and streams: it
	// must be a broker of this binary in this very context, which its
	// /proc says, not its word (another process of this user, in a
	// sandbox, could have put its own socket there).
	if !peerMatches(fd, fp) {
		syscall.Close(fd)
		return -1, errors.New("what listens on the broker's socket is not a broker of this context")
	}
	req := make([]byte, 0, len(brokerHello)+4+len(fp))
	req = append(req, brokerHello...)
	req = appendUint32(req, uint32(len(fp)))
	req = append(req, fp...)
	var answer [1]byte
	if err := writeAll(fd, req); err != nil {
		syscall.Close(fd)
		return -1, err
	}
	if err := readFull(fd, answer[:]); err != nil || answer[0] != 'y' {
		syscall.Close(fd)
		return -1, errors.New("the broker has no runner for this run")
	}
	return fd, nil
}

// sendRequest writes the run's request on fd, with this process's
// working directory and standard streams attached.
func sendRequest(fd int, args []string) error {
	cwd, err := syscall.Open(".", oPath|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(cwd)
	body := appendStrings(nil, args)
	body = appendStrings(body, os.Environ())
	if len(body) > maxRequest {
		return errors.New("the run's arguments and environment are too large for a runner")
	}
	msg := make([]byte, 0, len(requestMagic)+4+len(body))
	msg = append(msg, requestMagic...)
	msg = appendUint32(msg, uint32(len(body)))
	msg = append(msg, body...)
	rights := syscall.UnixRights(cwd, 0, 1, 2)
	n, err := syscall.SendmsgN(fd, msg, rights, nil, syscall.MSG_NOSIGNAL)
	if err != nil {
		return err
	}
	return writeAll(fd, msg[n:])
}

// awaitRunner passes this process's signals on to the runner until it
// ends, and returns the exit code to end with: the runner's, or, when it
// was ended by a signal, after this process was ended by the same signal.
func awaitRunner(fd int, sigs <-chan os.Signal) int {
	setTimeout(fd, 0) // as long as the run
	go func() {
		for s := range sigs {
			if n, ok := s.(syscall.Signal); ok {
				_ = writeAll(fd, []byte{'g', byte(n)})
			}
		}
	}()
	var head [5]byte
	if err := readFull(fd, head[:]); err != nil {
		os.Stderr.WriteString("mcpcode: the run's process ended without an exit status (" + err.Error() + "); set " + BrokerEnv + "=off to run without the broker\n")
		return 1
	}
	v := getUint32(head[1:])
	switch head[0] {
	case 'x':
		return int(int32(v))
	case 's':
		ws := syscall.WaitStatus(v)
		if ws.Signaled() {
			signal.Reset(ws.Signal())
			_ = syscall.Kill(os.Getpid(), ws.Signal())
			time.Sleep(100 * time.Millisecond) // the signal ends this process
			return 128 + int(ws.Signal())
		}
		return ws.ExitStatus()
	}
	os.Stderr.WriteString("mcpcode: the run's process sent no exit status\n")
	return 1
}

func appendUint32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

// appendStrings appends a count and each string, length-prefixed.
func appendStrings(b []byte, ss []string) []byte {
	b = appendUint32(b, uint32(len(ss)))
	for _, s := range ss {
		b = appendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return b
}

// StartBroker starts the broker in the background when this process was a
// run that found none; otherwise it does nothing. The broker is a new
// session with no descriptor of this process (its standard streams are
// /dev/null), so a caller reading this process's output sees its end as
// before.
func StartBroker() {
	brokerState.Lock()
	path, sigIgn := brokerState.socket, brokerState.sigIgn
	brokerState.socket = ""
	brokerState.Unlock()
	if path == "" {
		return
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		return
	}
	defer devnull.Close()
	keepDescriptorsFromChildren()
	p, err := os.StartProcess("/proc/self/exe", []string{Executable(), BrokerArg, path, sigIgn}, &os.ProcAttr{
		Dir: "/", Env: []string{}, Files: []*os.File{devnull, devnull, devnull},
		Sys: &syscall.SysProcAttr{Setsid: true},
	})
	if err == nil {
		_ = p.Release()
	}
}
