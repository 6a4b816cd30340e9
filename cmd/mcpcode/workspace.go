package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/servers"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"; when
// unset, the module version from the build info is used.
var version = ""

func mcpcodeVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

// connFlags are the flags of every command that connects to servers.
type connFlags struct {
	config         string
	connectTimeout time.Duration
}

func (c *connFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "config file (default: ./mcp.json, then ./.mcp.json)")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", servers.DefaultConnectTimeout, "time allowed to connect to and list one server")
}

// workspace is a loaded mcp.json and the directory around it.
type workspace struct {
	dir string // the directory holding the config
	cfg *servers.Config
}

// loadWorkspace finds and parses the config, printing its warnings.
func (a *app) loadWorkspace(configPath string) (*workspace, error) {
	if configPath == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if configPath, err = servers.FindConfig(cwd); err != nil {
			return nil, err
		}
	}
	abs, err := filepath.Abs(configPath)
	if err != nil {
		return nil, err
	}
	cfg, err := servers.LoadConfig(abs, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", w)
	}
	return &workspace{dir: filepath.Dir(abs), cfg: cfg}, nil
}

// newPool returns a connection pool for the workspace's servers.
func (a *app) newPool(w *workspace, c connFlags, onToolsChanged func(string)) *servers.Pool {
	return servers.NewPool(w.cfg, servers.PoolOptions{
		Dial:           a.dial,
		ConnectTimeout: c.connectTimeout,
		LogDir:         filepath.Join(w.dir, ".mcpcode", "logs"),
		BaseEnv:        serverBaseEnv(os.Environ()),
		ClientName:     "mcpcode",
		ClientVersion:  mcpcodeVersion(),
		OnToolsChanged: onToolsChanged,
	})
}

// serverBaseEnv picks the variables every stdio server gets from the host:
// what programs need to find executables, a home, a locale, temp files and
// proxies. Everything else (tokens, keys) must be given in the entry's "env".
func serverBaseEnv(environ []string) []string {
	keep := map[string]bool{
		"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true,
		"LANG": true, "LANGUAGE": true, "TERM": true, "TMPDIR": true, "TZ": true,
		"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true,
		"http_proxy": true, "https_proxy": true, "no_proxy": true,
		"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true,
		"SYSTEMROOT": true, "APPDATA": true, "LOCALAPPDATA": true, "USERPROFILE": true, "PATHEXT": true, "COMSPEC": true,
	}
	var out []string
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if ok && (keep[k] || strings.HasPrefix(k, "LC_") || strings.HasPrefix(k, "XDG_")) {
			out = append(out, kv)
		}
	}
	sort.Strings(out)
	return out
}

func cmdVersion(a *app, args []string) int {
	fs := a.flags("version", "", "Prints the version of mcpcode.")
	if _, code, ok := parse(fs, args); !ok {
		return code
	}
	fmt.Fprintf(a.stdout, "mcpcode %s\n", mcpcodeVersion())
	return exitOK
}
