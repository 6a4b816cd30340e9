// Package audit records runs: one JSON line per run in
// .mcpcode/audit/<date>.jsonl with who asked for it, what ran (a hash, not
// the program), every tool call (server, tool, a keyed digest of the
// arguments, duration, outcome, bytes), the limits hit, the size of what
// came back and the kind of error. Recording is cheap and always on; with
// privacy on, whatever text the record holds (an error message) holds
// tokens, not values.
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
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

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

// Call is one tool call a program made.
type Call struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
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

	mu    sync.Mutex
	calls []Call
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

// CallTool calls inner and records the call.
func (r *Recorder) CallTool(ctx context.Context, server, tool string, args json.RawMessage) (*mcptool.Result, error) {
	started := time.Now()
	res, err := r.inner.CallTool(ctx, server, tool, args)
	c := Call{Server: server, Tool: tool, Args: r.Digest(server, tool, args), ArgBytes: len(args),
		StartMs: started.Sub(r.start).Milliseconds(), Ms: time.Since(started).Milliseconds(), Outcome: outcome(ctx, res, err)}
	if res != nil {
		c.Bytes = int64(len(res.Content) + len(res.StructuredContent))
	}
	r.mu.Lock()
	r.calls = append(r.calls, c)
	r.mu.Unlock()
	return res, err
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

// Append writes rec as one line of the file of its day (created 0600).
// One write call per record: concurrent appenders do not interleave.
func (l Log) Append(rec Record) error {
	line, err := json.Marshal(rec)
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

// Read returns the matching records, oldest first. Lines that do not parse
// (a write cut short by a crash) are skipped and counted.
func (l Log) Read(q Query) (recs []Record, skipped int, err error) {
	entries, err := os.ReadDir(l.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("reading the audit log: %w", err)
	}
	firstDay := ""
	if !q.Since.IsZero() {
		firstDay = q.Since.UTC().Format("2006-01-02")
	}
	for _, e := range entries {
		name := e.Name()
		day, ok := strings.CutSuffix(name, ".jsonl")
		if !ok || e.IsDir() || day < firstDay {
			continue
		}
		f, err := os.Open(filepath.Join(l.Dir, name))
		if err != nil {
			return nil, 0, fmt.Errorf("reading the audit log: %w", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 256<<20)
		for sc.Scan() {
			var r Record
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				skipped++
				continue
			}
			if r.Time.Before(q.Since) || (q.Skill != "" && r.Program.Skill != q.Skill) {
				continue
			}
			recs = append(recs, r)
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, 0, fmt.Errorf("reading the audit log %s: %w", name, err)
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Time.Before(recs[j].Time) })
	return recs, skipped, nil
}
