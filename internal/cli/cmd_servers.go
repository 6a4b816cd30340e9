package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpcode/mcpcode/gateway"
	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/servers"
)

func cmdServers(a *cli, args []string) int {
	fs := a.flags("servers", "[--dir WORKSPACE] [--config FILE] [--json] [SERVER...]",
		"Connects to every enabled server in mcp.json (or the ones named) at once and shows, per server, its status\n(ok, or failed with the reason), transport, name and version, tool count and connect time.\nExits 1 if any server failed, after showing everything that worked.")
	var cf connFlags
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	names, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	ws, err := a.open(cf)
	if err != nil {
		return a.configError("servers", err)
	}
	for _, n := range names {
		if _, ok := ws.Config.Server(n); !ok {
			return a.usageError("servers", "no enabled server %q in %s (servers: %s)", n, ws.Config.Path, strings.Join(ws.Config.Names(), ", "))
		}
	}
	pool := ws.Pool(app.PoolOptions{ConnectTimeout: cf.connectTimeout})
	defer pool.Close()
	statuses := pool.ConnectAll(a.ctx, names, nil)
	disabled := ws.Config.Disabled
	if len(names) > 0 {
		disabled = nil // only the servers asked about
	}
	if *asJSON {
		writeJSON(a.stdout, map[string]any{"servers": serverReports(statuses), "disabled": nonNilStrings(disabled)})
	} else {
		printServerTable(a.stdout, statuses, disabled)
		printFailures(a.stderr, statuses)
	}
	return exitCodeOf(statuses)
}

// serverReport is one server's line of `mcpcode servers --json`.
type serverReport struct {
	Name          string `json:"name"`
	Status        string `json:"status"` // "ok" or "failed"
	Transport     string `json:"transport"`
	ServerName    string `json:"serverName,omitempty"`
	ServerVersion string `json:"serverVersion,omitempty"`
	// ProtocolVersion is the MCP revision spoken with the server.
	ProtocolVersion string   `json:"protocolVersion,omitempty"`
	Tools           int      `json:"tools"`
	ConnectMs       int64    `json:"connectMs"`
	Error           string   `json:"error,omitempty"`
	Stderr          []string `json:"stderr,omitempty"`
}

func serverReports(statuses []servers.Status) []serverReport {
	out := make([]serverReport, 0, len(statuses))
	for _, st := range statuses {
		r := serverReport{Name: st.Name, Transport: st.Transport, Status: "ok"}
		if st.Err != nil {
			r.Status, r.Error = statusOf(st.Err), app.ErrorReason(st.Err)
			var se *servers.ServerError
			if errors.As(st.Err, &se) {
				r.Stderr = se.Stderr
			}
		} else {
			l := st.Listing
			r.ServerName, r.ServerVersion, r.Tools, r.ConnectMs = l.ServerName, l.ServerVersion, len(l.Tools), l.ConnectTime.Milliseconds()
			r.ProtocolVersion = l.ProtocolVersion
		}
		out = append(out, r)
	}
	return out
}

func printServerTable(w io.Writer, statuses []servers.Status, disabled []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATUS\tTRANSPORT\tNAME\tVERSION\tTOOLS\tCONNECT")
	for _, st := range statuses {
		if st.Err != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t-\t-\t-\t-\n", visible.Line(st.Name), statusOf(st.Err), st.Transport)
			continue
		}
		l := st.Listing
		// The name and version are the server's own words: shown visibly.
		fmt.Fprintf(tw, "%s\tok\t%s\t%s\t%s\t%d\t%s\n", visible.Line(st.Name), st.Transport, visible.Line(dash(l.ServerName)), visible.Line(dash(l.ServerVersion)), len(l.Tools), roundDuration(l.ConnectTime))
	}
	for _, d := range disabled {
		fmt.Fprintf(tw, "%s\tdisabled\t-\t-\t-\t-\t-\n", d)
	}
	tw.Flush()
}

// statusOf is a failed server's status: "needs login" when it asks for an
// OAuth login (mcpcode auth NAME), else "failed".
func statusOf(err error) string {
	if errors.Is(err, servers.ErrNeedsLogin) {
		return "needs login"
	}
	return "failed"
}

// printFailures explains each failed server, with its stderr.
func printFailures(w io.Writer, statuses []servers.Status) {
	for _, st := range statuses {
		if st.Err == nil {
			continue
		}
		var se *servers.ServerError
		if errors.As(st.Err, &se) {
			fmt.Fprintf(w, "\n%s\n", visible.Text(se.Detail()))
		} else {
			fmt.Fprintf(w, "\nserver %q: %s\n", st.Name, visible.Text(st.Err.Error()))
		}
	}
}

func exitCodeOf(statuses []servers.Status) int {
	for _, st := range statuses {
		if st.Err != nil {
			return exitFailure
		}
	}
	return exitOK
}

func cmdTools(a *cli, args []string) int {
	fs := a.flags("tools", "[--dir WORKSPACE] [--config FILE] [--json] [SERVER...]\n   or: mcpcode tools --search QUERY [--detail name|summary|full] [--limit N]",
		"Lists each tool's name and the first line of its description, grouped by server\n(all enabled servers, or the ones named). Exits 1 if any server failed.\n"+
			"With --search, ranks the generated tree's tools against a request instead (no server is started).")
	var cf connFlags
	cf.register(fs)
	asJSON := fs.Bool("json", false, "print the result as JSON")
	search := fs.String("search", "", "find the tools of the generated tree that match this request, best first")
	detail := fs.String("detail", "summary", `with --search: "name", "summary" or "full" (the tool files' TypeScript)`)
	limit := fs.Int("limit", 5, "with --search: most tools to show")
	names, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if *search != "" {
		return a.searchTools(cf, *search, *detail, *limit, *asJSON, names)
	}
	ws, err := a.open(cf)
	if err != nil {
		return a.configError("tools", err)
	}
	for _, n := range names {
		if _, ok := ws.Config.Server(n); !ok {
			return a.usageError("tools", "no enabled server %q in %s (servers: %s)", n, ws.Config.Path, strings.Join(ws.Config.Names(), ", "))
		}
	}
	a.app.Login = a.loginOptions() // a server asking for a login: the browser, if one can be shown
	statuses := ws.ToolListings(a.ctx, names, app.PoolOptions{ConnectTimeout: cf.connectTimeout})
	if *asJSON {
		type toolReport struct {
			Name        string          `json:"name"`
			Title       string          `json:"title,omitempty"`
			Description string          `json:"description"`
			ReadOnly    bool            `json:"readOnly"`
			InputSchema json.RawMessage `json:"inputSchema"`
		}
		type report struct {
			Name   string       `json:"name"`
			Status string       `json:"status"`
			Error  string       `json:"error,omitempty"`
			Tools  []toolReport `json:"tools"`
		}
		var out []report
		for _, st := range statuses {
			r := report{Name: st.Name, Status: "ok", Tools: []toolReport{}}
			if st.Err != nil {
				r.Status, r.Error = "failed", app.ErrorReason(st.Err)
			} else {
				for _, t := range st.Listing.Tools {
					r.Tools = append(r.Tools, toolReport{Name: t.Name, Title: t.Title, Description: t.FirstLine(), ReadOnly: t.Hints.IsReadOnly(), InputSchema: t.InputSchema})
				}
			}
			out = append(out, r)
		}
		writeJSON(a.stdout, map[string]any{"servers": out})
		return exitCodeOf(statuses)
	}
	for i, st := range statuses {
		if i > 0 {
			fmt.Fprintln(a.stdout)
		}
		if st.Err != nil {
			fmt.Fprintf(a.stdout, "%s: failed: %s\n", visible.Line(st.Name), visible.Text(app.ErrorReason(st.Err)))
			continue
		}
		fmt.Fprintf(a.stdout, "%s (%s)\n", visible.Line(st.Name), plural(len(st.Listing.Tools), "tool"))
		tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
		for _, t := range st.Listing.Tools {
			fmt.Fprintf(tw, "  %s\t%s\n", visible.Line(t.Name), visible.Line(truncate(t.FirstLine(), 100)))
		}
		tw.Flush()
	}
	printFailures(a.stderr, statuses)
	return exitCodeOf(statuses)
}

// writeJSON prints v as indented JSON. A value that cannot be encoded (a
// program's result nested too deep, say) prints an error object instead,
// so that a reader always gets JSON. Control and format characters in its
// strings (which came from programs and servers) are \u escapes, visible
// on a terminal and decoded unchanged (package visible).
func writeJSON(w io.Writer, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		buf.Reset()
		_ = enc.Encode(map[string]any{"ok": false, "error": map[string]string{"kind": "output", "message": "the output could not be encoded as JSON: " + err.Error()}})
	}
	w.Write(visible.JSON(buf.Bytes()))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func roundDuration(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return d.Round(time.Microsecond).String()
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	}
	return d.Round(10 * time.Millisecond).String()
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// searchTools is `mcpcode tools --search`: the same search as serve's
// search_tools, over the generated tree.
func (a *cli) searchTools(cf connFlags, query, detail string, limit int, asJSON bool, extra []string) int {
	if len(extra) > 0 {
		return a.usageError("tools", "--search takes no server names (unexpected %q)", extra[0])
	}
	if detail != "name" && detail != "summary" && detail != "full" {
		return a.usageError("tools", "--detail %q: use name, summary or full", detail)
	}
	if limit < 1 {
		return a.usageError("tools", "--limit must be at least 1")
	}
	ws, err := a.openWith(app.OpenOptions{Dir: cf.dir, Config: cf.config})
	if err != nil {
		return a.configError("tools", err)
	}
	hits, err := ws.SearchTools(query, limit, detail == "full")
	if err != nil {
		if app.IsUsage(err) {
			return a.usageError("tools", "%v", err)
		}
		return a.fail("tools", err)
	}
	if asJSON {
		if hits == nil {
			hits = []app.SearchHit{}
		}
		writeJSON(a.stdout, map[string]any{"query": query, "tools": hits})
		return exitOK
	}
	fmt.Fprint(a.stdout, visible.Text(gateway.RenderSearch(hits, detail)))
	return exitOK
}
