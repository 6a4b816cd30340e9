package app

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/skills"
)

// OpenOptions say which workspace to open.
type OpenOptions struct {
	// Dir is the workspace root (--dir). Empty: the current directory, or
	// the nearest parent holding mcp.json (or .mcp.json), like git finds its
	// repository.
	Dir string
	// Config overrides the mcp.json file (--config); relative to the current
	// directory.
	Config string
	// RequireConfig makes a workspace without mcp.json an error (commands
	// that connect to servers); without it such a workspace has no servers.
	RequireConfig bool
}

// Workspace is an opened workspace: its root with the layout's paths, and
// its parsed mcp.json.
type Workspace struct {
	layout.Paths
	// Config is the parsed mcp.json; a workspace without one has an empty
	// config whose Path is where mcp.json would be.
	Config *servers.Config
	// HasConfig is false when the workspace has no mcp.json.
	HasConfig bool
	// Warnings are problems in mcp.json that did not stop loading.
	Warnings []string

	app *App
}

// Open finds and opens a workspace. Problems with the directory or the
// config are *UsageError.
func (a *App) Open(opts OpenOptions) (*Workspace, error) {
	root, configPath, err := locate(opts)
	if err != nil {
		return nil, usageErrorf(err)
	}
	if err := checkStateDir(root); err != nil {
		return nil, usageErrorf(err)
	}
	w := &Workspace{Paths: layout.Paths{Root: root}, app: a,
		Config: &servers.Config{Path: filepath.Join(root, layout.ConfigFile)}}
	if configPath == "" {
		if opts.RequireConfig {
			return nil, usageErrorf(fmt.Errorf("no %s or %s in %s%s: create one (see README: Configuration) or pass --config FILE",
				layout.ConfigFile, layout.AltConfigFile, root, map[bool]string{true: "", false: " or its parent directories"}[opts.Dir != ""]))
		}
		return w, nil
	}
	cfg, err := servers.LoadConfig(configPath, a.lookupEnv)
	if err != nil {
		return nil, usageErrorf(err)
	}
	w.Config, w.HasConfig, w.Warnings = cfg, true, cfg.Warnings
	return w, nil
}

// checkStateDir refuses a workspace whose .mcpcode/, or an entry of it
// (privacy/, audit/, serve/, ...), is a symbolic link: mcpcode would keep
// its state where the link leads, which can be the files folder that
// programs read and write (mcpcode:fs), handing them the token store's
// real values, the audit log and its key. A cloned workspace can carry
// such a link.
func checkStateDir(root string) error {
	dir := filepath.Join(root, layout.StateDir)
	st, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s/: %w", layout.StateDir, err)
	}
	refuse := func(name string) error {
		return fmt.Errorf("%s is a symbolic link or not a directory: mcpcode keeps its state (the privacy token store, the audit log and its key, "+
			"serve's secret) only in the workspace's own %s/, never through a link, which could lead to workspace/ where programs read; "+
			"remove the link (rm %s) and run again", name, layout.StateDir, name)
	}
	if !st.IsDir() {
		return refuse(layout.StateDir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("checking %s/: %w", layout.StateDir, err)
	}
	for _, e := range entries {
		if e.Type()&fs.ModeSymlink != 0 {
			return refuse(layout.StateDir + "/" + e.Name())
		}
	}
	return nil
}

// locate decides the workspace root and its config file ("" for none).
func locate(opts OpenOptions) (root, config string, err error) {
	if opts.Dir != "" {
		if root, err = filepath.Abs(opts.Dir); err != nil {
			return "", "", err
		}
		if st, err := os.Stat(root); err != nil || !st.IsDir() {
			return "", "", fmt.Errorf("--dir %s is not a directory", opts.Dir)
		}
	}
	if opts.Config != "" {
		if config, err = filepath.Abs(opts.Config); err != nil {
			return "", "", err
		}
		if root == "" {
			root = filepath.Dir(config)
		}
		return root, config, nil
	}
	if root != "" {
		return root, findConfigIn(root), nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return "", "", fmt.Errorf("finding the current directory: %w", err)
	}
	for dir := cwd; ; {
		if c := findConfigIn(dir); c != "" {
			return dir, c, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return cwd, "", nil
		}
		dir = parent
	}
}

// findConfigIn returns the config file in dir, or "".
func findConfigIn(dir string) string {
	for _, name := range layout.ConfigFiles {
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// PoolOptions tune the connection pool of a workspace.
type PoolOptions struct {
	// ConnectTimeout bounds connecting to and listing one server.
	ConnectTimeout time.Duration
	// OnToolsChanged is called when a connected server announces new tools.
	OnToolsChanged func(server string)
	// Handlers answer servers' elicitation and sampling requests (the CLI
	// asks the person in the terminal); nil declines them.
	Handlers *ClientHandlers
}

// Pool returns a pool of connections to the workspace's servers; nothing is
// connected until used. The caller closes it.
func (w *Workspace) Pool(o PoolOptions) *servers.Pool { return w.pool(o, w.app.Login) }

// pool is Pool with the given way to log in (nil: none).
func (w *Workspace) pool(o PoolOptions, login *servers.LoginOptions) *servers.Pool {
	return servers.NewPool(w.Config, servers.PoolOptions{
		Dial:           w.app.Dial,
		ConnectTimeout: o.ConnectTimeout,
		LogDir:         w.Logs(),
		BaseEnv:        BaseEnv(w.app.Environ),
		ClientName:     "mcpcode",
		ClientVersion:  w.app.Version,
		OnToolsChanged: o.OnToolsChanged,
		Handlers:       o.Handlers,
		DefaultRoots:   []string{w.Files()},
		Tokens:         w.app.tokens(),
		Login:          login,
	})
}

// SkillStore is the workspace's skills: approved, pending and dismissed.
// Proposals are untrusted programs: when the app can start workers, every
// use case that bundles one (propose, show, approve, verify) bundles it in
// a worker process; without a worker command (tests that configure none),
// in this process.
func (w *Workspace) SkillStore() skills.Workspace {
	s := skills.NewWorkspace(w.Root)
	if w.app != nil && w.app.WorkerCommand != nil {
		s.Bundle = w.app.bundleInWorker
	}
	return s
}

// Rel shows path relative to the workspace root when it lies inside it.
func (w *Workspace) Rel(path string) string { return Rel(w.Root, path) }

// Rel shows path relative to base ("./x/y") when it lies inside it.
func Rel(base, path string) string {
	if r, err := filepath.Rel(base, path); err == nil && filepath.IsLocal(r) {
		return "./" + filepath.ToSlash(r)
	}
	return path
}

// errNoWorkers is returned when worker isolation is asked for but the app
// cannot start workers.
var errNoWorkers = errors.New("worker isolation is not available: no worker command configured")

// ReadConfig reads the workspace's configuration file again, as Open read
// it (a workspace session notices edits with it).
func (w *Workspace) ReadConfig() (*servers.Config, error) {
	cfg, err := servers.LoadConfig(w.Config.Path, w.app.lookupEnv)
	if err != nil {
		return nil, usageErrorf(err)
	}
	return cfg, nil
}
