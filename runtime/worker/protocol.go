package worker

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// The parent and a worker process speak newline-delimited JSON over the
// worker's stdin and stdout:
//
//	parent → worker: {"type":"warmUp"}                    (first, to a worker kept waiting for a job)
//	parent → worker: {"type":"job","job":{...}}           (once)
//	worker → parent: {"type":"tools","id":1,"server":"x"}  (any number, concurrently)
//	worker → parent: {"type":"call","id":2,"server":"x","tool":"y","args":{...},"scope":{"skill":"s","write":true},"structuredOnly":true}
//	parent → worker: {"type":"reply","id":2,"rawResult":{"content":N,"structured":M}} then N+M bytes, or {"type":"reply","id":2,"error":"..."}
//	                 (N is 0, the content left out, when the call said structuredOnly and the result's structured content suffices)
//	parent → worker: {"type":"notice","id":2,"notice":{...}} (any number while call 2 is in flight: the server's progress and logs)
//	worker → parent: {"type":"cancel","id":2}              (the program gave up call 2: its timeout or signal)
//	worker → parent: {"type":"resources","id":3,"server":"x"} or {"type":"readResource","id":3,"server":"x","uri":"..."}
//	parent → worker: {"type":"reply","id":3,"rawResult":{"content":N,...}} then N bytes of JSON, or {"type":"reply","id":3,"error":"..."}
//	worker → parent: {"type":"result","result":{...}}      (last, once: jobs that run)
//	worker → parent: {"type":"program","program":{...}}    (last, once: bundle-only jobs)
//	worker → parent: {"type":"bundleError","diagnostics":[...]}
type wireMessage struct {
	Type string `json:"type"`
	ID   int64  `json:"id,omitempty"`

	Job *job `json:"job,omitempty"`

	Server string          `json:"server,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	// Scope is the scope of a call made by an approved skill's code (see
	// mcptool.WithScope); absent for the program's own calls. It is the
	// worker's claim: the parent checks it (session.scoped).
	Scope *mcptool.Scope `json:"scope,omitempty"`
	// Notices asks for the server's notices about the call (when the
	// parent's Caller delivers them); Notice is one of them.
	Notices bool            `json:"notices,omitempty"`
	Notice  *mcptool.Notice `json:"notice,omitempty"`
	// URI is the resource a readResource asks for.
	URI string `json:"uri,omitempty"`
	// StructuredOnly says that the program uses a result's structured
	// content alone when it suffices (mcptool.WithStructuredOnly): the
	// parent then leaves the content, its text copy, out of the reply.
	StructuredOnly bool `json:"structuredOnly,omitempty"`

	Tools []mcptool.Tool `json:"tools,omitempty"`
	// ToolResult is a tool's answer on a reply. It is not encoded as JSON:
	// the writer sends RawResult and the result's bytes after the line,
	// as received from the server, and the worker's reader puts them back
	// (wireReader), so that a large result is neither re-encoded nor
	// decoded on its way to the program.
	ToolResult    *mcptool.Result `json:"-"`
	RawResult     *rawResult      `json:"rawResult,omitempty"`
	Error         string          `json:"error,omitempty"`
	UnknownServer bool            `json:"unknownServer,omitempty"`

	Result      *runtime.Result      `json:"result,omitempty"`
	Program     *runtime.Program     `json:"program,omitempty"`
	Diagnostics []runtime.Diagnostic `json:"diagnostics,omitempty"`
}

// job is one worker's work: exactly one of Program (run a bundled program)
// and Bundle (bundle source, then run it when Options is set).
type job struct {
	Program *runtime.Program `json:"program,omitempty"`
	Bundle  *bundleJob       `json:"bundle,omitempty"`
	// Options are the run's options without the caller; nil for a
	// bundle-only job.
	Options *runtime.RunOptions `json:"options,omitempty"`
	// BundleLimits bound a bundle-only job's process.
	BundleLimits runtime.Limits `json:"bundleLimits"`
}

// bundleJob is runtime.BundleOptions without the skill policy, which the
// worker builds itself (ServeOptions.Skills).
type bundleJob struct {
	Workspace string `json:"workspace"`
	Entry     string `json:"entry"`
	// Source is the program text; null reads Entry (the worker shares the
	// parent's filesystem). []byte, not string: JSON strings cannot carry
	// text that is not valid UTF-8 unchanged.
	Source []byte `json:"source"`
	// Skill bundles the entry as that skill's code (runtime.BundleOptions).
	Skill string `json:"skill,omitempty"`
}

// rawResult announces the bytes of a tool's result that follow a reply's
// line: its content (Content bytes; 0 when it was left out, and the reader
// makes it nil) then its structured content (Structured bytes; -1 when
// there is none).
type rawResult struct {
	Content    int  `json:"content"`
	Structured int  `json:"structured"`
	IsError    bool `json:"isError,omitempty"`
}

// wireWriter serializes messages from concurrent goroutines.
type wireWriter struct {
	mu  sync.Mutex
	w   io.Writer
	enc *json.Encoder
}

func newWireWriter(w io.Writer) *wireWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &wireWriter{w: w, enc: enc}
}

// send writes m as one line; a ToolResult follows the line as raw bytes.
func (w *wireWriter) send(m *wireMessage) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	res := m.ToolResult
	if res == nil {
		return w.enc.Encode(m)
	}
	head := *m
	head.RawResult = &rawResult{Content: len(res.Content), Structured: -1, IsError: res.IsError}
	if res.StructuredContent != nil {
		head.RawResult.Structured = len(res.StructuredContent)
	}
	if err := w.enc.Encode(&head); err != nil {
		return err
	}
	if _, err := w.w.Write(res.Content); err != nil {
		return err
	}
	_, err := w.w.Write(res.StructuredContent)
	return err
}

// wireReader reads the messages a wireWriter sends.
type wireReader struct {
	br *bufio.Reader
	// max bounds a message's line (the bytes of a result that follow it
	// are bounded by what the parent accepted from the server).
	max int
}

func newWireReader(r io.Reader, max int) *wireReader {
	return &wireReader{br: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next reads one message, with its result's bytes.
func (r *wireReader) next() (*wireMessage, error) {
	line, err := readWireLine(r.br, r.max)
	if err != nil {
		return nil, err
	}
	var m wireMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("decoding a message: %w", err)
	}
	if raw := m.RawResult; raw != nil {
		if raw.Content < 0 || raw.Structured < -1 {
			return nil, errors.New("decoding a message: a result of negative size")
		}
		res := &mcptool.Result{IsError: raw.IsError}
		if raw.Content > 0 {
			res.Content = make([]byte, raw.Content)
			if _, err := io.ReadFull(r.br, res.Content); err != nil {
				return nil, fmt.Errorf("reading a result: %w", err)
			}
		}
		if raw.Structured >= 0 {
			res.StructuredContent = make([]byte, raw.Structured)
			if _, err := io.ReadFull(r.br, res.StructuredContent); err != nil {
				return nil, fmt.Errorf("reading a result: %w", err)
			}
		}
		m.ToolResult, m.RawResult = res, nil
	}
	return &m, nil
}

// maxWireMessage bounds one message a worker sends: results are at most
// runtime.MaxResultBytes plus logs, and tool-call arguments are rarely
// large. A variable so that tests can lower it.
var maxWireMessage = 64 << 20

// maxParentMessage bounds one line the parent sends a worker: the parent
// is trusted, and a job (the program's source, its input) or a server's
// tool list can be large, so this only guards against a runaway.
const maxParentMessage = 1 << 30

var errWireTooLarge = errors.New("worker message too large")

// readWireLine reads one newline-terminated message of at most max bytes.
func readWireLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, errWireTooLarge
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}
