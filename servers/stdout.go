package servers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdoutFilter reads a stdio server's stdout and passes on only the lines
// that are JSON (JSON-RPC messages, one per line). Other lines, such as a
// banner "Starting server..." that some servers print, are skipped and
// handed to skip; blank lines are dropped. This is what the official
// TypeScript client does, and without it one stray line breaks the
// connection (go-sdk's decoder fails on it).
//
// Close does not close the pipe: the process owns it, and a server that
// still writes after mcpcode stopped listening must not die of EPIPE
// (it is stopped in order instead; see process.stop).
type stdoutFilter struct {
	// mu serialises the two readers: the connection (Read) and, once the
	// process is being stopped, drain; every line is read by one of them
	// and judged the same way, so a banner is recorded whoever reads it.
	mu   sync.Mutex
	done chan struct{} // closed when the stream has ended (EOF or error)
	r    *bufio.Reader
	skip func(line []byte)
	// tap, when set, may replace a line before it is checked and passed
	// on (toolsCapture.tapLine: a large tool result read once, and a stub
	// in its place); nil leaves it alone.
	tap func(line []byte) []byte

	out []byte // the current JSON line, not yet read
	err error
}

func newStdoutFilter(r io.Reader, skip func([]byte)) *stdoutFilter {
	return &stdoutFilter{r: bufio.NewReaderSize(r, 64*1024), skip: skip, done: make(chan struct{})}
}

func (f *stdoutFilter) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.out) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		line := f.next()
		if len(line) == 0 {
			continue
		}
		trimmed := bytes.TrimSpace(line)
		if f.tap != nil {
			if stub := f.tap(trimmed); stub != nil {
				f.out = append(stub, '\n')
				continue
			}
		}
		switch {
		case len(trimmed) == 0:
		case (trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed):
			f.out = append(trimmed, '\n')
		default:
			f.skip(line)
		}
	}
	n := copy(p, f.out)
	f.out = f.out[n:]
	return n, nil
}

// next reads the next line, and notes the end of the stream when it comes.
func (f *stdoutFilter) next() []byte {
	line, err := f.readLine()
	if err != nil {
		f.err = err
		close(f.done)
	}
	return line
}

// drain reads the rest of the stream as the connection no longer does
// (process.stop), so that the server does not die of a full or broken pipe:
// lines that are not JSON are skipped (recorded) as Read would, the others
// dropped.
func (f *stdoutFilter) drain() {
	for {
		f.mu.Lock()
		if f.err != nil {
			f.mu.Unlock()
			return
		}
		line := bytes.TrimSpace(f.next())
		if len(line) > 0 && !((line[0] == '{' || line[0] == '[') && json.Valid(line)) {
			f.skip(line)
		}
		f.mu.Unlock()
	}
}

// maxLine bounds a line of a stdio server's stdout: go-sdk's bound on a
// frame (mcp.DefaultMaxLineLength, 16 MiB), which the tap would otherwise
// bypass (it takes a tool result off the line before go-sdk reads it).
const maxLine = mcp.DefaultMaxLineLength

// errLineTooLong ends the stream of a server that sends a longer line.
var errLineTooLong = fmt.Errorf("the server sent a line of more than %d MiB on stdout, more than a message may be", maxLine>>20)

// readLine returns the next line, of at most maxLine bytes (a tool result
// may be megabytes long); a longer one is an error, found before more than
// maxLine bytes of it are held.
//
// As bufio's ReadBytes, it keeps the full buffers of a long line and joins
// them once: a 5 MB line is copied twice, not regrown and recopied twenty
// times.
func (f *stdoutFilter) readLine() ([]byte, error) {
	var full [][]byte
	n := 0
	for {
		frag, err := f.r.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			if n+len(frag) > maxLine {
				return nil, errLineTooLong
			}
			line := make([]byte, n+len(frag))
			at := 0
			for _, b := range full {
				at += copy(line[at:], b)
			}
			copy(line[at:], frag)
			return line, err
		}
		if n+len(frag) > maxLine {
			return nil, errLineTooLong
		}
		full = append(full, bytes.Clone(frag))
		n += len(frag)
	}
}

// Close leaves the pipe open: it is closed once the process has ended.
func (f *stdoutFilter) Close() error { return nil }
