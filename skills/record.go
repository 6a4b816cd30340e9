package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// Record and replay. `mcpcode run --record FILE` writes a Recording: the
// run's input and outcome, and every tool call it sent with the answer it
// got, together with the definitions of the tools it called. `--replay
// FILE` answers a run's calls from a Recording without any server (a call
// that is not in it is an error). A proposal may carry recordings as
// examples (examples/<n>.json in the skill's folder, covered by its
// hashes); the review card shows their inputs and results, and `skills
// verify` replays every approved skill's examples offline, so a pull
// request's CI proves that the skill still works on recorded data.

// RecordingFormat names the format of a Recording (its "mcpcode" field).
const RecordingFormat = "recording/1"

// Recording is one recorded run.
type Recording struct {
	Format string `json:"mcpcode"`
	// Input is the run's input (null when it had none).
	Input json.RawMessage `json:"input"`
	OK    bool            `json:"ok"`
	// Result is the run's result (null when it failed).
	Result json.RawMessage   `json:"result"`
	Error  *runtime.RunError `json:"error,omitempty"`
	// Tools are, per server, the definitions of the tools the run called,
	// as the server listed them.
	Tools map[string][]mcptool.Tool `json:"tools"`
	Calls []RecordedCall            `json:"calls"`
}

// RecordedCall is one tool call sent upstream and what came back.
type RecordedCall struct {
	Server string          `json:"server"`
	Tool   string          `json:"tool"`
	Args   json.RawMessage `json:"args"`
	// Result is the tool's answer; Error the failure to get one.
	Result *mcptool.Result `json:"result,omitempty"`
	// TextIsStructured marks a result whose content was one text block
	// holding exactly its structured content's JSON (what most servers
	// send): the block is not repeated in the file, and replaying rebuilds
	// it byte for byte.
	TextIsStructured bool   `json:"textIsStructured,omitempty"`
	Error            string `json:"error,omitempty"`
}

// Marshal returns the recording as deterministic JSON: its fields one per
// line, each tool definition and each call on a line of its own (HTML
// characters unescaped, so that tool definitions keep their bytes).
func (r *Recording) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString("{\n")
	fmt.Fprintf(&b, "  \"mcpcode\": %s,\n", compactJSON(r.Format))
	fmt.Fprintf(&b, "  \"input\": %s,\n", compactJSON(r.Input))
	fmt.Fprintf(&b, "  \"ok\": %t,\n", r.OK)
	fmt.Fprintf(&b, "  \"result\": %s,\n", compactJSON(r.Result))
	if r.Error != nil {
		fmt.Fprintf(&b, "  \"error\": %s,\n", compactJSON(r.Error))
	}
	b.WriteString("  \"tools\": {")
	for i, server := range sortedToolServers(r) {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    %s: [", compactJSON(server))
		for j, t := range r.Tools[server] {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "\n      %s", compactJSON(t))
		}
		b.WriteString("\n    ]")
	}
	if len(r.Tools) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("},\n  \"calls\": [")
	for i, c := range r.Calls {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "\n    %s", compactJSON(c))
	}
	if len(r.Calls) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]\n}\n")
	return b.Bytes()
}

// compactJSON encodes v without spaces or HTML escapes ("null" for
// nothing).
func compactJSON(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok && len(bytes.TrimSpace(raw)) == 0 {
		return []byte("null")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte("null")
	}
	out := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	var compact bytes.Buffer
	if json.Compact(&compact, out) == nil {
		return compact.Bytes()
	}
	return out
}

// structuredText is the content a server sends for a structured result:
// one text block holding its JSON, compacted, as compactJSON encodes it.
func structuredText(structured json.RawMessage) []byte {
	return compactJSON([]map[string]string{{"type": "text", "text": string(compactJSON(structured))}})
}

// packResult leaves out a result's content when it is exactly (as JSON
// values) the text block of its structured content.
func packResult(c *RecordedCall) {
	res := c.Result
	if res == nil || len(res.StructuredContent) == 0 || res.IsError {
		return
	}
	var blocks []map[string]any
	if json.Unmarshal(res.Content, &blocks) != nil || len(blocks) != 1 || len(blocks[0]) != 2 ||
		blocks[0]["type"] != "text" || blocks[0]["text"] != string(compactJSON(res.StructuredContent)) {
		return
	}
	packed := *res
	packed.Content = nil
	c.Result, c.TextIsStructured = &packed, true
}

// unpackResult rebuilds what packResult left out.
func unpackResult(c RecordedCall) *mcptool.Result {
	if !c.TextIsStructured || c.Result == nil {
		return c.Result
	}
	res := *c.Result
	res.Content = structuredText(res.StructuredContent)
	return &res
}

// ParseRecording reads a recording; the error says what is wrong.
func ParseRecording(data []byte) (*Recording, error) {
	var r Recording
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("not a recording of mcpcode run --record: %v", err)
	}
	if r.Format != RecordingFormat {
		return nil, fmt.Errorf("not a recording of this mcpcode (its \"mcpcode\" field is %q, want %q): record it again with mcpcode run --record FILE", r.Format, RecordingFormat)
	}
	for i, c := range r.Calls {
		if c.Server == "" || c.Tool == "" || (c.Result == nil) == (c.Error == "") {
			return nil, fmt.Errorf("call %d of the recording is damaged (it needs a server, a tool, and a result or an error): record it again", i+1)
		}
	}
	return &r, nil
}

// Recorder is an mcptool.Caller that passes calls through and records
// them. It is safe for concurrent use.
type Recorder struct {
	next mcptool.Caller

	mu    sync.Mutex
	tools map[string][]mcptool.Tool
	calls []RecordedCall
}

// NewRecorder records the calls that go to next.
func NewRecorder(next mcptool.Caller) *Recorder {
	return &Recorder{next: next, tools: map[string][]mcptool.Tool{}}
}

func (r *Recorder) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	tools, err := r.next.Tools(ctx, server)
	if err == nil {
		r.mu.Lock()
		r.tools[server] = tools
		r.mu.Unlock()
	}
	return tools, err
}

func (r *Recorder) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	res, err := r.next.CallTool(ctx, server, tool, args)
	if errors.Is(err, mcptool.ErrDenied) || errors.Is(err, mcptool.ErrPolicy) {
		return res, err // refused before anything was sent: nothing to replay
	}
	c := RecordedCall{Server: server, Tool: tool, Args: canonicalJSON(args)}
	switch {
	case err != nil:
		c.Error = err.Error()
	case res == nil:
		c.Error = "no result"
	default:
		c.Result = res
		packResult(&c)
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return res, err
}

// Recording is what was recorded, with the run's input and outcome. Calls
// are sorted by server, tool and arguments (calls with equal arguments
// keep their order), and only the definitions of called tools are kept.
func (r *Recorder) Recording(input json.RawMessage, res *runtime.Result) *Recording {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := &Recording{Format: RecordingFormat, Input: canonicalJSON(input), Tools: map[string][]mcptool.Tool{}, Calls: slices.Clone(r.calls)}
	if out.Calls == nil {
		out.Calls = []RecordedCall{}
	}
	if res != nil {
		out.OK, out.Result = res.OK, slices.Clone(res.Result)
		if res.Error != nil {
			e := *res.Error
			out.Error = &e
		}
	}
	if len(out.Result) == 0 {
		out.Result = json.RawMessage("null")
	}
	slices.SortStableFunc(out.Calls, func(a, b RecordedCall) int {
		return strings.Compare(callKey(a.Server, a.Tool, a.Args), callKey(b.Server, b.Tool, b.Args))
	})
	for _, c := range out.Calls {
		for _, t := range r.tools[c.Server] {
			if t.Name == c.Tool && !slices.ContainsFunc(out.Tools[c.Server], func(x mcptool.Tool) bool { return x.Name == t.Name }) {
				out.Tools[c.Server] = append(out.Tools[c.Server], t)
			}
		}
	}
	for _, list := range out.Tools {
		slices.SortFunc(list, func(a, b mcptool.Tool) int { return strings.Compare(a.Name, b.Name) })
	}
	return out
}

// Replayer is an mcptool.Caller that answers from a Recording, without any
// server: each recorded call answers one call with the same server, tool
// and arguments, in the recorded order; any other call is an error. It is
// safe for concurrent use.
type Replayer struct {
	rec *Recording

	mu      sync.Mutex
	pending map[string][]RecordedCall
	// Unmatched counts the calls the recording could not answer.
	unmatched int
}

// NewReplayer answers calls from rec.
func NewReplayer(rec *Recording) *Replayer {
	p := &Replayer{rec: rec, pending: map[string][]RecordedCall{}}
	for _, c := range rec.Calls {
		k := callKey(c.Server, c.Tool, c.Args)
		p.pending[k] = append(p.pending[k], c)
	}
	return p
}

func (p *Replayer) Tools(_ context.Context, server string) ([]mcptool.Tool, error) {
	tools, ok := p.rec.Tools[server]
	if !ok {
		return nil, fmt.Errorf("%w: server %q is not in the recording (replaying answers only the calls it recorded: record the run again with --record)", mcptool.ErrUnknownServer, server)
	}
	return tools, nil
}

func (p *Replayer) CallTool(_ context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	k := callKey(server, tool, canonicalJSON(args))
	p.mu.Lock()
	defer p.mu.Unlock()
	queue := p.pending[k]
	if len(queue) == 0 {
		p.unmatched++
		return nil, fmt.Errorf("replaying: the recording has no (further) call of %s.%s with the arguments %s: the program calls differently than when it was recorded; record it again with --record", server, tool, clip(string(canonicalJSON(args)), 200))
	}
	c := queue[0]
	p.pending[k] = queue[1:]
	if c.Error != "" {
		return nil, errors.New(c.Error)
	}
	return unpackResult(c), nil
}

// Unmatched is the number of calls the recording could not answer.
func (p *Replayer) Unmatched() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.unmatched
}

// callKey identifies a call for replaying.
func callKey(server, tool string, args json.RawMessage) string {
	return server + "\x00" + tool + "\x00" + string(args)
}

// canonicalJSON is JSON with objects' keys sorted and no spaces, so that
// equal values compare equal; nil stays nil, and text that is not JSON is
// returned as it is.
func canonicalJSON(data json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return data
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return data
	}
	return json.RawMessage(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
