package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/runtime/worker"
)

// Exit codes, documented in the README and in `mcpcode -h`.
const (
	exitOK      = 0
	exitFailure = 1 // the work failed (a server, a program, a check)
	exitUsage   = 2 // bad flags, arguments or configuration
	// exitTypeErrors: the program does not type-check (check, run --check,
	// skills propose); nothing of it ran.
	exitTypeErrors = 3
)

// cli carries what every command needs: its streams, a context that ends
// on Ctrl-C, and the application layer that does the work. Every command is
// flags → one app call → rendering.
type cli struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	app    *app.App
	// rawStderr and rawStdout are the streams under the escaping writers,
	// for telling whether they are terminals (nil: not wrapped).
	rawStderr, rawStdout io.Writer
}

type command struct {
	name    string
	summary string
	hidden  bool
	// rawStreams marks a command whose streams are a protocol between
	// mcpcode's own processes, not text for a person: they are not
	// escaped (see main).
	rawStreams bool
	run        func(a *cli, args []string) int
}

// commands in the order `mcpcode -h` shows them.
func commands() []command {
	return []command{
		{name: "demo", summary: "write a demo workspace and show the whole tool working on it", run: cmdDemo},
		{name: "init", summary: "make a workspace, importing the MCP servers of a host's configuration", run: cmdInit},
		{name: "servers", summary: "connect to the servers in mcp.json and show their status", run: cmdServers},
		{name: "auth", summary: "log in to a server that asks for OAuth authorization (or --logout)", run: cmdAuth},
		{name: "tools", summary: "list the tools of the servers", run: cmdTools},
		{name: "gen", summary: "generate the typed TypeScript tree (servers/) from the servers", run: cmdGen},
		{name: "run", summary: "run a TypeScript program against the tree, sandboxed", run: cmdRun},
		{name: "check", summary: "type-check a program against the tree without running it", run: cmdCheck},
		{name: "skills", summary: "propose, review, approve and verify skills", run: cmdSkills},
		{name: "session", summary: "keep a workspace's servers running between runs: start, status, stop", run: cmdSession},
		{name: "serve", summary: "serve the workspace to agent hosts as one MCP server (stdio or HTTP)", run: cmdServe},
		{name: "audit", summary: "show the recorded runs and their tool calls", run: cmdAudit},
		{name: "privacy", summary: "show or clear the privacy token store", run: cmdPrivacy},
		{name: "demo-server", summary: "serve a built-in demo MCP server over stdio", run: cmdDemoServer},
		{name: "version", summary: "print the version", run: cmdVersion},
		{name: worker.Arg, summary: "run one program as a worker process (internal)", hidden: true, rawStreams: true, run: cmdWorker},
	}
}

// Main runs the CLI with the given arguments (without the program name) and
// returns the process exit code. It and the commands it calls are the only
// code that reads the process's environment, signals and command line.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, app: &app.App{
		Environ:        os.Environ(),
		Version:        mcpcodeVersion(),
		WorkerCommand:  worker.Command,
		SessionCommand: sessionCommand,
		TokenDir:       tokenDir(),
	}}
	defer a.app.Close()
	return a.dispatch(args)
}

// dispatch runs the command args names. Everything a command prints goes
// through an escaping writer (visible.Writer): text from servers and
// programs cannot act on the person's terminal, whichever command prints
// it and however it forgot to escape it. Only the commands whose streams are a
// protocol between mcpcode's own processes (rawStreams) get them as they
// are.
func (a *cli) dispatch(args []string) int {
	if len(args) > 0 {
		for _, c := range commands() {
			if c.name == args[0] && c.rawStreams {
				return c.run(a, args[1:])
			}
		}
	}
	p := a.forPerson()
	defer p.flush()
	return p.runCommand(args)
}

// forPerson returns the cli with stdout and stderr escaped.
func (a *cli) forPerson() *cli {
	p := *a
	p.stdout, p.stderr, p.rawStderr, p.rawStdout = visible.NewWriter(a.stdout), visible.NewWriter(a.stderr), a.stderr, a.stdout
	return &p
}

// flush writes what the escaping writers hold of a character cut short.
func (a *cli) flush() {
	for _, w := range []io.Writer{a.stdout, a.stderr} {
		if v, ok := w.(*visible.Writer); ok {
			_ = v.Flush()
		}
	}
}

// terminal is the stream stderr writes to, for telling whether it is a
// terminal.
func (a *cli) terminal() io.Writer {
	if a.rawStderr != nil {
		return a.rawStderr
	}
	return a.stderr
}

// stdoutWidth is the width of the terminal stdout writes to (0 when it is
// not a terminal).
func (a *cli) stdoutWidth() int {
	out := a.rawStdout
	if out == nil {
		out = a.stdout
	}
	if f, ok := out.(*os.File); ok {
		return terminalWidth(f)
	}
	return 0
}

// runCommand runs the command args names, with the streams as they are.
func (a *cli) runCommand(args []string) int {
	stdout, stderr := a.stdout, a.stderr
	if len(args) == 0 {
		a.usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		a.usage(stdout)
		return exitOK
	case "--version", "-version":
		name = "version"
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(a, args[1:])
		}
	}
	fmt.Fprintf(stderr, "mcpcode: unknown command %q\n", name)
	a.usage(stderr)
	return exitUsage
}

func (a *cli) usage(w io.Writer) {
	fmt.Fprintln(w, "mcpcode turns MCP servers into a typed TypeScript API and runs agents' programs against it.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: mcpcode <command> [flags] [arguments]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintf(w, "  %-12s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, `Run "mcpcode <command> -h" for the flags of a command.`)
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 failure, 2 usage or configuration error, 3 the program does not type-check.")
}

// flags returns a flag set whose -h prints the command's usage line, its
// description and its flags.
func (a *cli) flags(name, usage, description string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: mcpcode %s %s\n\n%s\n", name, usage, description)
		var hasFlags bool
		fs.VisitAll(func(*flag.Flag) { hasFlags = true })
		if hasFlags {
			fmt.Fprintln(fs.Output(), "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// parse parses flags, allowing them before and after positional arguments.
// It returns the positional arguments, or an exit code when parsing ended
// the command (-h gives 0, a bad flag 2).
func parse(fs *flag.FlagSet, args []string) ([]string, int, bool) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, 0, true
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), 0, true
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// usageError prints a usage problem and returns the usage exit code.
func (a *cli) usageError(cmd, format string, args ...any) int {
	fmt.Fprintf(a.stderr, "mcpcode %s: %s\n", cmd, visible.Text(fmt.Sprintf(format, args...)))
	fmt.Fprintf(a.stderr, "Run \"mcpcode %s -h\" for usage.\n", cmd)
	return exitUsage
}

// configError prints a problem opening the workspace and returns the usage
// exit code when it is one (a missing or broken mcp.json), else failure.
func (a *cli) configError(cmd string, err error) int {
	fmt.Fprintf(a.stderr, "mcpcode %s: %s\n", cmd, visible.Text(err.Error()))
	if app.IsUsage(err) {
		return exitUsage
	}
	return exitFailure
}

// fail prints an error of a command and returns the failure exit code.
func (a *cli) fail(cmd string, err error) int {
	// Errors quote untrusted input (a program's line, a file's name, a
	// server's message): its hidden characters are shown escaped.
	fmt.Fprintf(a.stderr, "mcpcode %s: %s\n", cmd, indentRest(visible.Text(err.Error())))
	return exitFailure
}

// indentRest indents every line but the first, so multi-line messages stay
// readable under their prefix.
func indentRest(s string) string {
	return strings.ReplaceAll(s, "\n", "\n  ")
}
