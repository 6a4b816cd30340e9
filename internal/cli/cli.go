package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/hugeheap"
	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/internal/workerstart"
	"github.com/mcpcode/mcpcode/runtime/worker"
)

// Exit codes, documented in the README and in `mcpcode -h`.
const (
	exitOK      = 0
	exitFailure = 1 // the work failed (a server, a program, a check)
	exitUsage   = 2 // bad flags, arguments or configuration
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
	// rawStderr is the stream under stderr's escaping writer, for telling
	// whether it is a terminal (nil: stderr is not wrapped).
	rawStderr io.Writer
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
		{name: "skills", summary: "propose, review, approve and verify skills", run: cmdSkills},
		{name: "serve", summary: "serve the workspace to agent hosts as one MCP server (stdio or HTTP)", run: cmdServe},
		{name: "audit", summary: "show the recorded runs and their tool calls", run: cmdAudit},
		{name: "privacy", summary: "show or clear the privacy token store", run: cmdPrivacy},
		{name: "demo-server", summary: "serve a built-in demo MCP server over stdio", run: cmdDemoServer},
		{name: "version", summary: "print the version", run: cmdVersion},
		{name: workerstart.Arg, summary: "run one program as a worker process (internal)", hidden: true, rawStreams: true, run: cmdWorker},
	}
}

// Main runs the CLI with the given arguments (without the program name) and
// returns the process exit code. It is the only place that reads the
// process's environment and signals.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 1 && args[0] == workerstart.RunnerArg {
		// A warm runner: the command line and the process's standard
		// streams come with the run the broker hands it, whose client
		// exits as soon as the command's code is known; the cleanup after
		// it (stopping the worker, sending traces) is this process's own.
		return workerstart.ServeRunner(func(args []string, done func(code int)) int {
			return main(args, os.Stdin, os.Stdout, os.Stderr, done)
		}, warmRunner, worker.SendWarmUp)
	}
	if len(args) == 3 && args[0] == workerstart.BrokerArg {
		// The broker, before anything changes its signal dispositions:
		// SIGINT's (ignored in a script's background job) is part of the
		// context it serves, so only SIGTERM is caught.
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := workerstart.ServeBroker(ctx, args[1], args[2]); err != nil {
			fmt.Fprintf(stderr, "mcpcode broker: %v\n", err)
			return exitFailure
		}
		return exitOK
	}
	return main(args, stdin, stdout, stderr, nil)
}

// runHugeHeapBytes is the heap a warm runner reserves for huge pages
// (internal/hugeheap, used once a server sends a line of a megabyte or
// more): a result's line is read in pieces and joined, twice its size, and
// with --isolation none its values are built here too.
const runHugeHeapBytes = 64 << 20

// warmRunner runs a tiny program in a temporary workspace of its own, as
// the run a warm runner will be given runs, so that the run finds this
// process's code, caches and threads warm (about 3 ms of a 30 ms run on a
// small virtual machine). The runner has an empty environment and no
// secret yet; nothing of the warm-up's workspace is kept.
func warmRunner() {
	// Its run may read a large tool result: onto huge pages, in room
	// reserved while the heap is fresh (internal/hugeheap). A process
	// started for one run does without: the reservation's early garbage
	// collection would cost every run about 5 ms of its start-up.
	hugeheap.Reserve(runHugeHeapBytes)
	dir, err := os.MkdirTemp("", "mcpcode-warm-")
	if err != nil {
		return
	}
	defer os.RemoveAll(dir)
	entry := filepath.Join(dir, "warm.ts")
	if os.WriteFile(filepath.Join(dir, layout.ConfigFile), []byte(`{"mcpServers":{}}`), 0o600) != nil ||
		os.WriteFile(entry, []byte("console.log(JSON.stringify({ warm: [1, 2, 3].map((x) => x * 2) }));\n"), 0o600) != nil {
		return
	}
	main([]string{"run", "--dir", dir, entry}, strings.NewReader(""), io.Discard, io.Discard, nil)
}

// main runs the command line args and calls done, when not nil, with the
// exit code as soon as it is known, before the cleanup.
func main(args []string, stdin io.Reader, stdout, stderr io.Writer, done func(code int)) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	a := &cli{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, app: &app.App{
		Environ:       os.Environ(),
		Version:       mcpcodeVersion(),
		WorkerCommand: workerCommandLine,
		AdoptWorker:   workerstart.Take,
		TokenDir:      tokenDir(),
	}}
	defer workerstart.StartBroker() // last: for the next run, when this one found no broker
	defer workerstart.Discard()     // after Close: a worker started early that no run took
	defer a.app.Close()
	code := a.main(args)
	if done != nil {
		done(code)
	}
	return code
}

// workerCommandLine re-executes this binary as a worker process.
func workerCommandLine() *exec.Cmd { return exec.Command(workerstart.Executable(), workerstart.Arg) }

// main dispatches to a command. Everything a command prints goes through
// an escaping writer (visible.Writer): text from servers and programs
// cannot act on the person's terminal, whichever command prints it and
// however it forgot to escape it. Only the commands whose streams are a
// protocol between mcpcode's own processes (rawStreams) get them as they
// are.
func (a *cli) main(args []string) int {
	if len(args) > 0 {
		for _, c := range commands() {
			if c.name == args[0] && c.rawStreams {
				return c.run(a, args[1:])
			}
		}
	}
	p := a.forPerson()
	defer p.flush()
	return p.dispatch(args)
}

// forPerson returns the cli with stdout and stderr escaped.
func (a *cli) forPerson() *cli {
	p := *a
	p.stdout, p.stderr, p.rawStderr = visible.NewWriter(a.stdout), visible.NewWriter(a.stderr), a.stderr
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

// dispatch runs the command args name.
func (a *cli) dispatch(args []string) int {
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
	fmt.Fprintln(w, "Exit codes: 0 ok, 1 failure, 2 usage or configuration error.")
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
	fmt.Fprintf(a.stderr, "mcpcode %s: %s\n", cmd, fmt.Sprintf(format, args...))
	fmt.Fprintf(a.stderr, "Run \"mcpcode %s -h\" for usage.\n", cmd)
	return exitUsage
}

// configError prints a problem opening the workspace and returns the usage
// exit code when it is one (a missing or broken mcp.json), else failure.
func (a *cli) configError(cmd string, err error) int {
	fmt.Fprintf(a.stderr, "mcpcode %s: %s\n", cmd, err)
	if app.IsUsage(err) {
		return exitUsage
	}
	return exitFailure
}

// fail prints an error of a command and returns the failure exit code.
func (a *cli) fail(cmd string, err error) int {
	fmt.Fprintf(a.stderr, "mcpcode %s: %s\n", cmd, indentRest(err.Error()))
	return exitFailure
}

// indentRest indents every line but the first, so multi-line messages stay
// readable under their prefix.
func indentRest(s string) string {
	return strings.ReplaceAll(s, "\n", "\n  ")
}
