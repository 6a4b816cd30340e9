package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/audit/otlp"
	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/privacy"
	"github.com/mcpcode/mcpcode/runtime"
)

// RunBy says who asked for a run, as the audit log records it; the zero
// value is the CLI.
type RunBy = audit.Who

// FaceServe marks runs asked for by an MCP client of `mcpcode serve`.
const FaceServe = audit.FaceServe

// auditDir holds the audit log, in the state directory.
const auditDir = "audit"

// AuditLog is the workspace's audit log.
func (w *Workspace) AuditLog() audit.Log {
	return audit.Log{Dir: filepath.Join(w.Root, layout.StateDir, auditDir)}
}

// AuditQuery selects runs of the audit log.
type AuditQuery = audit.Query

// Audit returns the recorded runs that match q, oldest first, and the
// lines of the log that were skipped (damaged or too long).
func (w *Workspace) Audit(q AuditQuery) ([]audit.Record, []audit.Skipped, error) {
	return w.AuditLog().Read(q)
}

// runHook is what a run does around the program: privacy (detokenize,
// flows, then tokenize what leaves) and the audit record.
type runHook struct {
	w        *Workspace
	rec      audit.Record
	started  time.Time
	session  *privacy.Session
	recorder *audit.Recorder
	warnings []string
}

// beginRun prepares a run's privacy and audit; a privacy configuration
// that cannot be applied is an error (the run does not start without it).
func (w *Workspace) beginRun(req RunRequest, b runtime.BundleOptions, caller mcptool.Caller) (*runHook, mcptool.Caller, error) {
	mode, err := w.privacyMode(req.Privacy)
	if err != nil {
		return nil, nil, err
	}
	session, err := w.privacySession(mode)
	if err != nil {
		return nil, nil, err
	}
	h := &runHook{w: w, started: time.Now(), session: session}
	h.rec = audit.Record{ID: audit.NewID(h.started), Time: h.started.UTC(), Who: req.By, Privacy: mode, Program: w.programOf(req, b)}
	if h.rec.Who.Face == "" {
		h.rec.Who.Face = audit.FaceCLI
	}
	if session != nil {
		caller = session.Caller(caller)
	}
	key, err := w.AuditLog().Key()
	if err != nil {
		h.warnings = append(h.warnings, err.Error())
		key = []byte(h.rec.ID) // digests of this run still compare with each other
	}
	h.recorder = audit.NewRecorder(caller, key, h.started)
	// Each call is on record before it is sent: a run killed after a
	// write still shows it.
	h.recorder.Journal(w.AuditLog(), h.rec)
	return h, h.recorder, nil
}

// programOf says what runs, for the record: the entry's hash and size.
func (w *Workspace) programOf(req RunRequest, b runtime.BundleOptions) audit.Program {
	p := audit.Program{Skill: req.Skill}
	src := b.Source
	switch {
	case req.Skill != "":
		src, _ = os.ReadFile(filepath.Join(w.Skills(), req.Skill, "index.ts"))
	case req.Source != nil:
		p.Entry = filepath.Base(b.Entry)
	default:
		p.Entry = filepath.ToSlash(w.Rel(b.Entry))
		src, _ = os.ReadFile(b.Entry)
	}
	p.SHA256, p.Bytes = audit.HashProgram(src), len(src)
	return p
}

// finish tokenizes what leaves the run, then records it.
func (h *runHook) finish(res *runtime.Result) *runtime.Result {
	if h.session != nil && h.session.Tokenizing() {
		redact(h.session, res)
	}
	rec := &h.rec
	rec.Ms = time.Since(h.started).Milliseconds()
	rec.OK = res.OK
	rec.Calls = h.recorder.Calls()
	rec.ResultBytes = len(res.Result)
	for _, l := range res.Logs {
		rec.LogBytes += len(l.Text) + 1
	}
	if e := res.Error; e != nil {
		rec.Error = &audit.Error{Kind: e.Kind, Limit: e.Limit, Message: e.Message} // cut to MaxMessage by Append
		if e.Kind == runtime.KindLimit && e.Limit != "" {
			rec.Limits = append(rec.Limits, e.Limit)
		}
	}
	if res.LogsOmitted > 0 {
		rec.Limits = append(rec.Limits, "max-output")
	}
	if err := h.w.AuditLog().Append(*rec); err != nil {
		h.warnings = append(h.warnings, err.Error())
	}
	if err := h.recorder.Err(); err != nil {
		h.warnings = append(h.warnings, err.Error())
	}
	h.recorder.Close()
	if err := h.w.app.exportTrace(*rec); err != nil {
		h.warnings = append(h.warnings, err.Error())
	}
	for _, warning := range h.warnings {
		res.Logs = append(res.Logs, runtime.LogEntry{Level: "warn",
			Text: fmt.Sprintf("mcpcode: this run is not fully on record: %s (check that .mcpcode/audit is writable)", warning)})
	}
	return res
}

// --- OpenTelemetry ---

// traceExporters holds each app's trace exporter, started on the first run
// when the environment asks for one (see otlp.Enabled).
var traceExporters sync.Map // *App → *traceExporter

type traceExporter struct {
	once sync.Once
	exp  *otlp.Exporter
	err  error
}

// newTraceExporter starts an exporter; tests replace it.
var newTraceExporter = otlp.New

// exportTrace exports a run as a trace when the environment asks for it.
// An exporter that cannot start is reported once.
func (a *App) exportTrace(rec audit.Record) error {
	if !otlp.Enabled(a.lookupEnv) {
		return nil
	}
	v, _ := traceExporters.LoadOrStore(a, &traceExporter{})
	t := v.(*traceExporter)
	var err error
	t.once.Do(func() {
		t.exp, t.err = newTraceExporter(a.lookupEnv, a.Version)
		if t.err != nil {
			err = fmt.Errorf("exporting traces: %w; check the OTEL_EXPORTER_OTLP_* variables", t.err)
		}
	})
	if t.exp != nil {
		t.exp.Export(rec)
	}
	return err
}

// flushTraces sends the spans still waiting, within a few seconds.
func (a *App) flushTraces() {
	v, ok := traceExporters.LoadAndDelete(a)
	if !ok {
		return
	}
	if t := v.(*traceExporter); t.exp != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = t.exp.Shutdown(ctx)
	}
}
