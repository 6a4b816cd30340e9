package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// The journal of a run asked through input_required rounds. When a round
// asks the host about a write, the gateway writes every upstream request the
// run made so far, with its answer, to .mcpcode/serve/runs/<run>.journal
// (mode 0600). A replica that gets the host's retry and does not hold the
// run itself runs the program again with the journal answering those
// requests: none is sent a second time. Requests the journal does not
// answer wait until the program reaches the write that was asked about (so
// that a program that went another way than the first time sends nothing);
// from then on the run goes on as usual.

// journalFormat names the format of a journal file.
const journalFormat = "serve-journal/1"

// Bounds of the journals: a run whose requests and answers take more than
// maxJournalBytes, or a round asked while maxJournals are already kept,
// can be resumed only by the process that holds it.
const (
	maxJournalBytes = 16 << 20
	maxJournals     = 256
)

// journal is one run's journal file.
type journal struct {
	Format string `json:"mcpcode"`
	Run    string `json:"run"`
	Round  int    `json:"round"`
	Call   string `json:"call"`
	// Allowed are the tools the person allowed for the rest of the run
	// ("server\x00tool").
	Allowed []string `json:"allowed"`
	// Pending is the write the person was asked about, Question what they
	// were asked.
	Pending  *pendingCall    `json:"pending"`
	Question json.RawMessage `json:"question"`
	// Entries are the run's upstream requests and their answers, in the
	// order they were answered.
	Entries []journalEntry `json:"entries"`
}

// Operations a journal records.
const (
	opCall          = "tools/call"
	opListResources = "resources/list"
	opReadResource  = "resources/read"
)

// journalEntry is one upstream request and its answer.
type journalEntry struct {
	Op     string `json:"op"`
	Server string `json:"server"`
	// Name is the tool, or the resource's URI.
	Name string `json:"name,omitempty"`
	// Args are a tool call's arguments, canonical (sorted keys).
	Args json.RawMessage `json:"args,omitempty"`
	// Result is the answer (an mcptool.Result for a call, the JSON the
	// runtime gets for resources); Error the failure instead.
	Result json.RawMessage `json:"result,omitempty"`
	Error  string          `json:"error,omitempty"`
}

func (e journalEntry) key() string { return requestKey(e.Op, e.Server, e.Name, e.Args) }

func (e journalEntry) size() int {
	return len(e.Server) + len(e.Name) + len(e.Args) + len(e.Result) + len(e.Error) + 64
}

func requestKey(op, server, name string, args json.RawMessage) string {
	return op + "\x00" + server + "\x00" + name + "\x00" + string(args)
}

// canonicalArgs is a call's arguments as the journal keys them: re-encoded
// with sorted keys (as the gate sends a write); text that is not a JSON
// object stays as it is.
func canonicalArgs(args json.RawMessage) json.RawMessage {
	v, err := decodeArgs(args)
	if err != nil {
		return args
	}
	out, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return out
}

// callEntry records a tool call's answer.
func callEntry(server, tool string, args json.RawMessage, res *mcptool.Result, err error) journalEntry {
	e := journalEntry{Op: opCall, Server: server, Name: tool, Args: canonicalArgs(args)}
	switch {
	case err != nil:
		e.Error = err.Error()
	case res == nil:
		e.Error = "no result"
	default:
		e.Result = encodeResult(res)
	}
	return e
}

// encodeResult is json.Marshal(res) without its cost: the result's parts
// are JSON already (as the pool got them), so they are copied, not parsed
// again. A part that is not JSON makes a journal that does not parse: a
// replica refuses it, and nothing is sent.
func encodeResult(res *mcptool.Result) json.RawMessage {
	var b bytes.Buffer
	b.Grow(len(res.Content) + len(res.StructuredContent) + 64)
	b.WriteByte('{')
	sep := ""
	if len(res.Content) > 0 {
		b.WriteString(`"content":`)
		b.Write(res.Content)
		sep = ","
	}
	if len(res.StructuredContent) > 0 {
		b.WriteString(sep + `"structuredContent":`)
		b.Write(res.StructuredContent)
		sep = ","
	}
	if res.IsError {
		b.WriteString(sep + `"isError":true`)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// answer returns what the entry recorded, as the caller got it.
func (e journalEntry) callResult() (*mcptool.Result, error) {
	if e.Error != "" {
		return nil, errors.New(e.Error)
	}
	var res mcptool.Result
	if err := json.Unmarshal(e.Result, &res); err != nil {
		return nil, fmt.Errorf("the journal's answer is damaged: %v", err)
	}
	return &res, nil
}

func (e journalEntry) rawResult() (json.RawMessage, error) {
	if e.Error != "" {
		return nil, errors.New(e.Error)
	}
	return e.Result, nil
}

// writeJournal writes a journal file and returns its SHA-256.
func (s *stateStore) writeJournal(j *journal) (string, error) {
	data, err := json.Marshal(j)
	if err != nil {
		return "", err
	}
	if len(data) > maxJournalBytes {
		return "", fmt.Errorf("the run's journal is %d bytes, more than %d", len(data), maxJournalBytes)
	}
	if err := os.MkdirAll(s.runsDir(), 0o700); err != nil {
		return "", err
	}
	if err := atomicfile.Write(s.journalPath(j.Run), data, 0o600); err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// readJournal reads the journal a state names and checks that it is the
// one the state was issued with.
func (s *stateStore) readJournal(st roundState) (*journal, error) {
	f, err := os.Open(s.journalPath(st.Run))
	if err != nil {
		return nil, fmt.Errorf("the run's journal is gone (%v): the run ended, or its confirmation expired", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxJournalBytes+1))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != st.Journal {
		return nil, errors.New("the run's journal is not the one this requestState was issued with (the run went on elsewhere, or the file was changed)")
	}
	var j journal
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil || j.Format != journalFormat || j.Run != st.Run || j.Round != st.Round || j.Call != st.Call || j.Pending == nil {
		return nil, errors.New("the run's journal is damaged")
	}
	return &j, nil
}

// removeJournal deletes a run's journal (the run ended).
func (s *stateStore) removeJournal(run string) {
	_ = os.Remove(s.journalPath(run))
}

// journalReplay answers a resumed run's requests from its journal: each
// entry answers one request with the same operation, server, name and
// arguments, in the journal's order. The write the person answered goes
// on to the gate (once; it marks the run caught up). Any other request
// waits until the run has reached that write and made again every request
// the journal holds (a run that goes another way leaves some unmade: its
// new requests would be sent in place of those the first run sent), then
// goes on to the gate (tool calls) or the tracker (resources).
type journalReplay struct {
	mcptool.Caller          // the gate
	base           *tracked // resources
	pending        string   // requestKey of the write the person answered
	caughtUp       chan struct{}
	drained        chan struct{} // closed when every entry was taken
	grace          time.Duration // how long a request may wait (defaultHoldGrace)

	mu       sync.Mutex
	queue    map[string][]journalEntry
	left     int  // entries not yet taken
	reached  bool // the answered write came
	diverged bool // a request waited in vain: the others do not wait
}

var (
	_ runtime.NoticeDeliverer = (*journalReplay)(nil)
	_ runtime.ResourceReader  = (*journalReplay)(nil)
)

func newJournalReplay(gate mcptool.Caller, base *tracked, j *journal, grace time.Duration) *journalReplay {
	r := &journalReplay{Caller: gate, base: base, caughtUp: make(chan struct{}), drained: make(chan struct{}), grace: grace,
		queue: map[string][]journalEntry{}, left: len(j.Entries), pending: requestKey(opCall, j.Pending.Server, j.Pending.Tool, j.Pending.Args)}
	for _, e := range j.Entries {
		r.queue[e.key()] = append(r.queue[e.key()], e)
	}
	if r.left == 0 {
		close(r.drained)
	}
	return r
}

// take removes and returns the journal's next answer to a request.
func (r *journalReplay) take(key string) (journalEntry, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	q := r.queue[key]
	if len(q) == 0 {
		return journalEntry{}, false
	}
	r.queue[key] = q[1:]
	if r.left--; r.left == 0 {
		close(r.drained)
	}
	return q[0], true
}

// reach reports whether a request of the answered write is the first: the
// one the person's answer is for. It marks the run caught up.
func (r *journalReplay) reach() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.reached {
		return false
	}
	r.reached = true
	close(r.caughtUp)
	return true
}

// defaultHoldGrace is how long a request the journal does not answer waits for
// the run to catch up with its journal. In a program that makes its
// requests again as before, only a request that the first run made after
// the write, and this one earlier (concurrent requests answered in another
// order), waits at all, and not for long.
const defaultHoldGrace = 10 * time.Second

// hold waits until the run has reached the write the person answered and
// made again every request of its journal; a run that does not get there
// (it went another way than before: the clock, randomness) gets an error
// for the request, and nothing is sent.
func (r *journalReplay) hold(ctx context.Context, what string) error {
	if closed(r.caughtUp) && closed(r.drained) {
		return nil
	}
	r.mu.Lock()
	diverged := r.diverged
	r.mu.Unlock()
	if !diverged {
		timer := time.NewTimer(r.grace)
		defer timer.Stop()
		for _, ch := range []chan struct{}{r.caughtUp, r.drained} {
			select {
			case <-ch:
			case <-ctx.Done():
				return ctx.Err()
			case <-timer.C:
				r.mu.Lock()
				r.diverged = true
				r.mu.Unlock()
				return r.divergence(what)
			}
		}
		return nil
	}
	return r.divergence(what)
}

func closed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// divergence is the error of a request the resumed run may not send.
func (r *journalReplay) divergence(what string) error {
	return fmt.Errorf("%w: resuming the run on this server, the program made %s, which the run did not make before the confirmation, "+
		"instead of the confirmed call and the requests made before it; nothing was sent (a program whose requests depend on the clock or on randomness cannot be resumed on another replica: run it again)",
		mcptool.ErrDenied, what)
}

func (r *journalReplay) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	key := requestKey(opCall, server, tool, canonicalArgs(args))
	if e, ok := r.take(key); ok {
		return e.callResult()
	}
	if key != r.pending || !r.reach() {
		if err := r.hold(ctx, "a call of "+server+"."+tool); err != nil {
			return nil, err
		}
	}
	return r.Caller.CallTool(ctx, server, tool, args)
}

func (r *journalReplay) DeliversNotices() bool { return r.base.DeliversNotices() }

func (r *journalReplay) ListResources(ctx context.Context, server string) (json.RawMessage, error) {
	if e, ok := r.take(requestKey(opListResources, server, "", nil)); ok {
		return e.rawResult()
	}
	if err := r.hold(ctx, "a resources/list request to "+server); err != nil {
		return nil, err
	}
	return r.base.ListResources(ctx, server)
}

func (r *journalReplay) ReadResource(ctx context.Context, server, uri string) (json.RawMessage, error) {
	if e, ok := r.take(requestKey(opReadResource, server, uri, nil)); ok {
		return e.rawResult()
	}
	if err := r.hold(ctx, "a resources/read request of "+uri); err != nil {
		return nil, err
	}
	return r.base.ReadResource(ctx, server, uri)
}
