package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchDebounce groups the bursts of events one save produces.
const watchDebounce = 300 * time.Millisecond

// WatchOptions configure WatchGen.
type WatchOptions struct {
	Gen            GenOptions
	ConnectTimeout time.Duration
	// OnReport receives the outcome of each generation.
	OnReport func(*GenReport, error)
	// OnNotice receives one-line notices of what the watch does and of
	// problems it survives (a broken mcp.json keeps the previous one).
	OnNotice func(string)
	// OnReload receives the warnings of a reloaded mcp.json.
	OnReload func(*Workspace)
}

// WatchGen generates, then regenerates whenever mcp.json changes (all
// servers) or a connected server announces that its tools changed (that
// server only), until ctx ends. The error says why watching could not
// start.
func (w *Workspace) WatchGen(ctx context.Context, o WatchOptions) error {
	notice := func(format string, args ...any) {
		if o.OnNotice != nil {
			o.OnNotice(fmt.Sprintf(format, args...))
		}
	}
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("starting the file watcher: %w", err)
	}
	defer watcher.Close()
	// Editors save by writing a new file and renaming it over the old one,
	// which a watch on the file itself would lose: watch its directory.
	cfgPath := w.Config.Path
	if err := watcher.Add(filepath.Dir(cfgPath)); err != nil {
		return fmt.Errorf("watching %s: %w", filepath.Dir(cfgPath), err)
	}

	toolsChanged := make(chan string, 16)
	onChange := func(server string) {
		select {
		case toolsChanged <- server:
		default: // a regeneration is already queued
		}
	}
	pool := w.Pool(PoolOptions{ConnectTimeout: o.ConnectTimeout, OnToolsChanged: onChange})
	defer func() { pool.Close() }()

	ws := w
	regenerate := func(only []string) {
		g := o.Gen
		g.Only = only
		rep, err := ws.Generate(ctx, pool, g)
		if o.OnReport != nil {
			o.OnReport(rep, err)
		}
	}
	regenerate(o.Gen.Only)
	notice("Watching %s and the servers' tool lists; Ctrl-C stops.", ws.Rel(cfgPath))

	var (
		timer        *time.Timer
		timerC       <-chan time.Time
		configDirty  bool
		changedTools = map[string]bool{}
	)
	arm := func() {
		if timer == nil {
			timer = time.NewTimer(watchDebounce)
		} else {
			timer.Reset(watchDebounce)
		}
		timerC = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			notice("Stopped watching.")
			return nil
		case ev, ok := <-watcher.Events:
			if !ok {
				return nil
			}
			if filepath.Clean(ev.Name) == filepath.Clean(cfgPath) && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) != 0 {
				configDirty = true
				arm()
			}
		case err, ok := <-watcher.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: assume the config changed.
				configDirty = true
				arm()
				continue
			}
			notice("warning: file watcher: %v", err)
		case server := <-toolsChanged:
			changedTools[server] = true
			arm()
		case <-timerC:
			timerC = nil
			if configDirty {
				configDirty = false
				clear(changedTools)
				notice("\n%s changed: reloading and regenerating", ws.Rel(cfgPath))
				next, err := ws.app.Open(OpenOptions{Dir: ws.Root, Config: cfgPath, RequireConfig: true})
				if err != nil {
					notice("mcpcode gen: %s\n(keeping the previous configuration until the file is fixed)", err)
					continue
				}
				if o.OnReload != nil {
					o.OnReload(next)
				}
				pool.Close()
				ws = next
				pool = ws.Pool(PoolOptions{ConnectTimeout: o.ConnectTimeout, OnToolsChanged: onChange})
				regenerate(presentServers(ws, o.Gen.Only))
				continue
			}
			var names []string
			for s := range changedTools {
				if _, err := pool.Relist(ctx, s); err != nil {
					notice("%s: listing its changed tools failed: %s", s, ErrorReason(err))
				}
				names = append(names, s)
			}
			clear(changedTools)
			sort.Strings(names)
			notice("\n%v: tools changed: regenerating", names)
			regenerate(names)
		}
	}
}

// presentServers keeps the names of only that the config still has; with
// none asked for, every server is regenerated.
func presentServers(ws *Workspace, only []string) []string {
	var out []string
	for _, n := range only {
		if _, ok := ws.Config.Server(n); ok {
			out = append(out, n)
		}
	}
	if len(only) > 0 && len(out) == 0 {
		return ws.Config.Names()
	}
	return out
}
