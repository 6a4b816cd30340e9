package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/filelock"
	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/servers"
)

// GenOptions say what to generate and whom to tell about progress.
type GenOptions struct {
	// Out is the tree's directory; "" is servers/ in the workspace. The
	// manifest goes to .mcpcode/ next to it.
	Out string
	// Only regenerates these servers; the others keep their files.
	Only []string
	// OnLockWait is called when another gen holds the workspace's lock and
	// this one waits for it.
	OnLockWait func(lockPath string)
	// OnStart is called, once the lock is held, with the servers about to
	// be listed.
	OnStart func(names []string)
	// OnListed is called as each server is listed (or fails), from
	// concurrent goroutines.
	OnListed func(servers.Status)
	// StrictMetadata refuses a server whose tool metadata has warnings of
	// the lint (instructions aimed at the model, hidden characters): it
	// keeps its previous files, and its status is GenRefused.
	StrictMetadata bool
}

// GenReport is the outcome of one generation (`mcpcode gen --json`).
type GenReport struct {
	OutDir   string                `json:"outDir"`
	Servers  []GenServerReport     `json:"servers"`
	Root     generator.FileChanges `json:"root"`
	Warnings []string              `json:"warnings,omitempty"`
	// Findings are what the metadata lint found in the tool metadata of the
	// servers generated now (generator.Lint), one line each.
	Findings []generator.Finding `json:"findings"`
}

// GenServerReport is one server's part of a GenReport.
type GenServerReport struct {
	Name      string   `json:"name"`
	Status    string   `json:"status"` // GenGenerated, GenFailed, GenKept or GenRemoved
	Error     string   `json:"error,omitempty"`
	Tools     int      `json:"tools"`
	Added     []string `json:"added"`
	Changed   []string `json:"changed"`
	Removed   []string `json:"removed"`
	Unchanged []string `json:"unchanged"`
	Written   []string `json:"filesWritten"`
	Deleted   []string `json:"filesRemoved"`
	// NeverGenerated marks a failed server that had no files before: there
	// was nothing to keep.
	NeverGenerated bool `json:"neverGenerated,omitempty"`
	// Renamed are its new tools generated under a numbered name because
	// their plain name belongs to another tool since an earlier gen
	// (generated names never move to another tool).
	Renamed []generator.Renamed `json:"renamed,omitempty"`
	// Err is the failure of a failed server, for a detailed report.
	Err error `json:"-"`
}

// Statuses of a server in a GenReport.
const (
	GenGenerated = "generated"
	GenFailed    = "failed" // its previous files, if any, are kept
	GenKept      = "kept"   // not selected, or disabled: files kept
	GenRemoved   = "removed"
	GenRefused   = "refused" // --strict-metadata: lint warnings; previous files kept
)

// Failed reports whether any server failed or was refused.
func (r *GenReport) Failed() bool {
	return slices.ContainsFunc(r.Servers, func(s GenServerReport) bool { return s.Status == GenFailed || s.Status == GenRefused })
}

// FilesWritten counts the files written, root files included.
func (r *GenReport) FilesWritten() int {
	n := len(r.Root.Written)
	for _, s := range r.Servers {
		n += len(s.Written)
	}
	return n
}

// TreeDir is where a tree generated with out ("" for the default) goes.
func (w *Workspace) TreeDir(out string) string {
	if out == "" {
		return w.Servers()
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return out
	}
	return abs
}

// Generate lists the servers (all enabled ones, or o.Only) through pool and
// writes the tree, holding the workspace's gen lock so that two gens never
// interleave. Servers that fail, servers not selected and disabled servers
// keep their previous files; servers no longer in the config are removed.
// Failed servers are in the report, not the error: the error means nothing
// could be written.
func (w *Workspace) Generate(ctx context.Context, pool *servers.Pool, o GenOptions) (*GenReport, error) {
	outDir := w.TreeDir(o.Out)
	manifestPath := layout.ManifestFor(outDir)
	unlock, err := lockGen(layout.GenLockFor(outDir), o.OnLockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// The manifest (4 MB for 10,000 tools) is decoded while the servers
	// are listed, which is mostly waiting for them; a manifest that cannot
	// be read fails gen once they are.
	type manifestRead struct {
		m   *generator.Manifest
		err error
	}
	read := make(chan manifestRead, 1)
	go func() {
		prev, err := generator.ReadManifest(manifestPath)
		if errors.Is(err, fs.ErrNotExist) {
			prev, err = &generator.Manifest{Version: generator.ManifestVersion}, nil
		}
		read <- manifestRead{prev, err}
	}()
	names := o.Only
	if len(names) == 0 {
		names = w.Config.Names()
	}
	if o.OnStart != nil {
		o.OnStart(names)
	}
	statuses := pool.ConnectAll(ctx, names, o.OnListed)
	r := <-read
	if r.err != nil {
		return nil, r.err
	}
	prev := r.m

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
			Info:         generator.ServerInfo{Name: l.ServerName, Title: l.ServerTitle, Version: l.ServerVersion, Description: l.ServerDescription},
			Instructions: l.Instructions,
			Tools:        l.RawTools(),
			Parsed:       parsedTools(l),
		})
	}
	for _, s := range prev.Servers {
		_, configured := w.Config.Server(s.Name)
		disabled := slices.Contains(w.Config.Disabled, s.Name)
		if (configured && !slices.Contains(names, s.Name)) || disabled {
			keep = append(keep, s.Name)
		}
	}
	// prev's names stay their tools' (skills call those functions).
	plan, err := generator.Generate(listed, generator.Options{Kept: prev.Keep(keep...), Previous: prev})
	if err != nil {
		return nil, err
	}
	findings := plan.Findings
	refused := map[string]bool{}
	if o.StrictMetadata {
		if names := plan.ServersWithFindings(false); len(names) > 0 {
			// Generate again without the refused servers: they keep what
			// they had, as a failed server does.
			var rest []generator.Server
			for _, s := range listed {
				if slices.Contains(names, s.Name) {
					refused[s.Name] = true
					keep = append(keep, s.Name)
				} else {
					rest = append(rest, s)
				}
			}
			if plan, err = generator.Generate(rest, generator.Options{Kept: prev.Keep(keep...), Previous: prev}); err != nil {
				return nil, err
			}
		}
	}
	sum, err := generator.WriteWith(outDir, manifestPath, prev, plan) // the lock keeps prev the manifest on disk
	if err != nil {
		return nil, err
	}
	rep := &GenReport{OutDir: outDir, Root: sum.Root, Findings: findings}
	if rep.Findings == nil {
		rep.Findings = []generator.Finding{}
	}
	for _, warn := range plan.Warnings {
		rep.Warnings = append(rep.Warnings, warn.String())
	}
	for _, s := range sum.Servers {
		r := GenServerReport{Name: s.Name, Status: GenGenerated, Added: nonNil(s.ToolsAdded), Changed: nonNil(s.ToolsChanged),
			Removed: nonNil(s.ToolsRemoved), Unchanged: nonNil(s.ToolsUnchanged), Written: nonNil(s.Files.Written), Deleted: nonNil(s.Files.Removed)}
		r.Tools = len(s.ToolsAdded) + len(s.ToolsChanged) + len(s.ToolsUnchanged)
		for _, rn := range plan.Renamed {
			if rn.Server == s.Name {
				r.Renamed = append(r.Renamed, rn)
			}
		}
		switch {
		case failed[s.Name] != nil:
			r.Status, r.Err, r.Error = GenFailed, failed[s.Name], ErrorReason(failed[s.Name])
		case refused[s.Name]:
			r.Status, r.Error = GenRefused, "its tool metadata has lint warnings (see the findings); generated without --strict-metadata it would be written with the warnings in its doc comments"
		case s.Kept:
			r.Status = GenKept
		case s.Removed:
			r.Status = GenRemoved
		}
		if s.Kept {
			if e, ok := plan.Manifest.Server(s.Name); ok {
				r.Tools = e.ToolCount
			}
		}
		rep.Servers = append(rep.Servers, r)
	}
	// A server that failed (or was refused) and never had a tree is not in
	// the summary.
	for name := range refused {
		if !slices.ContainsFunc(rep.Servers, func(r GenServerReport) bool { return r.Name == name }) {
			rep.Servers = append(rep.Servers, GenServerReport{Name: name, Status: GenRefused, NeverGenerated: true,
				Error: "its tool metadata has lint warnings (see the findings)",
				Added: []string{}, Changed: []string{}, Removed: []string{}, Unchanged: []string{}, Written: []string{}, Deleted: []string{}})
		}
	}
	for _, st := range statuses {
		if st.Err != nil && !slices.ContainsFunc(rep.Servers, func(r GenServerReport) bool { return r.Name == st.Name }) {
			rep.Servers = append(rep.Servers, GenServerReport{Name: st.Name, Status: GenFailed, NeverGenerated: true, Err: st.Err, Error: ErrorReason(st.Err),
				Added: []string{}, Changed: []string{}, Removed: []string{}, Unchanged: []string{}, Written: []string{}, Deleted: []string{}})
		}
	}
	slices.SortFunc(rep.Servers, func(x, y GenServerReport) int { return strings.Compare(x.Name, y.Name) })
	return rep, nil
}

// ErrorReason is a server's error without the `server "x": ` prefix, for
// places that already name the server.
func ErrorReason(err error) string {
	var se *servers.ServerError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	return err.Error()
}

// parsedTools are the listing's tools as it parsed them, for
// generator.Server.Parsed (nil when it did not keep their warnings).
func parsedTools(l *servers.Listing) []generator.ParsedTool {
	if len(l.ToolWarnings) != len(l.Tools) {
		return nil
	}
	out := make([]generator.ParsedTool, len(l.Tools))
	for i, t := range l.Tools {
		out[i] = generator.ParsedTool{Tool: t, Warnings: l.ToolWarnings[i]}
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// lockGen takes the lock of a tree's gen (created if needed), waiting for
// another mcpcode that holds it (after telling onWait), and returns the
// function that releases it. gen holds it while it writes, so that two gens
// (say a --watch and a manual one) never interleave their writes.
func lockGen(path string, onWait func(string)) (func(), error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	return filelock.LockPath(path, 0o644, func() {
		if onWait != nil {
			onWait(path)
		}
	})
}
