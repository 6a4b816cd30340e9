package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
)

func cmdAudit(a *cli, args []string) int {
	fs := a.flags("audit", "[--dir WORKSPACE] [--since 24h] [--skill NAME] [--json]",
		"Shows the recorded runs of the workspace (from mcpcode run, run --skill and serve) and their tool\n"+
			"calls, oldest first: who asked, what ran (the program's hash, never its text), each tool called\n"+
			"with its outcome, time and bytes, limits hit and the error kind. Records are one JSON line per run\n"+
			"in .mcpcode/audit/<date>.jsonl; --json prints them as they are stored.")
	dir := fs.String("dir", "", "the workspace (default: the current directory, or the nearest parent with mcp.json)")
	since := fs.String("since", "24h", `how far back: a duration (90m, 1h, 7d), a date (2026-11-30) or a time (RFC 3339); "all" for every run`)
	skill := fs.String("skill", "", "only the runs of this skill")
	asJSON := fs.Bool("json", false, "print the records as JSON lines")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("audit", "unexpected argument %q", rest[0])
	}
	from, err := parseSince(*since, time.Now())
	if err != nil {
		return a.usageError("audit", "--since: %v", err)
	}
	ws, err := a.openWith(app.OpenOptions{Dir: *dir})
	if err != nil {
		return a.configError("audit", err)
	}
	recs, skipped, err := ws.Audit(app.AuditQuery{Since: from, Skill: *skill})
	if err != nil {
		return a.fail("audit", err)
	}
	for i, s := range skipped {
		if i == maxSkippedShown {
			fmt.Fprintf(a.stderr, "warning: %d more lines of the audit log were skipped\n", len(skipped)-i)
			break
		}
		fmt.Fprintf(a.stderr, "warning: skipped .mcpcode/audit/%s\n", visible.Line(s.String()))
	}
	if *asJSON {
		for _, r := range recs {
			line, _ := json.Marshal(r)
			a.stdout.Write(visible.JSON(append(line, '\n')))
		}
		return exitOK
	}
	if len(recs) == 0 {
		what := "no runs recorded"
		if *skill != "" {
			what = fmt.Sprintf("no runs of skill %q recorded", *skill)
		}
		if !from.IsZero() {
			what += " since " + from.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(a.stdout, "%s%s (try --since all)\n", strings.ToUpper(what[:1]), what[1:])
		return exitOK
	}
	renderAudit(a.stdout, recs, a.stdoutWidth())
	return exitOK
}

// maxSkippedShown bounds the warnings about skipped lines of the log.
const maxSkippedShown = 10

// parseSince reads --since relative to now; zero time means every run.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "all" || s == "" {
		return time.Time{}, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n > 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is not a duration (1h, 7d), a date (2026-11-30), a time (RFC 3339) or \"all\"", s)
}

// renderAudit prints one block per run: a line for the run, then its calls
// grouped by tool and outcome, in the same columns. On a terminal (width >
// 0) a line is cut at its width, ending in "…", never wrapped: where a
// wrapped line starts is chosen by the widths of cells a server or a host
// named, which could put a forged row at column 0 (--json has everything).
func renderAudit(w io.Writer, recs []audit.Record, width int) {
	var table bytes.Buffer
	defer func() { writeClipped(w, table.String(), width) }()
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME (UTC)\tRUN\tWHO\tPROGRAM\tRESULT\tCALLS\tBYTES\tDURATION")
	for _, r := range recs {
		var bytes int64
		for _, c := range r.Calls {
			bytes += c.Bytes
		}
		// Every field is one short line, escaped (auditCell): a name cannot
		// add a row, a column or a terminal sequence, nor pad itself to the
		// terminal's width to wrap into what looks like a row.
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Time.UTC().Format("2006-01-02 15:04:05"), auditCell(r.ID), auditCell(whoText(r.Who)),
			auditCell(programText(r.Program)), auditCell(resultText(r)), len(r.Calls)+r.CallsOmitted, formatBytes(bytes), msText(r.Ms))
		for _, g := range groupCalls(r.Calls) {
			fmt.Fprintf(tw, "\t\t\t  %s\t%s\t%d\t%s\t%s\n", auditCell(g.name), auditCell(g.outcome), g.n, formatBytes(g.bytes), msText(g.ms))
		}
		if r.CallsOmitted > 0 {
			fmt.Fprintf(tw, "\t\t\t  (%d more calls not kept in the record)\t\t%d\t\t\n", r.CallsOmitted, r.CallsOmitted)
		}
	}
	tw.Flush()
}

// writeClipped writes text with each line cut to width characters (a wide
// character counts two; width 0: whole).
func writeClipped(w io.Writer, text string, width int) {
	for _, line := range strings.SplitAfter(text, "\n") {
		if line == "" {
			continue
		}
		if width > 1 {
			line = clipColumns(strings.TrimSuffix(line, "\n"), width) + "\n"
		}
		io.WriteString(w, line)
	}
}

// ellipsis ends a cut line or cell.
const ellipsis = '…'

// clipColumns cuts s to at most width columns (as runeColumns counts them),
// ending in an ellipsis when cut.
func clipColumns(s string, width int) string {
	if columnsOf(s) <= width {
		return s
	}
	cols := 0
	for i, r := range s {
		if cols+runeColumns(r) > width-runeColumns(ellipsis) {
			return s[:i] + string(ellipsis)
		}
		cols += runeColumns(r)
	}
	return s
}

func columnsOf(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

// runeColumns counts a character that is not ASCII as two columns: never
// fewer than a terminal gives it.
func runeColumns(r rune) int {
	if r > 0x7f {
		return 2
	}
	return 1
}

// maxAuditCell bounds a cell of the audit table, in characters (a wide
// character counts two): `audit --json` has every name whole.
const maxAuditCell = 48

// auditCell is untrusted text as one cell: escaped to one line, every run
// of white space made one space, cut to maxAuditCell with "…".
func auditCell(s string) string {
	return clipColumns(strings.Join(strings.Fields(visible.Line(s)), " "), maxAuditCell)
}

func whoText(w audit.Who) string {
	s := w.Face
	if w.Client != "" {
		s += " (" + w.Client + ")"
	}
	if w.Session != "" {
		s += " " + w.Session
	}
	return s
}

func programText(p audit.Program) string {
	short := p.SHA256
	if len(short) > 12 {
		short = short[:12]
	}
	name := p.Entry
	if p.Skill != "" {
		name = "skill " + p.Skill
	}
	return fmt.Sprintf("%s %s", name, short)
}

func resultText(r audit.Record) string {
	var s string
	switch {
	case r.Incomplete:
		s = "incomplete: still running, or ended without its record (killed?)"
	case r.OK:
		s = "ok"
	case r.Error != nil:
		s = r.Error.Kind + " error"
		if r.Error.Limit != "" {
			s += " (" + r.Error.Limit + ")"
		}
	default:
		s = "failed"
	}
	if r.Privacy == app.PrivacyTokenize {
		s += ", tokenized"
	}
	return s
}

func msText(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%.1f s", float64(ms)/1000)
}

type callGroup struct {
	name, outcome string
	n             int
	ms, bytes     int64
}

// groupCalls sums calls by tool and outcome, in order of first call.
func groupCalls(calls []audit.Call) []callGroup {
	var gs []callGroup
	for _, c := range calls {
		name := c.Name()
		i := slices.IndexFunc(gs, func(g callGroup) bool { return g.name == name && g.outcome == c.Outcome })
		if i < 0 {
			gs = append(gs, callGroup{name: name, outcome: c.Outcome})
			i = len(gs) - 1
		}
		gs[i].n++
		gs[i].ms += c.Ms
		gs[i].bytes += c.Bytes
	}
	return gs
}
