package runtime

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// The parent and a worker process speak newline-delimited JSON over the
// worker's stdin and stdout:
//
//	parent → worker: {"type":"job","job":{...}}           (first, once)
//	worker → parent: {"type":"tools","id":1,"server":"x"}  (any number, concurrently)
//	worker → parent: {"type":"call","id":2,"server":"x","tool":"y","args":{...}}
//	parent → worker: {"type":"reply","id":2,"toolResult":{...}} or {"type":"reply","id":2,"error":"..."}
//	worker → parent: {"type":"result","result":{...}}      (last, once)
type wireMessage struct {
	Type string `json:"type"`
	ID   int64  `json:"id,omitempty"`

	Job *workerJob `json:"job,omitempty"`

	Server string          `json:"server,omitempty"`
	Tool   string          `json:"tool,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`

	Tools         []mcptool.Tool  `json:"tools,omitempty"`
	ToolResult    *mcptool.Result `json:"toolResult,omitempty"`
	Error         string          `json:"error,omitempty"`
	UnknownServer bool            `json:"unknownServer,omitempty"`

	Result *Result `json:"result,omitempty"`
}

// workerJob is one run for a worker: the program and the options without
// the caller.
type workerJob struct {
	Program *Program   `json:"program"`
	Options RunOptions `json:"options"`
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
