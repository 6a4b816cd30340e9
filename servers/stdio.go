package servers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stopping a stdio server: its stdin is closed (the MCP way to ask it to
// exit) and it gets stopGrace to exit; then its process group gets SIGTERM
// and termGrace; then SIGKILL. A server that exits when its stdin closes
// costs a run or a gen only the time it takes to exit.
const (
	stopGrace = 100 * time.Millisecond
	termGrace = 500 * time.Millisecond
)

// stdioTransport starts a stdio server in its own process group, with an
// explicit environment, and captures its stderr to a log file and a tail kept
// in memory for error messages. Closing the connection stops the whole
// group, so that `npx`-style grandchildren die with it. Lines of its stdout
// that are not JSON-RPC are skipped and logged.
type stdioTransport struct {
	cfg ServerConfig
	env []string
	log *serverLog
	// tap is the capture's toolsCapture.tapLine (nil: none).
	tap func(line []byte) []byte

	mu   sync.Mutex
	proc *process
}

// startError is a server process that could not be started; its message
// needs no further explanation.
type startError struct{ error }

func (e *startError) Unwrap() error { return e.error }

// process is one running server.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	exited chan struct{} // closed when the leader has exited
	err    error         // the leader's exit status, once exited
	// stderrDone is closed when all of its stderr has been read.
	stderrDone chan struct{}
	// out reads its stdout, for the connection and then for stop (set by
	// Connect before anything reads it).
	out *stdoutFilter
}

// stdoutDone is closed when all of its stdout has been read.
func (p *process) stdoutDone() <-chan struct{} {
	if p.out == nil {
		return nil
	}
	return p.out.done
}

func (t *stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := t.start()
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.proc = p
	t.mu.Unlock()
	out := newStdoutFilter(p.stdout, t.log.skipped)
	out.tap = t.tap
	p.out = out
	conn, err := (&mcp.IOTransport{Reader: out, Writer: p.stdin}).Connect(ctx)
	if err != nil {
		p.stop()
		return nil, err
	}
	return &processConn{Connection: conn, proc: p}, nil
}

func (t *stdioTransport) start() (*process, error) {
	t.log.restart()
	cmd := exec.Command(t.cfg.Command, t.cfg.Args...)
	if errors.Is(cmd.Err, exec.ErrNotFound) || errors.Is(cmd.Err, os.ErrNotExist) {
		return nil, &startError{fmt.Errorf("command %q not found: install it or fix \"command\" in the config (PATH is searched for bare names)", t.cfg.Command)}
	}
	cmd.Env = t.env
	cmd.Dir = t.cfg.Cwd
	setProcessGroup(cmd)

	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW

	p := &process{cmd: cmd, stdin: inW, stdout: outR, exited: make(chan struct{}), stderrDone: make(chan struct{})}
	err = cmd.Start()
	// The child holds its own copies of these ends now.
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			return nil, &startError{fmt.Errorf("command %q not found: install it or fix \"command\" in the config (PATH is searched for bare names)", t.cfg.Command)}
		}
		return nil, &startError{fmt.Errorf("starting %q: %w", t.cfg.Command, err)}
	}
	go p.copyStderr(errR, t.log)
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// copyStderr copies the server's stderr into its log until every process
// holding it has closed it.
func (p *process) copyStderr(r *os.File, log *serverLog) {
	defer close(p.stderrDone)
	defer r.Close()
	_, _ = io.Copy(log, r)
}

// stop closes the server's stdin, waits briefly, then terminates and finally
// kills its whole process group. Its stdout is drained meanwhile, so that a
// server answering a call that was abandoned does not die of a broken pipe
// (and leave a stack trace in its log), through the filter, so that the
// lines that are not JSON-RPC are recorded whoever reads them.
func (p *process) stop() {
	go func() {
		if p.out != nil {
			p.out.drain() // a banner printed as it dies is still recorded
		} else {
			_, _ = io.Copy(io.Discard, p.stdout)
		}
	}()
	p.stdin.Close()
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
		signalGroup(p.cmd, false)
		select {
		case <-p.exited:
		case <-time.After(termGrace):
		}
	}
	// Whatever the leader did, children it left behind go too.
	signalGroup(p.cmd, true)
	<-p.exited
	waitGroupGone(p.cmd, time.Second)
	p.stdout.Close()
}

// exitStatus describes how the leader ended, or "" while it runs.
func (p *process) exitStatus() string {
	select {
	case <-p.exited:
	default:
		return ""
	}
	if p.err == nil {
		return "exited with status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.err, &ee) && ee.Exited() {
		return fmt.Sprintf("exited with status %d", ee.ExitCode())
	}
	return "ended: " + p.err.Error()
}

// processConn stops the process when the connection is closed.
type processConn struct {
	mcp.Connection
	proc *process
	once sync.Once
}

func (c *processConn) Close() error {
	err := c.Connection.Close()
	c.once.Do(c.proc.stop)
	return err
}

// running returns the process started by the latest Connect, if any.
func (t *stdioTransport) running() *process {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.proc
}

// tailBuffer keeps the last lines written to it.
type tailBuffer struct {
	mu      sync.Mutex
	max     int
	lines   []string
	partial []byte
}

func newTailBuffer(max int) *tailBuffer { return &tailBuffer{max: max} }

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	data := append(b.partial, p...)
	for {
		i := indexNewline(data)
		if i < 0 {
			break
		}
		b.push(string(data[:i]))
		data = data[i+1:]
	}
	if len(data) > 4096 { // a line without end: keep its start
		b.push(string(data[:4096]))
		data = nil
	}
	b.partial = append([]byte(nil), data...)
	return len(p), nil
}

// add keeps one whole line.
func (b *tailBuffer) add(line string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.push(line)
}

func (b *tailBuffer) reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lines, b.partial = nil, nil
}

func (b *tailBuffer) push(line string) {
	line = strings.TrimRight(line, "\r")
	if len(line) > 500 {
		line = line[:500] + "…"
	}
	b.lines = append(b.lines, line)
	if len(b.lines) > b.max {
		b.lines = b.lines[len(b.lines)-b.max:]
	}
}

// Lines returns the kept lines, including an unterminated last one.
func (b *tailBuffer) Lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := append([]string(nil), b.lines...)
	if len(b.partial) > 0 {
		out = append(out, string(b.partial))
	}
	return out
}

func indexNewline(b []byte) int {
	for i, c := range b {
		if c == '\n' {
			return i
		}
	}
	return -1
}
