package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/servers"
)

// genFlags are the flags of `mcpcode gen`.
type genFlags struct {
	conn   connFlags
	out    string
	only   []string
	asJSON bool
	watch  bool
	strict bool
}

func cmdGen(a *cli, args []string) int {
	fs := a.flags("gen", "[--dir WORKSPACE] [--config FILE] [--out DIR] [--server NAME]... [--json] [--watch]",
		"Connects to the servers in mcp.json and writes the typed TypeScript tree: one file per tool\n"+
			"(servers/<server>/<tool>.ts), an index.ts per server, README.md, mcpcode.d.ts and tsconfig.json.\n"+
			"Unchanged files are not rewritten; files of removed tools are deleted; files gen does not own are\n"+
			"never touched. A server that fails keeps its previous directory exactly as it was, and gen exits 1\n"+
			"after regenerating the others.")
	var gf genFlags
	gf.conn.register(fs)
	fs.StringVar(&gf.out, "out", "", "output directory (default: servers/ in the workspace)")
	fs.Func("server", "regenerate only this server (repeatable); the others are kept as they are", func(s string) error {
		gf.only = append(gf.only, s)
		return nil
	})
	fs.BoolVar(&gf.asJSON, "json", false, "print the summary as JSON")
	fs.BoolVar(&gf.watch, "watch", false, "keep running: regenerate when mcp.json changes or a server says its tools changed")
	fs.BoolVar(&gf.strict, "strict-metadata", false, "refuse a server whose tool metadata has lint warnings (instructions aimed at the model, hidden characters): it keeps its previous files and gen exits 1")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("gen", "unexpected argument %q (to pick servers use --server NAME)", rest[0])
	}
	ws, err := a.open(gf.conn)
	if err != nil {
		return a.configError("gen", err)
	}
	for _, n := range gf.only {
		if _, ok := ws.Config.Server(n); !ok {
			return a.usageError("gen", "--server %q: no enabled server of that name in %s (servers: %s)", n, ws.Config.Path, strings.Join(ws.Config.Names(), ", "))
		}
	}
	opts := a.genOptions(ws, gf)
	a.app.Login = a.loginOptions() // a server asking for a login: the browser, if one can be shown
	if gf.watch {
		err := ws.WatchGen(a.ctx, app.WatchOptions{
			Gen:            opts,
			ConnectTimeout: gf.conn.connectTimeout,
			OnReport: func(rep *app.GenReport, err error) {
				if err != nil {
					fmt.Fprintf(a.stderr, "mcpcode gen: %s\n", indentRest(err.Error()))
					return
				}
				a.reportGen(a.stdout, rep, gf.asJSON)
			},
			OnNotice: func(s string) { fmt.Fprintln(a.stderr, s) },
			OnReload: func(w *app.Workspace) { a.printWarnings(w.Warnings) },
		})
		if err != nil {
			return a.fail("gen", err)
		}
		return exitOK
	}
	pool := ws.Pool(app.PoolOptions{ConnectTimeout: gf.conn.connectTimeout})
	defer pool.Close()
	rep, err := ws.Generate(a.ctx, pool, opts)
	if err != nil {
		return a.fail("gen", err)
	}
	a.reportGen(a.stdout, rep, gf.asJSON)
	if rep.Failed() {
		return exitFailure
	}
	return exitOK
}

// genOptions renders gen's progress on stderr, unless JSON is asked for.
func (a *cli) genOptions(ws *app.Workspace, gf genFlags) app.GenOptions {
	progress := a.stderr
	if gf.asJSON {
		progress = io.Discard
	}
	var mu sync.Mutex
	return app.GenOptions{
		Out:            gf.out,
		Only:           gf.only,
		StrictMetadata: gf.strict,
		OnLockWait: func(path string) {
			fmt.Fprintf(a.stderr, "waiting for another mcpcode gen to finish (%s)\n", path)
		},
		OnStart: func(names []string) {
			fmt.Fprintf(progress, "Listing tools of %s (from %s)\n", plural(len(names), "server"), ws.Rel(ws.Config.Path))
		},
		OnListed: func(st servers.Status) {
			mu.Lock()
			defer mu.Unlock()
			if st.Err != nil {
				fmt.Fprintf(progress, "  %-16s failed: %s\n", visible.Line(st.Name), visible.Text(app.ErrorReason(st.Err)))
				return
			}
			fmt.Fprintf(progress, "  %-16s listed %s in %s\n", visible.Line(st.Name), plural(len(st.Listing.Tools), "tool"), roundDuration(st.Listing.ConnectTime))
		},
	}
}

// reportGen prints the summary of a generation.
func (a *cli) reportGen(w io.Writer, rep *app.GenReport, asJSON bool) {
	if asJSON {
		writeJSON(w, rep)
		return
	}
	fmt.Fprintf(w, "Wrote %s (%s written, the rest unchanged)\n", rep.OutDir, plural(rep.FilesWritten(), "file"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATUS\tTOOLS\tADDED\tCHANGED\tREMOVED\tUNCHANGED\tFILES WRITTEN")
	for _, s := range rep.Servers {
		status := s.Status
		switch {
		case s.Status == app.GenFailed && s.NeverGenerated:
			status = "failed (nothing generated yet)"
		case s.Status == app.GenFailed:
			status = "failed (previous files kept)"
		case s.Status == app.GenRefused && s.NeverGenerated:
			status = "refused (metadata warnings; nothing generated yet)"
		case s.Status == app.GenRefused:
			status = "refused (metadata warnings; previous files kept)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", visible.Line(s.Name), status, s.Tools, len(s.Added), len(s.Changed), len(s.Removed), len(s.Unchanged), len(s.Written))
	}
	tw.Flush()
	for _, s := range rep.Servers {
		for _, r := range s.Renamed {
			fmt.Fprintf(w, "%s: new tool %q is generated as %s(): %s() stays tool %q's (a generated name never moves to another tool)\n",
				visible.Line(s.Name), visible.Line(r.Tool), r.Function, r.Wanted, visible.Line(r.Holder))
		}
	}
	for _, w := range rep.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", visible.Text(w))
	}
	if n := len(rep.Findings); n > 0 {
		fmt.Fprintf(a.stderr, "metadata lint: %s in tool metadata that may try to steer the agent (also marked in servers/README.md and the tools' doc comments):\n", plural(n, "finding"))
		for _, f := range rep.Findings {
			fmt.Fprintf(a.stderr, "  %s\n", visible.Line(f.String()))
		}
	}
	for _, s := range rep.Servers {
		if s.Err != nil {
			var se *servers.ServerError
			if errors.As(s.Err, &se) {
				fmt.Fprintf(a.stderr, "\n%s\n", visible.Text(se.Detail()))
			} else {
				fmt.Fprintf(a.stderr, "\nserver %q: %s\n", s.Name, visible.Text(s.Err.Error()))
			}
		}
	}
}
