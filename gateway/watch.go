package gateway

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// watchDebounce groups the bursts of events one approval or one gen makes.
const watchDebounce = 150 * time.Millisecond

// Watch keeps the served skills and resources in line with the workspace
// until ctx ends: approving, dismissing or editing a skill, or regenerating
// the tree, changes what is served and notifies the connected clients
// (notifications/tools/list_changed, notifications/resources/list_changed).
// It returns when ctx ends, or at once with the error that kept it from
// starting.
func (g *Gateway) Watch(ctx context.Context, ready func()) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer w.Close()
	watched := map[string]bool{}
	// addDirs watches the root, skills/ and each skill's directory, and
	// .mcpcode/ (the manifest is replaced by a rename when gen runs).
	addDirs := func() {
		dirs := []string{g.ws.Root, g.ws.Skills(), g.ws.State()}
		if entries, err := os.ReadDir(g.ws.Skills()); err == nil {
			for _, e := range entries {
				if e.IsDir() {
					dirs = append(dirs, filepath.Join(g.ws.Skills(), e.Name()))
				}
			}
		}
		for _, d := range dirs {
			if watched[d] {
				continue
			}
			if err := w.Add(d); err == nil {
				watched[d] = true
			}
		}
	}
	addDirs()
	if ready != nil {
		ready()
	}
	var timer <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case _, ok := <-w.Events:
			if !ok {
				return nil
			}
			timer = time.After(watchDebounce)
		case err, ok := <-w.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				timer = time.After(watchDebounce)
			}
		case <-timer:
			timer = nil
			addDirs()
			if err := g.Sync(); err != nil {
				g.log.Warn("syncing skills and resources", "error", err)
			}
		}
	}
}

// syncOnList makes every tools/list and resources/list see the workspace as
// it is now, also where file events do not arrive (a shared volume, or
// replicas that did not see the change).
func (g *Gateway) syncOnList(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list":
			if err := g.syncSkills(); err != nil {
				g.log.Warn("syncing skills", "error", err)
			}
		case "resources/list":
			if g.opts.Tools != ToolsCode {
				break
			}
			if err := g.syncResources(); err != nil {
				g.log.Warn("syncing resources", "error", err)
			}
		}
		return next(ctx, method, req)
	}
}
