package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/servers"
)

// genFlags are the flags of `mcpcode gen`.
type genFlags struct {
	conn    connFlags
	out     string
	only    []string
	asJSON  bool
	watch   bool
	verbose bool
}

func cmdGen(a *app, args []string) int {
	fs := a.flags("gen", "[--config FILE] [--out DIR] [--server NAME]... [--json] [--watch]",
		"Connects to the servers in mcp.json and writes the typed TypeScript tree: one file per tool\n"+
			"(servers/<server>/<tool>.ts), an index.ts per server, README.md, mcpcode.d.ts and tsconfig.json.\n"+
			"Unchanged files are not rewritten; files of removed tools are deleted; files gen does not own are\n"+
			"never touched. A server that fails keeps its previous directory exactly as it was, and gen exits 1\n"+
			"after regenerating the others.")
	var gf genFlags
	gf.conn.register(fs)
	fs.StringVar(&gf.out, "out", "", "output directory (default: servers/ next to the config file)")
	fs.Func("server", "regenerate only this server (repeatable); the others are kept as they are", func(s string) error {
		gf.only = append(gf.only, s)
		return nil
	})
	fs.BoolVar(&gf.asJSON, "json", false, "print the summary as JSON")
	fs.BoolVar(&gf.watch, "watch", false, "keep running: regenerate when mcp.json changes or a server says its tools changed")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("gen", "unexpected argument %q (to pick servers use --server NAME)", rest[0])
	}
	ws, err := a.loadWorkspace(gf.conn.config)
	if err != nil {
		fmt.Fprintf(a.stderr, "mcpcode gen: %s\n", err)
		return exitUsage
	}
	for _, n := range gf.only {
		if _, ok := ws.cfg.Server(n); !ok {
			return a.usageError("gen", "--server %q: no enabled server of that name in %s (servers: %s)", n, ws.cfg.Path, strings.Join(ws.cfg.Names(), ", "))
		}
	}
	if gf.watch {
		return a.watchGen(ws, gf)
	}
	pool := a.newPool(ws, gf.conn, nil)
	defer pool.Close()
	rep, err := a.generate(ws, pool, gf, gf.only)
	if err != nil {
		return a.fail("gen", err)
	}
	a.reportGen(a.stdout, rep, gf.asJSON)
	return rep.exitCode()
}

// genTarget is where a workspace's tree and manifest go.
func (w *workspace) genTarget(out string) (outDir, manifest string) {
	outDir = out
	if outDir == "" {
		outDir = filepath.Join(w.dir, "servers")
	}
	outDir, _ = filepath.Abs(outDir)
	return outDir, filepath.Join(filepath.Dir(outDir), ".mcpcode", "manifest.json")
}

// genReport is the outcome of one generation.
type genReport struct {
	OutDir   string                `json:"outDir"`
	Servers  []genServerReport     `json:"servers"`
	Root     generator.FileChanges `json:"root"`
	Warnings []string              `json:"warnings,omitempty"`
	summary  *generator.Summary
}

type genServerReport struct {
	Name      string   `json:"name"`
	Status    string   `json:"status"` // "generated", "failed", "kept", "removed"
	Error     string   `json:"error,omitempty"`
	Tools     int      `json:"tools"`
	Added     []string `json:"added"`
	Changed   []string `json:"changed"`
	Removed   []string `json:"removed"`
	Unchanged []string `json:"unchanged"`
	Written   []string `json:"filesWritten"`
	Deleted   []string `json:"filesRemoved"`
	err       error
}

func (r *genReport) exitCode() int {
	for _, s := range r.Servers {
		if s.Status == "failed" {
			return exitFailure
		}
	}
	return exitOK
}

// generate lists the servers (all enabled ones, or only those named) and
// writes the tree. Servers that fail, servers not selected and disabled
// servers keep their previous files; servers no longer in the config are
// removed. Progress goes to stderr unless JSON is asked for.
func (a *app) generate(ws *workspace, pool *servers.Pool, gf genFlags, only []string) (*genReport, error) {
	outDir, manifestPath := ws.genTarget(gf.out)
	unlock, err := lockFile(filepath.Join(filepath.Dir(manifestPath), "gen.lock"), a.stderr)
	if err != nil {
		return nil, err
	}
	defer unlock()
	prev, err := generator.ReadManifest(manifestPath)
	if errors.Is(err, fs.ErrNotExist) {
		prev, err = &generator.Manifest{Version: generator.ManifestVersion}, nil
	}
	if err != nil {
		return nil, err
	}
	names := only
	if len(names) == 0 {
		names = ws.cfg.Names()
	}
	progress := a.stderr
	if gf.asJSON {
		progress = io.Discard
	}
	fmt.Fprintf(progress, "Listing tools of %s (from %s)\n", plural(len(names), "server"), rel(ws.dir, ws.cfg.Path))
	var mu sync.Mutex
	statuses := pool.ConnectAll(a.ctx, names, func(st servers.Status) {
		mu.Lock()
		defer mu.Unlock()
		if st.Err != nil {
			fmt.Fprintf(progress, "  %-16s failed: %s\n", st.Name, errorReason(st.Err))
			return
		}
		fmt.Fprintf(progress, "  %-16s listed %s in %s\n", st.Name, plural(len(st.Listing.Tools), "tool"), roundDuration(st.Listing.ConnectTime))
	})

	var listed []generator.Server
	var keep []string
	failed := map[string]error{}
	for _, st := range statuses {
		if st.Err != nil {
			failed[st.Name] = st.Err
			keep = append(keep, st.Name)
			continue
		}
		l := st.Listing
		listed = append(listed, generator.Server{
			Name:         l.Server,
			Info:         generator.ServerInfo{Name: l.ServerName, Title: l.ServerTitle, Version: l.ServerVersion},
			Instructions: l.Instructions,
			Tools:        l.RawTools(),
		})
	}
	for _, s := range prev.Servers {
		_, configured := ws.cfg.Server(s.Name)
		disabled := slices.Contains(ws.cfg.Disabled, s.Name)
		if (configured && !slices.Contains(names, s.Name)) || disabled {
			keep = append(keep, s.Name)
		}
	}
	plan, err := generator.Generate(listed, generator.Options{Kept: prev.Keep(keep...)})
	if err != nil {
		return nil, err
	}
	sum, err := generator.Write(outDir, manifestPath, plan)
	if err != nil {
		return nil, err
	}
	rep := &genReport{OutDir: outDir, Root: sum.Root, summary: sum}
	for _, w := range plan.Warnings {
		rep.Warnings = append(rep.Warnings, w.String())
	}
	for _, s := range sum.Servers {
		r := genServerReport{Name: s.Name, Status: "generated", Added: nonNilStrings(s.ToolsAdded), Changed: nonNilStrings(s.ToolsChanged),
			Removed: nonNilStrings(s.ToolsRemoved), Unchanged: nonNilStrings(s.ToolsUnchanged), Written: nonNilStrings(s.Files.Written), Deleted: nonNilStrings(s.Files.Removed)}
		r.Tools = len(s.ToolsAdded) + len(s.ToolsChanged) + len(s.ToolsUnchanged)
		switch {
		case failed[s.Name] != nil:
			r.Status, r.err, r.Error = "failed", failed[s.Name], errorReason(failed[s.Name])
		case s.Kept:
			r.Status = "kept"
		case s.Removed:
			r.Status = "removed"
		}
		if s.Kept {
			if e, ok := plan.Manifest.Server(s.Name); ok {
				r.Tools = e.ToolCount
			}
		}
		rep.Servers = append(rep.Servers, r)
	}
	// A server that failed and never had a tree is not in the summary.
	for _, st := range statuses {
		if st.Err != nil && !slices.ContainsFunc(rep.Servers, func(r genServerReport) bool { return r.Name == st.Name }) {
			rep.Servers = append(rep.Servers, genServerReport{Name: st.Name, Status: "failed", err: st.Err, Error: errorReason(st.Err),
				Added: []string{}, Changed: []string{}, Removed: []string{}, Unchanged: []string{}, Written: []string{}, Deleted: []string{}})
		}
	}
	slices.SortFunc(rep.Servers, func(x, y genServerReport) int { return strings.Compare(x.Name, y.Name) })
	return rep, nil
}

// reportGen prints the summary of a generation.
func (a *app) reportGen(w io.Writer, rep *genReport, asJSON bool) {
	if asJSON {
		writeJSON(w, rep)
		return
	}
	written := len(rep.Root.Written)
	for _, s := range rep.Servers {
		written += len(s.Written)
	}
	fmt.Fprintf(w, "Wrote %s (%s written, the rest unchanged)\n", rep.OutDir, plural(written, "file"))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATUS\tTOOLS\tADDED\tCHANGED\tREMOVED\tUNCHANGED\tFILES WRITTEN")
	for _, s := range rep.Servers {
		status := s.Status
		if s.Status == "failed" {
			status = "failed (previous files kept)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\n", s.Name, status, s.Tools, len(s.Added), len(s.Changed), len(s.Removed), len(s.Unchanged), len(s.Written))
	}
	tw.Flush()
	for _, w := range rep.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", w)
	}
	for _, s := range rep.Servers {
		if s.err != nil {
			var se *servers.ServerError
			if errors.As(s.err, &se) {
				fmt.Fprintf(a.stderr, "\n%s\n", se.Detail())
			} else {
				fmt.Fprintf(a.stderr, "\nserver %q: %v\n", s.Name, s.err)
			}
		}
	}
}
