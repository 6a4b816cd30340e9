//go:build linux

package workerstart

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// BrokerIdle is how long the broker waits for a run before it ends: long
// enough for an agent that runs a program every few minutes, short enough
// that nobody finds it running the next day.
const BrokerIdle = 10 * time.Minute

// maxStartFailures ends the broker after that many runners in a row ended
// before they were given a run.
const maxStartFailures = 3

// ServeBroker runs the broker on the socket at path (see broker_linux.go):
// it serves runs of this process's fingerprint, whose socket path must be
// path, until BrokerIdle passes without a run (and no run is still going),
// its binary is deleted or replaced, its runners keep failing, or ctx is
// done. It returns nil at once when another broker serves path. sigIgn is
// the client's SigIgn as it started (hexadecimal, as in
// /proc/self/status): SIGHUP and SIGINT, when ignored there, are ignored
// here too, as the client's own handlers took them back before it started
// this process, and they are part of the context.
func ServeBroker(ctx context.Context, path, sigIgn string) error {
	mask, err := strconv.ParseUint(sigIgn, 16, 64)
	if err != nil {
		return errors.New("the ignored signals " + sigIgn + " are not a hexadecimal mask")
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if mask&(1<<(sig-1)) != 0 {
			signal.Ignore(sig)
		}
	}
	if why := sandboxed(); why != "" {
		return errors.New("no broker in a sandbox (" + why + ")")
	}
	fp, err := fingerprint()
	if err != nil {
		return errors.New("reading this process's fingerprint: " + err.Error())
	}
	// The directory comes from the client's environment, which a broker
	// does not have; the name says which context it serves.
	dir := dirOf(path)
	if path != dir+"/"+socketName(fp) {
		return errors.New("the socket " + path + " is not the one of this execution context")
	}
	if err := syscall.Mkdir(dir, 0o700); err != nil && err != syscall.EEXIST {
		return errors.New("making " + dir + ": " + err.Error())
	}
	if err := checkPrivateDir(dir); err != nil {
		return err
	}
	// One broker per socket: the one holding the lock for its lifetime.
	lock, err := syscall.Open(path+".lock", syscall.O_RDWR|syscall.O_CREAT|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return errors.New("opening the broker's lock: " + err.Error())
	}
	defer syscall.Close(lock)
	if err := syscall.Flock(lock, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return nil // another broker serves this socket
	}
	defer removeIfSame(path+".lock", lock)
	_ = syscall.Unlink(path) // a dead broker's
	lfd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return errors.New("making the broker's socket: " + err.Error())
	}
	defer syscall.Close(lfd)
	old := syscall.Umask(0o177)
	err = syscall.Bind(lfd, &syscall.SockaddrUnix{Name: path})
	syscall.Umask(old)
	if err != nil {
		return errors.New("binding the broker's socket: " + err.Error())
	}
	sock, err := syscall.Open(path, oPath|syscall.O_CLOEXEC|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return errors.New("opening the broker's socket: " + err.Error())
	}
	defer syscall.Close(sock)
	defer removeIfSame(path, sock)
	if err := syscall.Listen(lfd, 16); err != nil {
		return errors.New("listening on the broker's socket: " + err.Error())
	}
	b := &broker{fp: fp, last: time.Now()}
	b.mu.Lock()
	b.refillLocked()
	b.mu.Unlock()
	go b.accept(lfd)
	tick := time.NewTicker(BrokerIdle / 20)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			b.close()
			return nil
		case <-tick.C:
		}
		if b.shouldEnd() {
			b.close()
			return nil
		}
	}
}

// broker hands out warm runners, each used for one run.
type broker struct {
	fp []byte

	mu sync.Mutex
	// ready is the runner waiting for a run, if any.
	ready    *runner
	active   int // runs handed over and not yet ended
	last     time.Time
	failures int
	closed   bool
}

// runner is a runner process the broker started.
type runner struct {
	proc  *os.Process
	ctl   int // the broker's end of the runner's control socket
	ended chan struct{}
	ws    syscall.WaitStatus
	used  bool
}

// refillLocked starts a runner unless one is waiting (b.mu held).
func (b *broker) refillLocked() {
	if b.ready != nil || b.closed || b.failures >= maxStartFailures {
		return
	}
	r, err := b.start()
	if err != nil {
		b.failures++
		return
	}
	b.ready = r
}

// start starts a runner: this very binary (/proc/self/exe, even when the
// file was replaced since) in its own process group, killed when the
// broker dies, with an empty environment, /dev/null for its standard
// streams and its control socket as descriptor 3.
func (b *broker) start() (*runner, error) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		closeAll(pair[:])
		return nil, err
	}
	defer devnull.Close()
	theirs := os.NewFile(uintptr(pair[1]), "runner control")
	defer theirs.Close()
	keepDescriptorsFromChildren()
	attr := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(attr)
	proc, err := os.StartProcess("/proc/self/exe", []string{Executable(), RunnerArg}, &os.ProcAttr{
		Dir: "/", Env: []string{}, Files: []*os.File{devnull, devnull, devnull, theirs}, Sys: attr,
	})
	if err != nil {
		syscall.Close(pair[0])
		return nil, err
	}
	r := &runner{proc: proc, ctl: pair[0], ended: make(chan struct{})}
	go func() {
		if state, err := proc.Wait(); err == nil {
			r.ws, _ = state.Sys().(syscall.WaitStatus)
		}
		close(r.ended)
		b.mu.Lock()
		defer b.mu.Unlock()
		if !r.used {
			// It ended before it was given a run: a failure.
			b.failures++
			if b.ready == r {
				b.ready = nil
				syscall.Close(r.ctl)
			}
		}
	}()
	return r, nil
}

func (b *broker) accept(lfd int) {
	for {
		fd, _, err := syscall.Accept4(lfd, syscall.SOCK_CLOEXEC)
		if err == syscall.EINTR || err == syscall.ECONNABORTED {
			continue
		}
		if err != nil {
			time.Sleep(100 * time.Millisecond) // out of descriptors: let some close
			continue
		}
		go b.serve(fd)
	}
}

// serve answers one client on connection fd: a runner, or 'n'. It reads
// nothing of the client but its hello and fingerprint: the request, with
// the client's environment, goes to the runner.
func (b *broker) serve(fd int) {
	defer syscall.Close(fd)
	setTimeout(fd, 2)
	head := make([]byte, len(brokerHello)+4)
	if readFull(fd, head) != nil || string(head[:len(brokerHello)]) != brokerHello {
		return
	}
	n := getUint32(head[len(brokerHello):])
	if n > maxFingerprint {
		return
	}
	fp := make([]byte, n)
	if readFull(fd, fp) != nil {
		return
	}
	// The client's word and its /proc must both say this context: a
	// process in a sandbox could send the fingerprint of an unconfined
	// one, to have its command run unconfined.
	if string(fp) != string(b.fp) || !peerMatches(fd, b.fp) {
		_ = writeAll(fd, []byte{'n'})
		return
	}
	r := b.take()
	if r == nil {
		_ = writeAll(fd, []byte{'n'})
		return
	}
	defer b.done()
	err := syscall.Sendmsg(r.ctl, []byte{'c'}, syscall.UnixRights(fd), nil, syscall.MSG_NOSIGNAL)
	syscall.Close(r.ctl)
	if err != nil {
		_ = r.proc.Kill()
		<-r.ended
		_ = writeAll(fd, []byte{'n'})
		return
	}
	if writeAll(fd, []byte{'y'}) != nil {
		_ = r.proc.Kill() // not its group: once reaped, its pid may be another's
	}
	<-r.ended
	// The runner wrote 'x' and its code as it ended normally; this is for
	// a runner that ended without (a signal). The client reads the first.
	_ = writeAll(fd, appendUint32([]byte{'s'}, uint32(r.ws)))
}

// take returns the waiting runner (a new one if none waits), marked used;
// nil when none can be started.
func (b *broker) take() *runner {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.refillLocked()
	r := b.ready
	if r == nil {
		return nil
	}
	b.ready = nil
	r.used = true
	b.failures = 0
	b.active++
	b.last = time.Now()
	return r
}

// done ends a run: the next runner starts now, when it no longer competes
// with the run for the processors.
func (b *broker) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.active--
	b.last = time.Now()
	b.refillLocked()
}

// shouldEnd says whether the broker is done: idle for BrokerIdle, or its
// binary deleted or replaced (runs of the new one use another socket), or
// unable to start runners; never while a run is going.
func (b *broker) shouldEnd() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active > 0 {
		return false
	}
	if time.Since(b.last) > BrokerIdle || b.failures >= maxStartFailures {
		return true
	}
	buf := make([]byte, 4096)
	n, err := syscall.Readlink("/proc/self/exe", buf)
	const deleted = " (deleted)"
	return err != nil || (n >= len(deleted) && string(buf[n-len(deleted):n]) == deleted)
}

// close ends the waiting runner: closing its control socket ends it.
func (b *broker) close() {
	b.mu.Lock()
	r := b.ready
	b.ready = nil
	b.closed = true
	if r != nil {
		r.used = true // not a failure
	}
	b.mu.Unlock()
	if r != nil {
		syscall.Close(r.ctl)
		<-r.ended
	}
}

// removeIfSame removes path if it still names the file open as fd: a
// later broker may have replaced it.
func removeIfSame(path string, fd int) {
	var st, open syscall.Stat_t
	if syscall.Lstat(path, &st) == nil && syscall.Fstat(fd, &open) == nil && st.Ino == open.Ino && st.Dev == open.Dev {
		_ = syscall.Unlink(path)
	}
}
