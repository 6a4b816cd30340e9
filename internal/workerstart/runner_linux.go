//go:build linux

package workerstart

import (
	"errors"
	"io"
	"os"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// replacedStdio keeps the standard files a runner replaced (takeRequest).
var replacedStdio []*os.File

// runnerControlFD is the runner's end of its socket pair with the broker.
const runnerControlFD = 3

// ServeRunner is the life of a warm runner (`mcpcode __runner`, started by
// the broker): it warms itself up (warm: a run of its own, which takes the
// worker process started as it began), starts the worker process of the
// run to come and asks it to warm up (warmUp writes that message), then
// waits until the broker hands it a run's
// connection; takes the run's environment, working directory and standard
// streams; runs main with the run's arguments, as the client would have;
// and reports the exit code to the client as soon as main calls done with
// it (the client then exits; main's cleanup goes on here). It returns the
// code to exit with. If the client goes away before that, this process
// kills itself (as the client was killed, so is its run).
func ServeRunner(main func(args []string, done func(code int)) int, warm func(), warmUp func(io.Writer) error) int {
	if warm != nil {
		// A run of its own first, with the worker started as this process
		// began; then the worker for the run to come.
		warm()
		startEarly()
	}
	if p := peekEarly(); p != nil {
		_ = warmUp(p.Stdin)
	}
	warmThreads(8)
	conn, err := receiveConn(runnerControlFD)
	syscall.Close(runnerControlFD)
	if err != nil {
		return 0 // the broker ended before a run came
	}
	args, err := takeRequest(conn)
	if err != nil {
		// Nothing of the run has happened: ending without saying that it
		// began has the client run it itself.
		return 2
	}
	// The client may have given up waiting (a signal came) and run the
	// command itself: it says whether the run is still this process's,
	// which from then on it is, and the client waits for its end.
	var answer [1]byte
	if writeAll(conn, []byte{runBegan}) != nil || readFull(conn, answer[:]) != nil || answer[0] != runGo {
		return 2
	}
	var finished atomic.Bool
	go func() {
		var m [2]byte
		for {
			if err := readFull(conn, m[:]); err != nil {
				if !finished.Load() {
					_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
				}
				return
			}
			if m[0] == 'g' && isForwarded(syscall.Signal(m[1])) {
				_ = syscall.Kill(os.Getpid(), syscall.Signal(m[1]))
			}
		}
	}()
	return main(args, func(code int) {
		finished.Store(true)
		// The run's streams are the client's no longer: whoever reads
		// them sees their end when the client exits, not after this
		// process's cleanup.
		releaseStreams()
		_ = writeAll(conn, appendUint32([]byte{'x'}, uint32(int32(code))))
	})
}

func isForwarded(s syscall.Signal) bool {
	for _, f := range forwardedSignals {
		if f == s {
			return true
		}
	}
	return false
}

// receiveConn waits for the connection the broker passes on ctl.
func receiveConn(ctl int) (int, error) {
	var b [1]byte
	oob := make([]byte, syscall.CmsgSpace(4))
	for {
		n, oobn, _, _, err := syscall.Recvmsg(ctl, b[:], oob, syscall.MSG_CMSG_CLOEXEC)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return -1, err
		}
		fds := receivedFDs(oob[:oobn])
		if n != 1 || b[0] != 'c' || len(fds) != 1 {
			closeAll(fds)
			return -1, errors.New("the broker sent no connection")
		}
		return fds[0], nil
	}
}

// takeRequest reads the run's request from conn and makes this process
// the client's: its standard streams, working directory and environment.
// It returns the run's arguments.
func takeRequest(conn int) ([]string, error) {
	if !peerIsMe(conn) {
		return nil, errors.New("the run's client is another user")
	}
	setTimeout(conn, 5) // the client writes its request at once
	head := make([]byte, len(requestMagic)+4)
	oob := make([]byte, syscall.CmsgSpace(4*4))
	n, oobn, _, _, err := syscall.Recvmsg(conn, head, oob, syscall.MSG_CMSG_CLOEXEC)
	for err == syscall.EINTR {
		n, oobn, _, _, err = syscall.Recvmsg(conn, head, oob, syscall.MSG_CMSG_CLOEXEC)
	}
	if err != nil {
		return nil, errors.New("reading the run's request: " + err.Error())
	}
	fds := receivedFDs(oob[:oobn])
	if len(fds) != 4 {
		closeAll(fds)
		return nil, errors.New("the run's request came without its directory and standard streams")
	}
	defer closeAll(fds)
	// From here on an error is the client's to read: its stderr first.
	if err := syscall.Dup3(fds[3], 2, 0); err != nil {
		return nil, errors.New("taking the run's stderr: " + err.Error())
	}
	if err := readFull(conn, head[n:]); err != nil || string(head[:len(requestMagic)]) != requestMagic {
		return nil, errors.New("the run's request is not one")
	}
	size := getUint32(head[len(requestMagic):])
	if size > maxRequest {
		return nil, errors.New("the run's request is too large")
	}
	body := make([]byte, size)
	if err := readFull(conn, body); err != nil {
		return nil, errors.New("reading the run's request: " + err.Error())
	}
	setTimeout(conn, 0)
	args, rest, ok := readStrings(body)
	env, rest, ok2 := readStrings(rest)
	if !ok || !ok2 || len(rest) != 0 || len(args) == 0 || args[0] != "run" {
		return nil, errors.New("the run's request is malformed")
	}
	for i, fd := range fds[1:] {
		if err := syscall.Dup3(fd, i, 0); err != nil {
			return nil, errors.New("taking the run's standard streams: " + err.Error())
		}
	}
	// os.Stdin, os.Stdout and os.Stderr were made for this process's
	// /dev/null, in blocking mode; the client's streams may be
	// non-blocking (a shared pipe), which os.NewFile sees and handles.
	// The old files stay referenced: collected, they would close 0-2.
	replacedStdio = append(replacedStdio, os.Stdin, os.Stdout, os.Stderr)
	os.Stdin = os.NewFile(0, "/dev/stdin")
	os.Stdout = os.NewFile(1, "/dev/stdout")
	os.Stderr = os.NewFile(2, "/dev/stderr")
	if err := syscall.Fchdir(fds[0]); err != nil {
		return nil, errors.New("entering the run's working directory: " + err.Error())
	}
	os.Clearenv()
	for _, kv := range env {
		for i := 1; i < len(kv); i++ { // a name is never empty
			if kv[i] == '=' {
				_ = os.Setenv(kv[:i], kv[i+1:])
				break
			}
		}
	}
	return args, nil
}

// readStrings reads what appendStrings wrote, and returns the rest.
func readStrings(b []byte) ([]string, []byte, bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := getUint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b))/4 {
		return nil, nil, false
	}
	out := make([]string, 0, n)
	for range n {
		if len(b) < 4 {
			return nil, nil, false
		}
		l := getUint32(b)
		b = b[4:]
		if uint64(l) > uint64(len(b)) {
			return nil, nil, false
		}
		out = append(out, string(b[:l]))
		b = b[l:]
	}
	return out, b, true
}

func closeAll(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

// warmThreads has the Go runtime start about n threads now, while the
// runner waits, rather than during the run (starting a thread is costly
// on some virtual machines): n goroutines block in a system call at once,
// each thread that blocks hands its processor to a new one, and the Go
// runtime keeps idle threads for later use.
func warmThreads(n int) {
	done := make(chan struct{})
	for range n {
		go func() {
			ts := syscall.Timespec{Nsec: 20e6}
			_, _, _ = syscall.Syscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
			done <- struct{}{}
		}()
	}
	for range n {
		<-done
	}
}

// releaseStreams points this process's standard streams at /dev/null.
func releaseStreams() {
	null, err := syscall.Open(os.DevNull, syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	for fd := 0; fd <= 2; fd++ {
		_ = syscall.Dup3(null, fd, 0)
	}
	syscall.Close(null)
}
