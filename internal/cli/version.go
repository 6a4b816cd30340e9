package cli

import (
	"flag"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/servers"
)

// version is set at build time with
// -ldflags "-X github.com/mcpcode/mcpcode/internal/cli.version=v1.2.3";
// when unset, the module version from the build info is used.
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

// pinnableVersion is what a workflow can install this mcpcode as: its
// release version, else the commit it was built from (when the build
// recorded one and the tree was clean), else "" .
func pinnableVersion() string {
	if v := mcpcodeVersion(); v != "devel" {
		return v
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if modified {
		return ""
	}
	return rev
}

// dirFlag is --dir, which every command that works in a workspace takes.
type dirFlag struct{ dir string }

func (d *dirFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&d.dir, "dir", "", "the workspace (default: the current directory, or the nearest parent with mcp.json)")
}

// connFlags are the flags of every command that connects to servers.
type connFlags struct {
	dirFlag
	config         string
	connectTimeout time.Duration
}

func (c *connFlags) register(fs *flag.FlagSet) {
	c.dirFlag.register(fs)
	fs.StringVar(&c.config, "config", "", "config file (default: mcp.json, then .mcp.json, in the workspace)")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", servers.DefaultConnectTimeout, "time allowed to connect to and list one server")
}

// open opens the workspace of a command that needs mcp.json, printing the
// config's warnings.
func (a *cli) open(c connFlags) (*app.Workspace, error) {
	return a.openWith(app.OpenOptions{Dir: c.dir, Config: c.config, RequireConfig: true})
}

// openWith opens a workspace, printing the config's warnings.
func (a *cli) openWith(o app.OpenOptions) (*app.Workspace, error) {
	w, err := a.app.Open(o)
	if err != nil {
		return nil, err
	}
	a.printWarnings(w.Warnings)
	return w, nil
}

func (a *cli) printWarnings(warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(a.stderr, "warning: %s\n", visible.Text(w))
	}
}

func cmdVersion(a *cli, args []string) int {
	fs := a.flags("version", "", "Prints the version of mcpcode.")
	if _, code, ok := parse(fs, args); !ok {
		return code
	}
	fmt.Fprintf(a.stdout, "mcpcode %s\n", mcpcodeVersion())
	return exitOK
}
