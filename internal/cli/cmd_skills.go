package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/skills"
)

const skillsUsage = `Usage: mcpcode skills <command> [flags]

An agent proposes a program as a skill; a person reviews and decides. A proposal runs nothing and
grants nothing. An approved skill (skills/<name>/SKILL.md and index.ts) is read-only and runs with
the caller's permissions, unless a person approves it with --allow-write.

Commands:
  propose   --name NAME --description TEXT --rationale TEXT [--input-schema FILE] [--example FILE]... [--git] PROGRAM.ts
            check a program (bundled, never run) and store it as a pending proposal, or with --git
            commit it laid out as approved on a new branch skill/<name> for a pull request
  list      approved, pending and dismissed skills
  show      NAME: the review card: what it does, why, the tools it calls, its input, its recorded
            examples, the program, and the exact command that approves what it shows
  approve   NAME --sha256 HASH [--allow-write]: install the pending proposal the card showed as
            skills/<name>/ (or approve an approved skill again, as it is now)
  dismiss   NAME: set a pending proposal aside
  verify    check every skill under skills/ (for CI); exits 1 with one line per problem

Every command takes --dir WORKSPACE (default: the current directory) and -h.`

func cmdSkills(a *cli, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.stderr, skillsUsage)
		return exitUsage
	}
	sub := map[string]func(*cli, []string) int{
		"propose": cmdSkillsPropose, "list": cmdSkillsList, "show": cmdSkillsShow,
		"approve": cmdSkillsApprove, "dismiss": cmdSkillsDismiss, "verify": cmdSkillsVerify,
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(a.stdout, skillsUsage)
		return exitOK
	}
	run, ok := sub[args[0]]
	if !ok {
		fmt.Fprintf(a.stderr, "mcpcode skills: unknown command %q\n\n%s\n", args[0], skillsUsage)
		return exitUsage
	}
	return run(a, args[1:])
}

// skillsCmd is a skills subcommand's flag set: --dir, and --json when the
// command prints data.
type skillsCmd struct {
	name   string
	fs     *flag.FlagSet
	dir    *string
	asJSON *bool
}

func (a *cli) skillsCommand(name, usage, description string, withJSON bool) *skillsCmd {
	c := &skillsCmd{name: "skills " + name, fs: a.flags("skills "+name, usage, description)}
	c.dir = c.fs.String("dir", "", "the workspace (default: the current directory, or the nearest parent with mcp.json)")
	if withJSON {
		c.asJSON = c.fs.Bool("json", false, "print JSON")
	}
	return c
}

// parse parses the flags and resolves the workspace; with ok false the
// command ends with code.
func (c *skillsCmd) parse(a *cli, args []string) (ws *app.Workspace, rest []string, code int, ok bool) {
	rest, code, ok = parse(c.fs, args)
	if !ok {
		return nil, nil, code, false
	}
	ws, err := a.openWith(app.OpenOptions{Dir: *c.dir})
	if err != nil {
		return nil, nil, a.usageError(c.name, "%v", err), false
	}
	return ws, rest, 0, true
}

// parseName is parse for commands that take exactly one skill name.
func (c *skillsCmd) parseName(a *cli, args []string) (ws *app.Workspace, name string, code int, ok bool) {
	ws, rest, code, ok := c.parse(a, args)
	if !ok {
		return ws, "", code, false
	}
	if len(rest) != 1 {
		return ws, "", a.usageError(c.name, "give one skill name"), false
	}
	return ws, rest[0], 0, true
}

func cmdSkillsPropose(a *cli, args []string) int {
	c := a.skillsCommand("propose", "--name NAME --description TEXT --rationale TEXT [--input-schema FILE] [--git] PROGRAM.ts",
		"Checks a program without running it (name, description, input schema; it must bundle against the\n"+
			"tree, approved skills and mcpcode: modules, and type-check when a TypeScript compiler is found:\n"+
			"see mcpcode check) and stores it as a pending proposal in\n"+
			"skills/.proposals/<name>/, replacing a pending proposal of that name. With --git it is instead\n"+
			"committed, laid out as approved, on a new branch skill/<name>; the working tree is untouched.", false)
	fs := c.fs
	var o skills.ProposeOptions
	fs.StringVar(&o.Name, "name", "", "the skill's name: 1-64 lowercase letters, digits and hyphens")
	fs.StringVar(&o.Description, "description", "", "what the skill does and when to use it (at most 1024 characters)")
	fs.StringVar(&o.Rationale, "rationale", "", "why it deserves to be a skill")
	schemaFile := fs.String("input-schema", "", "a JSON Schema file describing the input object")
	var examples fileList
	fs.Var(&examples, "example", "a recording of a run of the program (mcpcode run --record FILE) to carry as an example; repeatable")
	useGit := fs.Bool("git", false, "commit the skill on a new branch skill/<name> for a pull request instead")
	ws, rest, code, ok := c.parse(a, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return a.usageError(c.name, "give one program file (or - for stdin)")
	}
	var err error
	if rest[0] == "-" {
		o.Program, err = io.ReadAll(a.stdin)
	} else {
		o.ProgramPath = rest[0]
		o.Program, err = os.ReadFile(rest[0])
	}
	if err != nil {
		return a.usageError("skills propose", "reading the program: %v", err)
	}
	if *schemaFile != "" {
		if o.InputSchema, err = os.ReadFile(*schemaFile); err != nil {
			return a.usageError("skills propose", "reading the input schema: %v", err)
		}
	}
	for _, f := range examples {
		data, err := os.ReadFile(f)
		if err != nil {
			return a.usageError("skills propose", "reading the example: %v", err)
		}
		o.Examples = append(o.Examples, data)
	}
	if *useGit {
		gp, err := ws.ProposeGit(a.ctx, o)
		if code, ok := a.typeErrors("skills propose", err); ok {
			return code
		}
		if err != nil {
			return a.fail("skills propose", err)
		}
		fmt.Fprintf(a.stdout, "Committed skill %q as %s on the new branch %s (your working tree and branch are untouched):\n", o.Name, gp.Commit[:12], gp.Branch)
		for _, f := range gp.Files {
			fmt.Fprintf(a.stdout, "  %s\n", f)
		}
		fmt.Fprintf(a.stdout, "Push it and open a pull request; CI should run `mcpcode skills verify`.\n")
		return exitOK
	}
	res, err := ws.Propose(o)
	if code, ok := a.typeErrors("skills propose", err); ok {
		return code
	}
	if err != nil {
		return a.fail("skills propose", err)
	}
	p := res.Proposal
	verb := "Proposed"
	if res.Replaced {
		verb = "Replaced the pending proposal with"
	}
	fmt.Fprintf(a.stdout, "%s skill %q (pending review; nothing was run or granted).\n", verb, p.Name)
	if res.UpdatesApproved {
		fmt.Fprintf(a.stdout, "An approved skill %q exists: approving this proposal replaces it.\n", p.Name)
	}
	fmt.Fprintf(a.stdout, "It calls: %s\n", visible.Line(describeTools(p.Tools, p.Dynamic)))
	fmt.Fprintf(a.stdout, "A person reviews it with: mcpcode skills show %s\n", p.Name)
	return exitOK
}

func describeTools(tools []skills.ToolUse, dynamic []string) string {
	var parts []string
	for _, t := range tools {
		note := "read-only"
		switch {
		case !t.Known:
			note = "unknown"
		case !t.ReadOnly:
			note = "not read-only"
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", t, note))
	}
	for _, d := range dynamic {
		parts = append(parts, d+" (unverifiable)")
	}
	if len(parts) == 0 {
		return "no tools"
	}
	return strings.Join(parts, ", ")
}

func cmdSkillsList(a *cli, args []string) int {
	c := a.skillsCommand("list", "[--dir WORKSPACE] [--json]", "Lists approved, pending and dismissed skills.", true)
	ws, _, code, ok := c.parse(a, args)
	if !ok {
		return code
	}
	entries, err := ws.ListSkills()
	if err != nil {
		return a.fail("skills list", err)
	}
	if *c.asJSON {
		if entries == nil {
			entries = []skills.Entry{}
		}
		writeJSON(a.stdout, map[string]any{"skills": entries})
		return exitOK
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.stdout, "No skills yet. An agent proposes one with: mcpcode skills propose --name NAME --description TEXT --rationale TEXT PROGRAM.ts")
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SKILL\tSTATUS\tACCESS\tDESCRIPTION")
	for _, e := range entries {
		access := "read-only"
		if e.Write {
			access = "write granted"
		}
		if e.Status != skills.StatusApproved {
			access = "-"
		}
		desc := e.Description
		if e.Problem != "" {
			desc = "PROBLEM: " + e.Problem
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, e.Status, access, visible.Line(truncate(desc, 80)))
	}
	tw.Flush()
	return exitOK
}

func cmdSkillsShow(a *cli, args []string) int {
	c := a.skillsCommand("show", "NAME [--dir WORKSPACE] [--json]", "Prints the review card of a proposal or a skill.", true)
	ws, name, code, ok := c.parseName(a, args)
	if !ok {
		return code
	}
	card, err := ws.ShowSkill(name)
	if err != nil {
		return a.fail(c.name, err)
	}
	if *c.asJSON {
		writeJSON(a.stdout, card)
	} else {
		fmt.Fprint(a.stdout, card.Render())
	}
	return exitOK
}

func cmdSkillsApprove(a *cli, args []string) int {
	c := a.skillsCommand("approve", "NAME --sha256 HASH [--allow-write] [--dir WORKSPACE]",
		"Installs a pending proposal as skills/<name>/ (SKILL.md, index.ts, its schema and examples) after\n"+
			"checking that it is exactly what the review card showed (the hash the card prints; without\n"+
			"--sha256, what `skills show` showed last, if nothing changed since), that every tool it calls\n"+
			"exists, and that it calls only read-only tools unless --allow-write grants more (recorded in\n"+
			"SKILL.md). Without a pending proposal it approves an approved skill again, as it is now.", false)
	allowWrite := c.fs.Bool("allow-write", false, "grant the skill calls to tools that are not read-only")
	sha := c.fs.String("sha256", "", "the hash the review card printed: approve exactly what it showed")
	ws, name, code, ok := c.parseName(a, args)
	if !ok {
		return code
	}
	res, err := ws.ApproveSkill(name, skills.ApproveOptions{AllowWrite: *allowWrite, ApprovedBy: os.Getenv("USER"), SHA256: *sha})
	if err != nil {
		return a.fail(c.name, err)
	}
	access := "read-only"
	if res.Write {
		access = "with write access"
	}
	verb := "Approved"
	if res.Reapproved {
		verb = "Approved again"
	}
	fmt.Fprintf(a.stdout, "%s %q (%s): %s\n", verb, res.Name, access, ws.Rel(res.Dir))
	fmt.Fprintf(a.stdout, "Use it: import %s from \"skills/%s\";  or: mcpcode run --skill %s --input '{}'\n", skills.Identifier(res.Name), res.Name, res.Name)
	if len(res.Dynamic) > 0 {
		fmt.Fprintf(a.stdout, "Note: %d call(s) could not be verified statically; the runtime checks them on every call.\n", len(res.Dynamic))
	}
	return exitOK
}

func cmdSkillsDismiss(a *cli, args []string) int {
	c := a.skillsCommand("dismiss", "NAME [--dir WORKSPACE]", "Moves a pending proposal to skills/.dismissed/.", false)
	ws, name, code, ok := c.parseName(a, args)
	if !ok {
		return code
	}
	if err := ws.DismissSkill(name); err != nil {
		return a.fail(c.name, err)
	}
	fmt.Fprintf(a.stdout, "Dismissed %q; it cannot run.\n", name)
	return exitOK
}

func cmdSkillsVerify(a *cli, args []string) int {
	c := a.skillsCommand("verify", "[--dir WORKSPACE] [--json]",
		"Checks every skill under skills/: SKILL.md present with valid frontmatter, name equal to its\n"+
			"directory, index.ts as approved, the program bundling, its tools existing in servers/, and write\n"+
			"tools only where SKILL.md grants write. Exits 1 with one line per problem.", true)
	ws, _, code, ok := c.parse(a, args)
	if !ok {
		return code
	}
	problems, err := ws.VerifySkills()
	if err != nil {
		return a.fail(c.name, err)
	}
	if *c.asJSON {
		if problems == nil {
			problems = []skills.Problem{}
		}
		writeJSON(a.stdout, map[string]any{"ok": len(problems) == 0, "problems": problems})
	} else {
		for _, p := range problems {
			fmt.Fprintln(a.stdout, visible.Line(p.String()))
		}
		if len(problems) == 0 {
			fmt.Fprintln(a.stdout, "All skills verified.")
		}
	}
	if len(problems) > 0 {
		return exitFailure
	}
	return exitOK
}

// fileList is a repeatable flag of file names.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(s string) error {
	*f = append(*f, s)
	return nil
}
