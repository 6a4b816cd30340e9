package worker

import (
	"bufio"
	"encoding/json"
	"errors"
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
//	worker → parent: {"type":"call","id":2,"server":"x","tool":"y","args":{...},"scope":{"skill":"s","write":true}}
//	parent → worker: {"type":"reply","id":2,"toolResult":{...}} or {"type":"reply","id":2,"error":"..."}
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

	Tools         []mcptool.Tool  `json:"tools,omitempty"`
	ToolResult    *mcptool.Result `json:"toolResult,omitempty"`
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
}

// wireWriter serializes messages from concurrent goroutines.
type wireWriter struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func newWireWriter(w io.Writer) *wireWriter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &wireWriter{enc: enc}
}

func (w *wireWriter) send(m *wireMessage) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.enc.Encode(m)
}

// maxWireMessage bounds one message a worker sends: results are at most
// runtime.MaxResultBytes plus logs, and tool-call arguments are rarely
// large. A variable so that tests can lower it.
var maxWireMessage = 64 << 20

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
