// Package audit records runs: one JSON line per run in
// .mcpcode/audit/<date>.jsonl with who asked for it, what ran (a hash, not
// the program), every tool call and resource read (server, tool, a keyed
// digest of the arguments, duration, outcome, bytes), the limits hit, the
// size of what came back and the kind of error. While a run runs, each
// call is journaled in the same file before it is sent and again once its
// outcome is known, so a run that never ends (killed, crashed) still shows
// what it sent. Recording is cheap and always on; with privacy on, whatever
// text the record holds (an error message) holds tokens, not values.
//
// What one line may hold is bounded (MaxName, MaxLine), and the reader
// skips and reports a line it cannot use (cut short, damaged, too long)
// instead of failing the day.
//
// The otlp subpackage exports the same records as OpenTelemetry spans.
package audit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/filelock"
	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// Faces that ask for runs.
const (
	FaceCLI   = "cli"
	FaceServe = "serve"
)

// Who says who asked for a run.
type Who struct {
	// Face is FaceCLI or FaceServe.
	Face string `json:"face"`
	// Client is the MCP client's name (serve), as it introduced itself.
	Client string `json:"client,omitempty"`
	// Session is the MCP session id (serve over HTTP); "" over stdio.
	Session string `json:"session,omitempty"`
}

// Program says what ran, without its text.
type Program struct {
	// Entry is the program's file relative to the workspace, "stdin.ts"
	// for a program given as text, "" for a skill.
	Entry string `json:"entry,omitempty"`
	// Skill is the approved skill that ran.
	Skill string `json:"skill,omitempty"`
	// SHA256 is the hash of the entry file (a skill's index.ts).
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// Outcomes of a tool call.
const (
	OutcomeOK        = "ok"
	OutcomeToolError = "tool-error" // the tool reported a failure
	OutcomeTransport = "transport"  // the server could not be reached
	OutcomeDenied    = "denied"     // refused before sending (a person, a grant)
	OutcomePolicy    = "policy"     // refused before sending by a data policy
	OutcomeCanceled  = "canceled"
)

// Operations other than a tool call (Call.Op).
const (
	OpReadResource  = "resources/read"
	OpListResources = "resources/list"
)

// OutcomeUnknown is the outcome of a call of a run that ended without its
// record: the call was sent, and no outcome was recorded.
const OutcomeUnknown = "unknown"

// Call is one tool call (or resource read) a program made.
type Call struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Op is the operation when it is not a tool call (OpReadResource,
	// OpListResources); Tool is then "" and Args digests the resource's
	// URI.
	Op string `json:"op,omitempty"`
	// Args is a keyed digest of the arguments as the program wrote them:
	// equal arguments give equal digests within a workspace, and the
	// digest says nothing about them without the workspace's key.
	Args     string `json:"args"`
	ArgBytes int    `json:"argBytes"`
	// StartMs is when the call started, in milliseconds since the run
	// started.
	StartMs int64  `json:"startMs"`
	Ms      int64  `json:"ms"`
	Outcome string `json:"outcome"`
	// Bytes is the size of the answer (content and structured content).
	Bytes int64 `json:"bytes"`
}

// Error is a failed run's error, without its stack.
type Error struct {
	Kind  string `json:"kind"`
	Limit string `json:"limit,omitempty"`
	// Message is cut to MaxMessage bytes; with privacy on it holds tokens.
	Message string `json:"message,omitempty"`
}

// MaxMessage bounds the error message kept in a record.
const MaxMessage = 500

// Name is how the call is shown: "server.tool", or "server resources/read".
func (c Call) Name() string {
	if c.Op != "" {
		return c.Server + " " + c.Op
	}
	return c.Server + "." + c.Tool
}

// Record is one run.
type Record struct {
	ID      string    `json:"id"`
	Time    time.Time `json:"time"`
	Ms      int64     `json:"ms"`
	Who     Who       `json:"who"`
	Program Program   `json:"program"`
	// Privacy is the privacy mode: "tokenize" or "off".
	Privacy string `json:"privacy"`
	OK      bool   `json:"ok"`
	Error   *Error `json:"error,omitempty"`
	// Limits are the limits the run hit: the one that stopped it, and
	// "max-output" when console output was cut.
	Limits []string `json:"limits,omitempty"`
	// Calls are the tool calls, in the order they started.
	Calls []Call `json:"calls"`
	// CallsOmitted counts the calls left out of Calls to keep the record
	// within MaxLine.
	CallsOmitted int `json:"callsOmitted,omitempty"`
	// Incomplete marks a run without its record: still running, or ended
	// without writing it (killed, or the machine stopped). It is rebuilt
	// from the journal of its calls, and a call whose outcome was not
	// recorded has OutcomeUnknown.
	Incomplete bool `json:"incomplete,omitempty"`
	// ResultBytes is the size of the result's JSON, LogBytes of the console
	// output kept.
	ResultBytes int `json:"resultBytes"`
	LogBytes    int `json:"logBytes"`
}

// NewID returns a new run id: the time and 48 random bits.
func NewID(t time.Time) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return t.UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// HashProgram returns the hex SHA-256 of a program's text.
func HashProgram(src []byte) string {
	h := sha256.Sum256(src)
	return hex.EncodeToString(h[:])
}

// --- the recorder ---

// Recorder wraps the Caller of one run and records its calls. It is safe
// for concurrent use.
type Recorder struct {
	inner mcptool.Caller
	key   []byte
	start time.Time

	mu      sync.Mutex
	calls   []Call
	seq     int
	journal *journal // nil: calls are recorded only in memory
}

// NewRecorder records the calls made through inner; key keys the argument
// digests; start is when the run started.
func NewRecorder(inner mcptool.Caller, key []byte, start time.Time) *Recorder {
	return &Recorder{inner: inner, key: key, start: start}
}

// Tools passes through.
func (r *Recorder) Tools(ctx context.Context, server string) ([]mcptool.Tool, error) {
	return r.inner.Tools(ctx, server)
}

// CallTool records the call's intent, calls inner, then records its
// outcome.
func (r *Recorder) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	started := time.Now()
	c := Call{Server: server, Tool: tool, Args: r.Digest(server, tool, args), ArgBytes: len(args), StartMs: started.Sub(r.start).Milliseconds()}
	seq := r.begin(c)
	res, err := r.inner.CallTool(ctx, server, tool, args)
	c.Ms, c.Outcome = time.Since(started).Milliseconds(), outcome(ctx, res, err)
	if res != nil {
		c.Bytes = int64(len(res.Content) + len(res.StructuredContent))
	}
	r.end(seq, c)
	return res, err
}

// Resource records one resource operation (OpReadResource with the
// resource's uri, or OpListResources) around do, as CallTool records a
// tool call.
func (r *Recorder) Resource(ctx context.Context, server, op, uri string, do func() (json.RawMessage, error)) (json.RawMessage, error) {
	started := time.Now()
	c := Call{Server: server, Op: op, Args: r.Digest(server, op, json.RawMessage(uri)), ArgBytes: len(uri), StartMs: started.Sub(r.start).Milliseconds()}
	seq := r.begin(c)
	data, err := do()
	c.Ms, c.Bytes = time.Since(started).Milliseconds(), int64(len(data))
	switch {
	case err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil):
		c.Outcome = OutcomeCanceled
	case err != nil:
		c.Outcome = OutcomeTransport
	default:
		c.Outcome = OutcomeOK
	}
	r.end(seq, c)
	return data, err
}

// begin journals a call about to be sent and returns its number.
func (r *Recorder) begin(c Call) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	if r.journal != nil {
		r.journal.write(event{Event: eventCall, Run: r.journal.run, Seq: r.seq, Call: c.bounded()})
	}
	return r.seq
}

// end records a call's outcome.
func (r *Recorder) end(seq int, c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
	if r.journal != nil {
		r.journal.write(event{Event: eventDone, Run: r.journal.run, Seq: seq, Call: c.bounded()})
	}
}

// Digest is the keyed digest of a call's arguments.
func (r *Recorder) Digest(server, tool string, args json.RawMessage) string {
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte(server))
	m.Write([]byte{0})
	m.Write([]byte(tool))
	m.Write([]byte{0})
	m.Write(bytes.TrimSpace(args))
	return hex.EncodeToString(m.Sum(nil)[:8])
}

func outcome(ctx context.Context, res *mcptool.Result, err error) string {
	switch {
	case errors.Is(err, mcptool.ErrPolicy):
		return OutcomePolicy
	case errors.Is(err, mcptool.ErrDenied):
		return OutcomeDenied
	case err != nil && (errors.Is(err, context.Canceled) || ctx.Err() != nil):
		return OutcomeCanceled
	case err != nil || res == nil:
		return OutcomeTransport
	case res.IsError:
		return OutcomeToolError
	}
	return OutcomeOK
}

// Calls returns the recorded calls in the order they started.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	calls := slices.Clone(r.calls)
	r.mu.Unlock()
	slices.SortStableFunc(calls, func(a, b Call) int { return int(a.StartMs - b.StartMs) })
	if calls == nil {
		calls = []Call{}
	}
	return calls
}

// Journal makes the recorder write to l, as the run goes, the run's start
// (head: its id, time, who, program and privacy) with its first call, and
// each call before it is sent and once its outcome is known. A run that
// ends without its record (killed) is then still on record with the calls
// it sent (Read rebuilds it). Close ends the journal.
func (r *Recorder) Journal(l Log, head Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	head.Calls = nil
	b := head.bounded()
	r.journal = &journal{log: l, run: head.ID, head: &b, day: head.Time}
}

// Err is the first error writing the journal (the run's calls went on).
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.journal == nil {
		return nil
	}
	return r.journal.err
}

// Close closes the journal's file.
func (r *Recorder) Close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.journal != nil && r.journal.f != nil {
		r.journal.f.Close()
		r.journal.f = nil
	}
}

// --- the journal ---

// Events of the journal.
const (
	eventStart = "start" // the run began: Head
	eventCall  = "call"  // a call is about to be sent
	eventDone  = "done"  // a call's outcome
)

// event is a line of the log that is not a run's record.
type event struct {
	Event string  `json:"event"`
	Run   string  `json:"run"`
	Seq   int     `json:"seq,omitempty"`
	Head  *Record `json:"head,omitempty"`
	Call  Call    `json:"call,omitzero"`
}

// journal is the open day file a run journals to; it is opened with the
// run's first call, so a run without calls costs nothing more.
type journal struct {
	log  Log
	run  string
	head *Record // written with the first event, then nil
	day  time.Time
	f    *os.File
	err  error
}

// write appends one event (one write call, so that a kill cannot leave
// half of it), after the run's start when it is the first.
func (j *journal) write(e event) {
	if j.err != nil {
		return
	}
	if j.f == nil {
		if err := os.MkdirAll(j.log.Dir, 0o700); err != nil {
			j.err = fmt.Errorf("writing the audit log: %w", err)
			return
		}
		f, err := os.OpenFile(j.log.fileOf(j.day), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			j.err = fmt.Errorf("writing the audit log: %w", err)
			return
		}
		j.f = f
	}
	var buf []byte
	if j.head != nil {
		line, _ := json.Marshal(event{Event: eventStart, Run: j.run, Head: j.head})
		buf = append(line, '\n')
		j.head = nil
	}
	line, err := json.Marshal(e)
	if err != nil {
		j.err = fmt.Errorf("encoding the audit journal: %w", err)
		return
	}
	buf = append(append(buf, line...), '\n')
	// One write under the lock, as Append writes a record.
	unlock, lerr := filelock.Lock(j.f, nil)
	_, err = j.f.Write(buf)
	if lerr == nil {
		unlock()
	}
	if err != nil {
		j.err = fmt.Errorf("writing the audit log %s: %w", j.log.fileOf(j.day), err)
	}
}

// --- bounds ---

// Bounds of what one record carries.
const (
	// MaxName bounds each name a record holds (server, tool, client,
	// session, program entry, skill, error kind, limit, outcome); a longer
	// one is cut and ends with a marker saying how much was left out.
	MaxName = 256
	// MaxLine bounds one line of the log: a record with more calls than
	// fit keeps the first ones and counts the rest (CallsOmitted). The
	// reader skips and reports a longer line.
	MaxLine = 1 << 20
)

// capName cuts s to about max bytes, on a character boundary, with a
// marker.
func capName(s string) string {
	if len(s) <= MaxName {
		return s
	}
	cut := MaxName - 32
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…[%d more bytes]", s[:cut], len(s)-cut)
}

func (c Call) bounded() Call {
	c.Server, c.Tool, c.Op, c.Args, c.Outcome = capName(c.Server), capName(c.Tool), capName(c.Op), capName(c.Args), capName(c.Outcome)
	return c
}

// bounded returns the record with its names cut to MaxName and its error
// message to MaxMessage (the calls are cut to the line by Append).
func (rec Record) bounded() Record {
	rec.ID = capName(rec.ID)
	rec.Who.Face, rec.Who.Client, rec.Who.Session = capName(rec.Who.Face), capName(rec.Who.Client), capName(rec.Who.Session)
	rec.Program.Entry, rec.Program.Skill, rec.Program.SHA256 = capName(rec.Program.Entry), capName(rec.Program.Skill), capName(rec.Program.SHA256)
	rec.Privacy = capName(rec.Privacy)
	if rec.Error != nil {
		e := *rec.Error
		e.Kind, e.Limit = capName(e.Kind), capName(e.Limit)
		if len(e.Message) > MaxMessage {
			cut := MaxMessage
			for cut > 0 && !utf8.RuneStart(e.Message[cut]) {
				cut--
			}
			e.Message = e.Message[:cut] + "…"
		}
		rec.Error = &e
	}
	if len(rec.Limits) > 16 {
		rec.Limits = rec.Limits[:16]
	}
	limits := make([]string, len(rec.Limits))
	for i, l := range rec.Limits {
		limits[i] = capName(l)
	}
	if rec.Limits != nil {
		rec.Limits = limits
	}
	if rec.Calls != nil {
		calls := make([]Call, len(rec.Calls))
		for i, c := range rec.Calls {
			calls[i] = c.bounded()
		}
		rec.Calls = calls
	}
	return rec
}

// encode is the record's line (without its newline), within MaxLine: the
// calls that do not fit are left out and counted.
func (rec Record) encode() ([]byte, error) {
	rec = rec.bounded()
	line, err := json.Marshal(rec)
	for err == nil && len(line) > MaxLine && len(rec.Calls) > 0 {
		keep := len(rec.Calls) * MaxLine / len(line) * 9 / 10
		rec.CallsOmitted += len(rec.Calls) - keep
		rec.Calls = rec.Calls[:keep]
		line, err = json.Marshal(rec)
	}
	if err == nil && len(line) > MaxLine {
		err = fmt.Errorf("the record is %d bytes without its calls, over %d", len(line), MaxLine)
	}
	return line, err
}

// --- the log ---

// Log is a workspace's audit log: one file per UTC day in Dir.
type Log struct {
	Dir string
}

// keyFile holds the key of argument digests.
const keyFile = "key"

// Key returns the workspace's digest key, creating it (0600) on first use.
func (l Log) Key() ([]byte, error) {
	path := filepath.Join(l.Dir, keyFile)
	key, err := os.ReadFile(path)
	if err == nil && len(key) == 32 {
		return key, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the audit key: %w", err)
	}
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("creating the audit directory: %w", err)
	}
	key = make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		// Another run made it first: use that one.
		if key, err = os.ReadFile(path); err == nil && len(key) == 32 {
			return key, nil
		}
		return nil, fmt.Errorf("the audit key %s is damaged: remove it (old digests then stop matching new ones)", path)
	}
	if err != nil {
		return nil, fmt.Errorf("creating the audit key: %w", err)
	}
	_, err = f.Write(key)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("creating the audit key: %w", err)
	}
	return key, nil
}

// fileOf names the file of a day.
func (l Log) fileOf(t time.Time) string {
	return filepath.Join(l.Dir, t.UTC().Format("2006-01-02")+".jsonl")
}

// Append writes rec as one line of the file of its day (created 0600),
// bounded (MaxName, MaxLine). One write call per record: concurrent
// appenders do not interleave.
func (l Log) Append(rec Record) error {
	line, err := rec.encode()
	if err != nil {
		return fmt.Errorf("encoding the audit record: %w", err)
	}
	line = append(line, '\n')
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return fmt.Errorf("writing the audit log: %w", err)
	}
	f, err := os.OpenFile(l.fileOf(rec.Time), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("writing the audit log: %w", err)
	}
	// One write under the lock: appends of several processes never
	// interleave (without a lock, an append is still one write).
	if unlock, lerr := filelock.Lock(f, nil); lerr == nil {
		defer unlock()
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing the audit log %s: %w", l.fileOf(rec.Time), err)
	}
	return nil
}

// Query selects records.
type Query struct {
	// Since drops records older than it (zero: none).
	Since time.Time
	// Skill keeps only the runs of that skill.
	Skill string
}

// Skipped is a line of the log that Read could not use.
type Skipped struct {
	// File is the day file's name ("2026-11-30.jsonl"), Line its line
	// number (from 1).
	File string
	Line int
	// Reason says why: cut short or damaged, or longer than MaxLine.
	Reason string
}

func (s Skipped) String() string { return fmt.Sprintf("%s line %d: %s", s.File, s.Line, s.Reason) }

// Read returns the matching records, oldest first, and the lines it
// skipped: a line that does not parse (a write cut short by a crash) or is
// longer than MaxLine (not written by this version) is skipped and
// reported, and the rest of the day is read. A run whose record is missing
// but whose journal is there (killed) is rebuilt from the journal, marked
// Incomplete.
func (l Log) Read(q Query) (recs []Record, skipped []Skipped, err error) {
	entries, err := os.ReadDir(l.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("reading the audit log: %w", err)
	}
	firstDay := ""
	if !q.Since.IsZero() {
		firstDay = q.Since.UTC().Format("2006-01-02")
	}
	runs := map[string]*journaled{}
	final := map[string]bool{}
	var order []string
	for _, e := range entries {
		name := e.Name()
		day, ok := strings.CutSuffix(name, ".jsonl")
		if !ok || e.IsDir() || day < firstDay {
			continue
		}
		f, err := os.Open(filepath.Join(l.Dir, name))
		if err != nil {
			return nil, nil, fmt.Errorf("reading the audit log: %w", err)
		}
		br := bufio.NewReaderSize(f, 64<<10)
		for n := 1; ; n++ {
			line, tooLong, rerr := readLine(br, MaxLine)
			if rerr != nil && rerr != io.EOF {
				f.Close()
				return nil, nil, fmt.Errorf("reading the audit log %s: %w", name, rerr)
			}
			switch {
			case tooLong:
				skipped = append(skipped, Skipped{File: name, Line: n, Reason: fmt.Sprintf("longer than %d bytes (not a record this version writes)", MaxLine)})
			case len(bytes.TrimSpace(line)) == 0:
			default:
				var ll logLine
				if json.Unmarshal(line, &ll) != nil || (ll.Event == "" && ll.ID == "") {
					skipped = append(skipped, Skipped{File: name, Line: n, Reason: "damaged (a write cut short?)"})
					break
				}
				if ll.Event == "" {
					final[ll.ID] = true
					recs = append(recs, ll.Record)
					break
				}
				j := runs[ll.Run]
				if j == nil {
					j = &journaled{calls: map[int]Call{}}
					runs[ll.Run] = j
					order = append(order, ll.Run)
				}
				j.add(ll)
			}
			if rerr == io.EOF {
				break
			}
		}
		f.Close()
	}
	for _, id := range order {
		if final[id] {
			continue
		}
		if r, ok := runs[id].record(id); ok {
			recs = append(recs, r)
		}
	}
	recs = slices.DeleteFunc(recs, func(r Record) bool {
		return r.Time.Before(q.Since) || (q.Skill != "" && r.Program.Skill != q.Skill)
	})
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Time.Before(recs[j].Time) })
	return recs, skipped, nil
}

// logLine is a line of the log: a run's record, or an event of its
// journal.
type logLine struct {
	Record
	Event string  `json:"event"`
	Run   string  `json:"run"`
	Seq   int     `json:"seq"`
	Head  *Record `json:"head"`
	Call  Call    `json:"call"`
}

// journaled is what the journal of one run says.
type journaled struct {
	head  *Record
	calls map[int]Call
}

func (j *journaled) add(ll logLine) {
	switch ll.Event {
	case eventStart:
		j.head = ll.Head
	case eventCall:
		if _, ok := j.calls[ll.Seq]; !ok {
			c := ll.Call
			c.Outcome = OutcomeUnknown
			j.calls[ll.Seq] = c
		}
	case eventDone:
		j.calls[ll.Seq] = ll.Call
	}
}

// record is the run rebuilt from its journal (false without its start).
func (j *journaled) record(id string) (Record, bool) {
	if j.head == nil {
		return Record{}, false
	}
	r := *j.head
	r.ID, r.Incomplete, r.OK = id, true, false
	r.Calls = make([]Call, 0, len(j.calls))
	for _, seq := range slices.Sorted(maps.Keys(j.calls)) {
		c := j.calls[seq]
		r.Calls = append(r.Calls, c)
		r.Ms = max(r.Ms, c.StartMs+c.Ms)
	}
	return r, true
}

// readLine reads one line (without its newline) of at most max bytes; a
// longer one is read to its end and dropped (tooLong).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return line, tooLong, err
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, nil
	}
}
