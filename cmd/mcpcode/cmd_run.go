package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/skills"
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

func cmdRun(a *app, args []string) int {
	fs := a.flags("run", "[FILE|-] [--dir WORKSPACE] [--timeout 30s] [--max-tool-calls 500] [--memory 256MiB]\n"+
		"       [--max-output 20000] [--isolation worker|none] [--input JSON] [--json]\n"+
		"   or: mcpcode run --skill NAME --input JSON",
		"Bundles a TypeScript (or JavaScript) program and runs it sandboxed: it can import the generated\n"+
			"tree (servers/...), approved skills (skills/...), mcpcode:runtime and mcpcode:fs, and nothing\n"+
			"else of the host. Tool calls go to the servers in the workspace's mcp.json, each started only if\n"+
			"the program calls it. Prints what the program logs, then its result (its default export, or\n"+
			"what its default-exported function returns) as JSON. Exits 0 on success, 1 when the program\n"+
			"failed, 2 on usage errors.")
	d := runtime.DefaultLimits()
	rf := runFlags{limits: d, memory: byteSize(d.Memory), fsQuota: byteSize(d.FSQuota)}
	fs.StringVar(&rf.dir, "dir", ".", "the workspace: the directory with mcp.json, servers/, skills/ and workspace/")
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
	wsDir, err := filepath.Abs(rf.dir)
	if err != nil {
		return a.fail("run", err)
	}
	if st, err := os.Stat(wsDir); err != nil || !st.IsDir() {
		return a.usageError("run", "--dir %s is not a directory", rf.dir)
	}
	sk := skills.NewWorkspace(wsDir)

	opts := runtime.BundleOptions{Workspace: wsDir, Skills: sk.Policy()}
	switch {
	case rf.skill != "":
		if err := skills.ValidateName(rf.skill); err != nil {
			return a.usageError("run", "--skill: %v", err)
		}
		if _, err := sk.Policy().Skill(rf.skill); err != nil {
			return a.usageError("run", "%v", err)
		}
		if input == nil {
			input = json.RawMessage(`{}`)
		}
		opts.Entry = filepath.Join(wsDir, "skill:"+rf.skill+".ts")
		opts.Source = skills.RunSource(rf.skill)
	case rest[0] == "-":
		src, err := io.ReadAll(a.stdin)
		if err != nil {
			return a.fail("run", fmt.Errorf("reading the program from stdin: %w", err))
		}
		opts.Entry, opts.Source = filepath.Join(wsDir, "stdin.ts"), src
	default:
		opts.Entry, err = filepath.Abs(rest[0])
		if err != nil {
			return a.fail("run", err)
		}
		if _, err := os.Stat(opts.Entry); err != nil {
			return a.usageError("run", "cannot read the program: %v", err)
		}
	}

	prog, err := runtime.Bundle(opts)
	if err != nil {
		return a.printRunResult(runtime.BundleErrorResult(err), rf)
	}
	pool, err := a.runPool(wsDir, rf.connectTimeout)
	if err != nil {
		fmt.Fprintf(a.stderr, "mcpcode run: %s\n", err)
		return exitUsage
	}
	defer pool.Close()
	ropts := runtime.RunOptions{Workspace: wsDir, Caller: pool, Limits: rf.limits, Input: input}
	var res *runtime.Result
	if rf.isolation == "none" {
		res = runtime.Run(a.ctx, prog, ropts)
	} else {
		workers := a.workerPool()
		res = workers.Run(a.ctx, prog, ropts)
		workers.Close()
	}
	return a.printRunResult(res, rf)
}

// runPool connects to the workspace's servers lazily. A workspace without
// mcp.json can still run programs that call no tools.
func (a *app) runPool(dir string, connectTimeout time.Duration) (*servers.Pool, error) {
	cfg := &servers.Config{Path: filepath.Join(dir, "mcp.json")}
	if path, err := servers.FindConfig(dir); err == nil {
		ws, err := a.loadWorkspace(path)
		if err != nil {
			return nil, err
		}
		cfg = ws.cfg
	}
	ws := &workspace{dir: dir, cfg: cfg}
	return a.newPool(ws, connFlags{connectTimeout: connectTimeout}, nil), nil
}

// workerPool starts workers by re-executing this binary.
func (a *app) workerPool() *runtime.WorkerPool {
	if a.workers != nil {
		return a.workers()
	}
	return runtime.NewWorkerPool(runtime.WorkerOptions{Command: func() *exec.Cmd {
		exe, err := os.Executable()
		if err != nil {
			exe = os.Args[0]
		}
		return exec.Command(exe, workerCommand)
	}})
}

// workerCommand is the hidden command a worker process runs.
const workerCommand = "__worker"

func cmdWorker(a *app, args []string) int {
	if err := runtime.ServeWorker(a.ctx, a.stdin, a.stdout); err != nil {
		fmt.Fprintf(a.stderr, "mcpcode worker: %v\n", err)
		return exitFailure
	}
	return exitOK
}

// printRunResult prints the program's output and result (cut at
// --max-output) and returns the exit code.
func (a *app) printRunResult(res *runtime.Result, rf runFlags) int {
	code := exitOK
	if !res.OK {
		code = exitFailure
	}
	if rf.asJSON {
		writeJSON(a.stdout, res)
		return code
	}
	var out bytes.Buffer
	for _, l := range res.Logs {
		if l.Level != "log" && l.Level != "info" {
			fmt.Fprintf(&out, "[%s] ", l.Level)
		}
		out.WriteString(l.Text)
		out.WriteByte('\n')
	}
	if res.OK && len(res.Result) > 0 && string(res.Result) != "null" {
		var pretty bytes.Buffer
		if json.Indent(&pretty, res.Result, "", "  ") != nil {
			pretty.Reset()
			pretty.Write(res.Result)
		}
		out.WriteString(pretty.String())
		out.WriteByte('\n')
	}
	a.stdout.Write([]byte(cutOutput(out.String(), rf.limits.MaxOutput)))
	if e := res.Error; e != nil {
		switch {
		case e.Stack == "":
			fmt.Fprintf(a.stderr, "%s error: %s\n", e.Kind, indentRest(e.Message))
		case strings.HasPrefix(e.Stack, e.Message):
			// A JavaScript stack starts with the message.
			fmt.Fprintf(a.stderr, "%s error: %s\n", e.Kind, e.Stack)
		case strings.Contains(e.Stack, e.Message):
			// Bundling diagnostics: position, message, source line.
			fmt.Fprintf(a.stderr, "%s error: %s\n", e.Kind, e.Stack)
		default:
			fmt.Fprintf(a.stderr, "%s error: %s\n%s\n", e.Kind, indentRest(e.Message), e.Stack)
		}
	}
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
