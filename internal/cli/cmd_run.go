package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/worker"
	"github.com/mcpcode/mcpcode/servers"
)

// runFlags are the flags of `mcpcode run`.
type runFlags struct {
	dir            string
	connectTimeout time.Duration
	limits         runtime.Limits
	memory         byteSize
	fsQuota        byteSize
	isolation      string
	asJSON         bool
	skill          string
	input          string
	privacy        string
	record         string
	replay         string
	noSession      bool
	check          bool
}

// byteSize is a flag value like 256MiB, 1GiB or 1048576.
type byteSize int64

func (b *byteSize) String() string { return formatBytes(int64(*b)) }

func (b *byteSize) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}, {"", 1}}
	t := strings.TrimSpace(s)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			n, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), 64)
			if err != nil || n <= 0 {
				break
			}
			return int64(n * float64(u.mult)), nil
		}
	}
	return 0, fmt.Errorf("%q is not a size: write for example 256MiB, 1GiB or 1048576", s)
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1fMiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fKiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

func cmdRun(a *cli, args []string) int {
	fs := a.flags("run", "[FILE|-] [--dir WORKSPACE] [--check] [--timeout 30s] [--max-tool-calls 500] [--memory 256MiB]\n"+
		"       [--max-output 20000] [--isolation worker|none] [--input JSON] [--privacy tokenize|off] [--json]\n"+
		"   or: mcpcode run --skill NAME --input JSON",
		"Bundles a TypeScript (or JavaScript) program and runs it sandboxed: it can import the generated\n"+
			"tree (servers/...), approved skills (skills/...), mcpcode:runtime and mcpcode:fs, and nothing\n"+
			"else of the host. Tool calls go to the servers in the workspace's mcp.json, each started only if\n"+
			"the program calls it, or to the workspace's session when one runs (mcpcode session). Prints what\n"+
			"the program logs, then its result (its default export, or what its default-exported function\n"+
			"returns) as JSON. With --check the program is first type-checked (see mcpcode check): on type\n"+
			"errors nothing runs. Exits 0 on success, 1 when the program failed, 2 on usage errors, 3 when it\n"+
			"does not type-check. Every run is recorded in .mcpcode/audit/ (see mcpcode audit).")
	d := runtime.DefaultLimits()
	rf := runFlags{limits: d, memory: byteSize(d.Memory), fsQuota: byteSize(d.FSQuota)}
	fs.StringVar(&rf.dir, "dir", "", "the workspace: the directory with mcp.json, servers/, skills/ and workspace/ (default: the current directory, or the nearest parent with mcp.json)")
	fs.DurationVar(&rf.limits.Timeout, "timeout", d.Timeout, "wall-time limit of the run")
	fs.IntVar(&rf.limits.MaxToolCalls, "max-tool-calls", d.MaxToolCalls, "most tool calls a run may make")
	fs.Var(&rf.memory, "memory", "memory limit of the run (enforced by the OS in worker isolation)")
	fs.IntVar(&rf.limits.MaxOutput, "max-output", d.MaxOutput, "most characters of output printed; the rest is cut with a marker")
	fs.IntVar(&rf.limits.MaxStackDepth, "max-stack-depth", d.MaxStackDepth, "deepest JavaScript call stack, in frames")
	fs.IntVar(&rf.limits.MaxTimers, "max-timers", d.MaxTimers, "most timers pending at once")
	fs.Var(&rf.fsQuota, "fs-quota", "most bytes a run may write under workspace/")
	fs.StringVar(&rf.isolation, "isolation", "worker", `"worker" runs in a separate process under an OS memory limit; "none" runs in this process (trusted programs, tests)`)
	fs.BoolVar(&rf.asJSON, "json", false, "print one JSON object: {ok, result, logs, error, toolCalls, stats}")
	fs.StringVar(&rf.skill, "skill", "", "run an approved skill instead of a file")
	fs.StringVar(&rf.input, "input", "", "JSON input for the program's default-exported function (or the skill)")
	fs.DurationVar(&rf.connectTimeout, "connect-timeout", servers.DefaultConnectTimeout, "time allowed to connect to one server")
	fs.StringVar(&rf.record, "record", "", "write every tool call and result of the run, with its input and result, to FILE (a recording a skill proposal can carry as an example; it holds the real data)")
	fs.StringVar(&rf.replay, "replay", "", "answer the run's tool calls from a recording FILE (mcpcode run --record) instead of any server; a call not in it is an error")
	fs.BoolVar(&rf.noSession, "no-session", false, "start the servers the program calls even when a session runs for the workspace (mcpcode session)")
	fs.BoolVar(&rf.check, "check", false, "type-check the program against the tree first (mcpcode check); on type errors nothing runs (exit 3)")
	fs.StringVar(&rf.privacy, "privacy", "", `"tokenize" shows emails, phones, names, cards, IBANs and IPs as tokens such as [EMAIL_1] and sends tool calls the real values; "off"; default: mcp.json's "privacy" mode, else off`)
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	rf.limits.Memory, rf.limits.FSQuota = int64(rf.memory), int64(rf.fsQuota)
	if rf.isolation != "worker" && rf.isolation != "none" {
		return a.usageError("run", "--isolation %q: use worker or none", rf.isolation)
	}
	if rf.limits.Timeout <= 0 || rf.limits.MaxToolCalls < 1 || rf.limits.MaxOutput < 1 || rf.limits.MaxStackDepth < 1 || rf.limits.MaxTimers < 1 {
		return a.usageError("run", "--timeout must be positive, and --max-tool-calls, --max-output, --max-stack-depth and --max-timers at least 1")
	}
	var input json.RawMessage
	if rf.input != "" {
		if !json.Valid([]byte(rf.input)) {
			return a.usageError("run", "--input is not valid JSON: %s", truncate(rf.input, 80))
		}
		input = json.RawMessage(rf.input)
	}
	switch {
	case rf.skill != "" && len(rest) > 0:
		return a.usageError("run", "give either a FILE or --skill NAME, not both")
	case rf.skill == "" && len(rest) != 1:
		return a.usageError("run", "give one program: a FILE, or - to read it from stdin")
	}
	if rf.privacy != "" && rf.privacy != app.PrivacyTokenize && rf.privacy != app.PrivacyOff {
		return a.usageError("run", "--privacy %q: use tokenize or off", rf.privacy)
	}
	req := app.RunRequest{Skill: rf.skill, Input: input, Limits: rf.limits, Isolation: rf.isolation, ConnectTimeout: rf.connectTimeout,
		Privacy: rf.privacy, ReplayFile: rf.replay, RecordFile: rf.record, NoSession: rf.noSession,
		Warn:    func(msg string) { fmt.Fprintf(a.stderr, "mcpcode run: warning: %s\n", visible.Text(msg)) },
		OneShot: true} // this process ends with the run
	if rf.check {
		req.Check = app.CheckOn
	}
	switch {
	case rf.skill != "":
	case rest[0] == "-":
		src, err := io.ReadAll(a.stdin)
		if err != nil {
			return a.fail("run", fmt.Errorf("reading the program from stdin: %w", err))
		}
		req.Source = src
	default:
		req.File = rest[0]
	}
	req.Handlers = a.clientHandlers() // servers' questions: asked in the terminal, else declined
	ws, err := a.openWith(app.OpenOptions{Dir: rf.dir})
	if err != nil {
		return a.configError("run", err)
	}
	a.app.Login = a.loginOptions() // a server asking for a login: the browser, if one can be shown
	res, err := ws.Run(a.ctx, req)
	if err != nil {
		if app.IsUsage(err) {
			return a.usageError("run", "%v", err)
		}
		return a.fail("run", err)
	}
	return a.printRunResult(res, rf)
}

func cmdWorker(a *cli, args []string) int {
	if err := worker.Serve(a.ctx, a.stdin, a.stdout, worker.ServeOptions{Skills: app.SkillPolicy}); err != nil {
		fmt.Fprintf(a.stderr, "mcpcode worker: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// printRunResult prints the program's output and result (cut at
// --max-output) and returns the exit code.
func (a *cli) printRunResult(res *runtime.Result, rf runFlags) int {
	code := exitOK
	switch {
	case res.Error != nil && res.Error.Kind == runtime.KindTypeCheck:
		code = exitTypeErrors
	case !res.OK:
		code = exitFailure
	}
	if rf.asJSON {
		writeJSON(a.stdout, res)
		return code
	}
	// The program's words, shown visibly: no escape sequence it logs or
	// returns acts on the terminal.
	a.stdout.Write([]byte(visible.Text(cutOutput(app.RunOutput(res), rf.limits.MaxOutput))))
	fmt.Fprint(a.stderr, visible.Text(app.RunErrorText(res)))
	return code
}

// cutOutput keeps the first max characters of s and says how many were cut.
func cutOutput(s string, max int) string {
	if max <= 0 || len(s) <= max { // no more characters than bytes
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			rest := utf8.RuneCountInString(s[i:])
			word := "characters"
			if rest == 1 {
				word = "character"
			}
			return s[:i] + fmt.Sprintf("\n[… %d more %s omitted (--max-output %d)]\n", rest, word, max)
		}
		n++
	}
	return s
}
