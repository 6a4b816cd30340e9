package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/skills"
)

func cmdDemo(a *cli, args []string) int {
	fs := a.flags("demo", "[--dir DIR]",
		"Writes a demo workspace whose mcp.json starts the three built-in demo servers (google-drive,\n"+
			"salesforce, slack: synthetic data, no accounts), then shows the whole tool on it: the servers\n"+
			"connected, the typed tree generated, the agent programs of the \"code execution with MCP\"\n"+
			"article run in the sandbox, and a skill proposed, reviewed, approved and run.")
	dir := fs.String("dir", "mcpcode-demo", "directory of the demo workspace (created if needed)")
	timeout := fs.Duration("timeout", runtime.DefaultLimits().Timeout, "wall-time limit of each program the demo runs")
	var cf connFlags
	fs.DurationVar(&cf.connectTimeout, "connect-timeout", servers.DefaultConnectTimeout, "time allowed to connect to and list one server")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("demo", "unexpected argument %q", rest[0])
	}
	dw, err := a.app.CreateDemo(*dir)
	if err != nil {
		return a.fail("demo", err)
	}
	ws, abs, binary := dw.Workspace, dw.Root, dw.Binary
	out := a.stdout
	fmt.Fprintf(out, "Demo workspace: %s\n", abs)
	fmt.Fprintf(out, "  mcp.json starts %d demo servers as `%s demo-server NAME`; programs/ holds the agent programs.\n", len(demo.Names()), app.Rel(abs, binary))
	if dw.Copied {
		fmt.Fprintf(out, "  (mcpcode was started by `go run`, whose binary is temporary: a copy is kept at %s.)\n", app.Rel(abs, binary))
	}
	a.printWarnings(ws.Warnings)
	fmt.Fprintln(out, "\n1. Connecting to the servers (mcpcode servers)")
	pool := ws.Pool(app.PoolOptions{ConnectTimeout: cf.connectTimeout})
	defer pool.Close()
	statuses := pool.ConnectAll(a.ctx, nil, nil)
	printServerTable(indented(out), statuses, nil)
	if exitCodeOf(statuses) != exitOK {
		printFailures(a.stderr, statuses)
		return exitFailure
	}

	fmt.Fprintln(out, "\n2. Generating the typed tree (mcpcode gen)")
	rep, err := ws.Generate(a.ctx, pool, a.genOptions(ws, genFlags{asJSON: true}))
	if err != nil {
		return a.fail("demo", err)
	}
	a.reportGen(indented(out), rep, false)
	fmt.Fprintln(out, "  An agent lists servers/, reads servers/README.md and the one or two tool files it needs,")
	fmt.Fprintln(out, "  instead of carrying every tool definition in its context.")

	fmt.Fprintln(out, "\n3. Running agent programs in the sandbox (mcpcode run programs/NAME.ts)")
	for _, name := range app.DemoPrograms {
		res, err := ws.Run(a.ctx, app.RunRequest{File: filepath.Join(abs, "programs", name), Caller: pool, Limits: runtime.Limits{Timeout: *timeout}})
		if err != nil {
			return a.fail("demo", err)
		}
		fmt.Fprintf(out, "\n  programs/%s: %s\n", name, programSummary(abs, name))
		if !printDemoResult(out, res) {
			return exitFailure
		}
	}

	fmt.Fprintln(out, "\n4. A skill: proposed by the agent, reviewed and approved by a person, then run")
	if code := a.demoSkill(out, ws, pool, runtime.Limits{Timeout: *timeout}); code != exitOK {
		return code
	}

	fmt.Fprintln(out, "\nTry next:")
	cmd := app.Rel(abs, binary)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  cd %s\t\n", *dir)
	fmt.Fprintf(tw, "  %s tools\t# every tool, one line each\n", cmd)
	fmt.Fprintf(tw, "  cat servers/google-drive/getSheet.ts\t# what an agent reads\n")
	fmt.Fprintf(tw, "  %s run programs/pending-orders.ts\t# edit it, run it again\n", cmd)
	fmt.Fprintf(tw, "  %s skills show %s\t# the approved skill\n", cmd, app.DemoSkill)
	tw.Flush()
	return exitOK
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
func (a *cli) demoSkill(out io.Writer, ws *app.Workspace, pool *servers.Pool, lim runtime.Limits) int {
	progPath := filepath.Join(ws.Root, "programs", app.DemoSkillProgram)
	program, err := os.ReadFile(progPath)
	if err != nil {
		return a.fail("demo", err)
	}
	schema, err := os.ReadFile(filepath.Join(ws.Root, "programs", app.DemoSkillSchema))
	if err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintf(out, "\n  The agent proposes programs/%s (mcpcode skills propose --name %s ...):\n", app.DemoSkillProgram, app.DemoSkill)
	if _, err := ws.Propose(skills.ProposeOptions{Name: app.DemoSkill, Description: app.DemoSkillDescription, Rationale: app.DemoSkillRationale,
		InputSchema: schema, Program: program, ProgramPath: progPath}); err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintln(out, "  nothing runs and nothing is granted; a person reads the review card (mcpcode skills show):")
	card, err := ws.ShowSkill(app.DemoSkill)
	if err != nil {
		return a.fail("demo", err)
	}
	indented(indented(out)).Write([]byte(card.Render()))
	fmt.Fprintf(out, "\n  The person approves it (mcpcode skills approve %s):\n", app.DemoSkill)
	approved, err := ws.ApproveSkill(app.DemoSkill, skills.ApproveOptions{ApprovedBy: "the demo"})
	if err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintf(out, "    wrote %s/SKILL.md and index.ts: a read-only skill, listed in skills/README.md\n", ws.Rel(approved.Dir))
	fmt.Fprintf(out, "\n  Any program can now use it; run directly (mcpcode run --skill %s --input '{\"limit\":3}'):\n", app.DemoSkill)
	res, err := ws.Run(a.ctx, app.RunRequest{Skill: app.DemoSkill, Input: json.RawMessage(`{"limit":3}`), Caller: pool, Limits: lim})
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
