package servers

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// serverLog is one server's log: the file .mcpcode/logs/<server>.log (when
// the pool has a log directory) and, in memory, the last lines of a stdio
// server's stderr and the last lines it printed on stdout that were not
// JSON-RPC, for error messages. Lines from the server's stderr are written
// as they are; everything else mcpcode notes there is marked with a
// bracketed prefix ("[stdout, not JSON-RPC, skipped] ...", "[log info] ...").
//
// Nothing written here ever comes from mcpcode's own secrets: headers,
// environment values and OAuth tokens are never logged.
type serverLog struct {
	path string // "" keeps only the tails

	mu      sync.Mutex
	f       *os.File
	opened  bool   // the file was opened (or failed to open) since the last restart
	partial []byte // an unfinished stderr line

	stderr *tailBuffer
	junk   *tailBuffer
}

func newServerLog(path string) *serverLog {
	return &serverLog{path: path, stderr: newTailBuffer(20), junk: newTailBuffer(5)}
}

// restart starts a new log: a stdio server's process is starting.
func (l *serverLog) restart() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
	l.opened = false
	l.partial = nil
	l.stderr.reset()
	l.junk.reset()
}

// close flushes and closes the file.
func (l *serverLog) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	if l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// file returns the open log file, opening (and truncating) it on first use
// since the last restart; nil when there is none.
func (l *serverLog) fileLocked() *os.File {
	if !l.opened {
		l.opened = true
		if l.path != "" {
			if err := os.MkdirAll(filepath.Dir(l.path), 0o755); err == nil {
				l.f, _ = os.OpenFile(l.path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
			}
		}
	}
	return l.f
}

// Write takes the server's stderr: complete lines go to the file and the
// tail.
func (l *serverLog) Write(p []byte) (int, error) {
	_, _ = l.stderr.Write(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	data := append(l.partial, p...)
	i := bytes.LastIndexByte(data, '\n')
	if i < 0 {
		if len(data) > 64*1024 { // a line without end: write it anyway
			i = len(data) - 1
		} else {
			l.partial = data
			return len(p), nil
		}
	}
	if f := l.fileLocked(); f != nil {
		_, _ = f.Write(data[:i+1])
	}
	l.partial = append([]byte(nil), data[i+1:]...)
	return len(p), nil
}

func (l *serverLog) flushLocked() {
	if len(l.partial) > 0 {
		if f := l.fileLocked(); f != nil {
			_, _ = f.Write(append(l.partial, '\n'))
		}
		l.partial = nil
	}
}

// note writes one line of mcpcode's own, marked with a bracketed kind.
func (l *serverLog) note(kind, text string) {
	text = strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n  ")
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushLocked()
	if f := l.fileLocked(); f != nil {
		fmt.Fprintf(f, "[%s] %s\n", kind, text)
	}
}

// skipped records a line of a stdio server's stdout that was not JSON-RPC.
func (l *serverLog) skipped(line []byte) {
	if len(line) > 4096 {
		line = line[:4096]
	}
	s := strings.TrimRight(string(line), "\r\n")
	l.junk.add(s)
	l.note("stdout, not JSON-RPC, skipped", s)
}

// Stderr returns the last stderr lines.
func (l *serverLog) stderrLines() []string { return l.stderr.Lines() }

// junkLines returns the last skipped stdout lines.
func (l *serverLog) junkLines() []string { return l.junk.Lines() }
