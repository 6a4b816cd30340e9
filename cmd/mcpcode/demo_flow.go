package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mcpcode/mcpcode/examples"
	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/servers/demo"
	"github.com/mcpcode/mcpcode/skills"
)

// demoPrograms are run by the demo, in this order (files of
// examples/demo/programs).
var demoPrograms = []string{"pending-orders.ts", "transcript-to-lead.ts", "wait-for-deployment.ts", "save-orders-csv.ts", "summarize-orders-csv.ts"}

// The demo skill.
const (
	demoSkill            = "pending-orders"
	demoSkillProgram     = "pending-orders-skill.ts"
	demoSkillSchema      = "pending-orders.schema.json"
	demoSkillDescription = "Lists the orders of the order sheet in one status (pending by default) with the customers' names, emails and phones."
	demoSkillRationale   = "Sales asks for the pending orders every Monday; as a skill the filter is written and reviewed once."
)

func cmdDemo(a *app, args []string) int {
	fs := a.flags("demo", "[--dir DIR]",
		"Writes a demo workspace whose mcp.json starts the three built-in demo servers (google-drive,\n"+
			"salesforce, slack: synthetic data, no accounts), then shows the whole tool on it: the servers\n"+
			"connected, the typed tree generated, the agent programs of the \"code execution with MCP\"\n"+
			"article run in the sandbox, and a skill proposed, reviewed, approved and run.")
	dir := fs.String("dir", "mcpcode-demo", "directory of the demo workspace (created if needed)")
	var cf connFlags
	fs.DurationVar(&cf.connectTimeout, "connect-timeout", servers.DefaultConnectTimeout, "time allowed to connect to and list one server")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("demo", "unexpected argument %q", rest[0])
	}
	abs, err := filepath.Abs(*dir)
	if err != nil {
		return a.fail("demo", err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return a.fail("demo", fmt.Errorf("creating the demo workspace: %w", err))
	}
	binary, copied, err := demoBinary(abs)
	if err != nil {
		return a.fail("demo", err)
	}
	cfgPath := filepath.Join(abs, "mcp.json")
	if err := atomicfile.Write(cfgPath, demoConfig(binary), 0o644); err != nil {
		return a.fail("demo", err)
	}
	if err := writeDemoPrograms(abs); err != nil {
		return a.fail("demo", err)
	}
	out := a.stdout
	fmt.Fprintf(out, "Demo workspace: %s\n", abs)
	fmt.Fprintf(out, "  mcp.json starts %d demo servers as `%s demo-server NAME`; programs/ holds the agent programs.\n", len(demo.Names()), rel(abs, binary))
	if copied {
		fmt.Fprintf(out, "  (mcpcode was started by `go run`, whose binary is temporary: a copy is kept at %s.)\n", rel(abs, binary))
	}

	ws, err := a.loadWorkspace(cfgPath)
	if err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintln(out, "\n1. Connecting to the servers (mcpcode servers)")
	pool := a.newPool(ws, cf, nil)
	defer pool.Close()
	statuses := pool.ConnectAll(a.ctx, nil, nil)
	printServerTable(indented(out), statuses, nil)
	if exitCodeOf(statuses) != exitOK {
		printFailures(a.stderr, statuses)
		return exitFailure
	}

	fmt.Fprintln(out, "\n2. Generating the typed tree (mcpcode gen)")
	rep, err := a.generate(ws, pool, genFlags{conn: cf, asJSON: true}, nil)
	if err != nil {
		return a.fail("demo", err)
	}
	a.reportGen(indented(out), rep, false)
	fmt.Fprintln(out, "  An agent lists servers/, reads servers/README.md and the one or two tool files it needs,")
	fmt.Fprintln(out, "  instead of carrying every tool definition in its context.")

	fmt.Fprintln(out, "\n3. Running agent programs in the sandbox (mcpcode run programs/NAME.ts)")
	workers := a.workerPool()
	defer workers.Close()
	caller := pool
	sk := skills.NewWorkspace(abs)
	for _, name := range demoPrograms {
		res, err := a.demoRun(workers, abs, caller, sk, filepath.Join(abs, "programs", name), nil)
		if err != nil {
			return a.fail("demo", err)
		}
		fmt.Fprintf(out, "\n  programs/%s: %s\n", name, programSummary(abs, name))
		if !printDemoResult(out, res) {
			return exitFailure
		}
	}

	fmt.Fprintln(out, "\n4. A skill: proposed by the agent, reviewed and approved by a person, then run")
	if code := a.demoSkill(out, workers, abs, caller, sk); code != exitOK {
		return code
	}

	fmt.Fprintln(out, "\nTry next:")
	cmd := rel(abs, binary)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  cd %s\t\n", *dir)
	fmt.Fprintf(tw, "  %s tools\t# every tool, one line each\n", cmd)
	fmt.Fprintf(tw, "  cat servers/google-drive/getSheet.ts\t# what an agent reads\n")
	fmt.Fprintf(tw, "  %s run programs/pending-orders.ts\t# edit it, run it again\n", cmd)
	fmt.Fprintf(tw, "  %s skills show %s\t# the approved skill\n", cmd, demoSkill)
	tw.Flush()
	return exitOK
}

// writeDemoPrograms copies the embedded programs into DIR/programs.
func writeDemoPrograms(dir string) error {
	return fs.WalkDir(examples.DemoPrograms, "demo/programs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := examples.DemoPrograms.ReadFile(p)
		if err != nil {
			return err
		}
		return atomicfile.Write(filepath.Join(dir, "programs", path.Base(p)), data, 0o644)
	})
}

// programSummary is the first sentence of a demo program's leading comment.
func programSummary(dir, name string) string {
	f, err := os.Open(filepath.Join(dir, "programs", name))
	if err != nil {
		return ""
	}
	defer f.Close()
	var words []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && strings.HasPrefix(sc.Text(), "//") {
		words = append(words, strings.Fields(strings.TrimPrefix(sc.Text(), "//"))...)
	}
	text := strings.Join(words, " ")
	if i := strings.Index(text, ". "); i > 0 {
		text = text[:i+1]
	}
	return strings.TrimSuffix(text, ":")
}

// demoRun bundles and runs one program (or, with source set, an inline one)
// in a worker.
func (a *app) demoRun(workers *runtime.WorkerPool, ws string, caller mcptool.Caller, sk skills.Workspace, entry string, source []byte, input ...json.RawMessage) (*runtime.Result, error) {
	prog, err := runtime.Bundle(runtime.BundleOptions{Workspace: ws, Entry: entry, Source: source, Skills: sk.Policy()})
	if err != nil {
		return runtime.BundleErrorResult(err), nil
	}
	opts := runtime.RunOptions{Workspace: ws, Caller: caller, Limits: runtime.DefaultLimits()}
	if len(input) > 0 {
		opts.Input = input[0]
	}
	return workers.Run(a.ctx, prog, opts), nil
}

// printDemoResult shows a run's output, indented, and how much of what the
// tools returned stayed in the program. It reports whether the run worked.
func printDemoResult(out io.Writer, res *runtime.Result) bool {
	var shown bytes.Buffer
	for _, l := range res.Logs {
		shown.WriteString(l.Text + "\n")
	}
	if res.OK && len(res.Result) > 0 && string(res.Result) != "null" {
		var c bytes.Buffer
		if json.Compact(&c, res.Result) != nil {
			c.Write(res.Result)
		}
		shown.WriteString("=> " + c.String() + "\n")
	}
	w := indented(indented(out))
	w.Write(shown.Bytes())
	if !res.OK {
		fmt.Fprintf(w, "FAILED: %s error: %s\n", res.Error.Kind, res.Error.Message)
		return false
	}
	stats := fmt.Sprintf("%s, %d ms", plural(res.Stats.ToolCalls, "tool call"), res.Stats.DurationMs)
	if res.Stats.BytesFromTools > 0 {
		kept := res.Stats.BytesFromTools - int64(shown.Len())
		stats += fmt.Sprintf("; %s came from tools, %s reached the model: %s stayed in the program",
			formatBytes(res.Stats.BytesFromTools), formatBytes(int64(shown.Len())), formatBytes(max(kept, 0)))
	}
	fmt.Fprintf(w, "(%s)\n", stats)
	return true
}

// demoSkill proposes, shows, approves and runs the demo skill.
func (a *app) demoSkill(out io.Writer, workers *runtime.WorkerPool, ws string, caller mcptool.Caller, sk skills.Workspace) int {
	progPath := filepath.Join(ws, "programs", demoSkillProgram)
	program, err := os.ReadFile(progPath)
	if err != nil {
		return a.fail("demo", err)
	}
	schema, err := os.ReadFile(filepath.Join(ws, "programs", demoSkillSchema))
	if err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintf(out, "\n  The agent proposes programs/%s (mcpcode skills propose --name %s ...):\n", demoSkillProgram, demoSkill)
	if _, err := sk.Propose(skills.ProposeOptions{Name: demoSkill, Description: demoSkillDescription, Rationale: demoSkillRationale,
		InputSchema: schema, Program: program, ProgramPath: progPath}); err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintln(out, "  nothing runs and nothing is granted; a person reads the review card (mcpcode skills show):")
	card, err := sk.Show(demoSkill)
	if err != nil {
		return a.fail("demo", err)
	}
	indented(indented(out)).Write([]byte(card.Render()))
	fmt.Fprintf(out, "\n  The person approves it (mcpcode skills approve %s):\n", demoSkill)
	approved, err := sk.Approve(demoSkill, skills.ApproveOptions{ApprovedBy: "the demo"})
	if err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintf(out, "    wrote %s/SKILL.md and index.ts: a read-only skill, listed in skills/README.md\n", rel(ws, approved.Dir))
	fmt.Fprintf(out, "\n  Any program can now use it; run directly (mcpcode run --skill %s --input '{\"limit\":3}'):\n", demoSkill)
	res, err := a.demoRun(workers, ws, caller, sk, filepath.Join(ws, "skill:"+demoSkill+".ts"), skills.RunSource(demoSkill), json.RawMessage(`{"limit":3}`))
	if err != nil {
		return a.fail("demo", err)
	}
	if !printDemoResult(out, res) {
		return exitFailure
	}
	return exitOK
}

// indented returns a writer that indents every line written to it by two
// spaces.
func indented(w io.Writer) io.Writer { return &indentWriter{w: w, start: true} }

type indentWriter struct {
	w     io.Writer
	start bool
}

func (iw *indentWriter) Write(p []byte) (int, error) {
	var buf []byte
	for _, c := range p {
		if iw.start && c != '\n' {
			buf = append(buf, ' ', ' ')
		}
		buf = append(buf, c)
		iw.start = c == '\n'
	}
	if _, err := iw.w.Write(buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// rel shows path relative to base when it lies inside it.
func rel(base, path string) string {
	if r, err := filepath.Rel(base, path); err == nil && filepath.IsLocal(r) {
		return "./" + filepath.ToSlash(r)
	}
	return path
}
