package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/fsnotify/fsnotify"
)

// watchDebounce groups the bursts of events one save produces.
const watchDebounce = 300 * time.Millisecond

// watchGen generates, then regenerates whenever mcp.json changes (all
// servers) or a connected server announces that its tools changed (that
// server only), until Ctrl-C.
func (a *app) watchGen(ws *workspace, gf genFlags) int {
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		return a.fail("gen", fmt.Errorf("starting the file watcher: %w", err))
	}
	defer watcher.Close()
	// Editors save by writing a new file and renaming it over the old one,
	// which a watch on the file itself would lose: watch its directory.
	cfgPath := ws.cfg.Path
	if err := watcher.Add(filepath.Dir(cfgPath)); err != nil {
		return a.fail("gen", fmt.Errorf("watching %s: %w", filepath.Dir(cfgPath), err))
	}

	toolsChanged := make(chan string, 16)
	onChange := func(server string) {
		select {
		case toolsChanged <- server:
		default: // a regeneration is already queued
		}
	}
	pool := a.newPool(ws, gf.conn, onChange)
	defer func() { pool.Close() }()

	regenerate := func(only []string) {
		rep, err := a.generate(ws, pool, gf, only)
		if err != nil {
			fmt.Fprintf(a.stderr, "mcpcode gen: %s\n", indentRest(err.Error()))
			return
		}
		a.reportGen(a.stdout, rep, gf.asJSON)
	}
	regenerate(gf.only)
	fmt.Fprintf(a.stderr, "Watching %s and the servers' tool lists; Ctrl-C stops.\n", rel(ws.dir, cfgPath))

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
		case <-a.ctx.Done():
			fmt.Fprintln(a.stderr, "Stopped watching.")
			return exitOK
		case ev, ok := <-watcher.Events:
			if !ok {
				return exitOK
			}
			if filepath.Clean(ev.Name) == filepath.Clean(cfgPath) && ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename|fsnotify.Remove) != 0 {
				configDirty = true
				arm()
			}
		case err, ok := <-watcher.Errors:
			if !ok {
				return exitOK
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: assume the config changed.
				configDirty = true
				arm()
				continue
			}
			fmt.Fprintf(a.stderr, "warning: file watcher: %v\n", err)
		case server := <-toolsChanged:
			changedTools[server] = true
			arm()
		case <-timerC:
			timerC = nil
			if configDirty {
				configDirty = false
				clear(changedTools)
				fmt.Fprintf(a.stderr, "\n%s changed: reloading and regenerating\n", rel(ws.dir, cfgPath))
				next, err := a.loadWorkspace(cfgPath)
				if err != nil {
					fmt.Fprintf(a.stderr, "mcpcode gen: %s\n(keeping the previous configuration until the file is fixed)\n", err)
					continue
				}
				pool.Close()
				ws = next
				pool = a.newPool(ws, gf.conn, onChange)
				regenerate(presentServers(ws, gf.only))
				continue
			}
			var names []string
			for s := range changedTools {
				if _, err := pool.Relist(a.ctx, s); err != nil {
					fmt.Fprintf(a.stderr, "%s: listing its changed tools failed: %s\n", s, errorReason(err))
				}
				names = append(names, s)
			}
			clear(changedTools)
			sort.Strings(names)
			fmt.Fprintf(a.stderr, "\n%v: tools changed: regenerating\n", names)
			regenerate(names)
		}
	}
}

// presentServers keeps the names of only that the config still has; with
// none asked for, every server is regenerated.
func presentServers(ws *workspace, only []string) []string {
	var out []string
	for _, n := range only {
		if _, ok := ws.cfg.Server(n); ok {
			out = append(out, n)
		}
	}
	if len(only) > 0 && len(out) == 0 {
		return ws.cfg.Names()
	}
	return out
}
