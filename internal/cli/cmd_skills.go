package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
  list      approved, pending, dismissed and revoked skills, with who approved each
  show      NAME [--format text|json|markdown]: the review card: what it does, why, the tools it
            calls, its input, its recorded examples, the program, and the exact command that
            approves what it shows; for a proposal that replaces an approved skill, first what changed
  diff      [--base REF] [--format text|json|markdown]: the skills added, changed or removed against
            a git revision, each with its card, leading with what changed (for a pull request)
  approve   NAME --sha256 HASH [--allow-write]: install the pending proposal the card showed as
            skills/<name>/ (or approve an approved skill again, as it is now)
  dismiss   NAME: set a pending proposal aside
  revoke    NAME [--reason TEXT]: withdraw an approved skill: nothing runs it any more
  verify    check every skill under skills/ (for CI); exits 1 with one line per problem
            (--format github|gitlab: annotations for a code host)

Every command takes --dir WORKSPACE (default: the current directory) and -h.`

func cmdSkills(a *cli, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(a.stderr, skillsUsage)
		return exitUsage
	}
	sub := map[string]func(*cli, []string) int{
		"propose": cmdSkillsPropose, "list": cmdSkillsList, "show": cmdSkillsShow,
		"approve": cmdSkillsApprove, "dismiss": cmdSkillsDismiss, "verify": cmdSkillsVerify,
		"diff": cmdSkillsDiff, "revoke": cmdSkillsRevoke,
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
	c := a.skillsCommand("list", "[--dir WORKSPACE] [--json]", "Lists approved, pending, dismissed and revoked skills, with who approved each.", true)
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
	fmt.Fprintln(tw, "SKILL\tSTATUS\tACCESS\tAPPROVED\tDESCRIPTION")
	for _, e := range entries {
		approved := "-"
		if r := e.Approval; r != nil {
			approved = r.Short()
		}
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
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.Name, e.Status, access, visible.Line(truncate(approved, 60)), visible.Line(truncate(desc, 80)))
	}
	tw.Flush()
	return exitOK
}

func cmdSkillsShow(a *cli, args []string) int {
	c := a.skillsCommand("show", "NAME [--dir WORKSPACE] [--format text|json|markdown]",
		"Prints the review card of a proposal or a skill: for a terminal (text), as JSON, or as Markdown for\n"+
			"a pull request's description or comment (every text that came from the skill in code, inert).", true)
	format := c.fs.String("format", "text", "text, json or markdown")
	ws, name, code, ok := c.parseName(a, args)
	if !ok {
		return code
	}
	if *c.asJSON {
		*format = "json"
	}
	if *format != "text" && *format != "json" && *format != "markdown" {
		return a.usageError(c.name, "unknown --format %q: use text, json or markdown", *format)
	}
	card, err := ws.ShowSkill(name)
	if err != nil {
		return a.fail(c.name, err)
	}
	switch *format {
	case "json":
		writeJSON(a.stdout, card)
	case "markdown":
		fmt.Fprint(a.stdout, card.Markdown(skills.MarkdownOptions{}))
	default:
		fmt.Fprint(a.stdout, card.Render())
	}
	return exitOK
}

func cmdSkillsDiff(a *cli, args []string) int {
	c := a.skillsCommand("diff", "[--base REF] [--dir WORKSPACE] [--format text|json|markdown] [--max-bytes N]",
		"Compares the approved skills of the working tree with those of a git revision (from the merge\n"+
			"base of REF and HEAD): each skill added, changed or removed, with its review card leading with\n"+
			"what changed (files, tools, the grant, the input schema, examples whose result changed).\n"+
			"Prints nothing when no skill changed. --format markdown is the pull request's comment.", true)
	base := c.fs.String("base", "main", "the git revision to compare with (a branch such as origin/main, a tag or a commit)")
	format := c.fs.String("format", "text", "text, json or markdown")
	maxBytes := c.fs.Int("max-bytes", 0, "with --format markdown, at most this many bytes (programs and diffs are cut first); 0: no limit")
	ws, rest, code, ok := c.parse(a, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError(c.name, "unexpected argument %q", rest[0])
	}
	if *c.asJSON {
		*format = "json"
	}
	if *format != "text" && *format != "json" && *format != "markdown" {
		return a.usageError(c.name, "unknown --format %q: use text, json or markdown", *format)
	}
	d, err := ws.DiffSkills(a.ctx, *base)
	if err != nil {
		return a.fail(c.name, err)
	}
	switch *format {
	case "json":
		writeJSON(a.stdout, d)
	case "markdown":
		fmt.Fprint(a.stdout, d.Markdown(*maxBytes))
	default:
		fmt.Fprint(a.stdout, d.Render())
	}
	return exitOK
}

func cmdSkillsRevoke(a *cli, args []string) int {
	c := a.skillsCommand("revoke", "NAME [--reason TEXT] [--dir WORKSPACE]",
		"Withdraws an approved skill: its folder moves to skills/.revoked/<name>/ with a record of who\n"+
			"revoked it, when and why. From then on nothing runs it: programs and skills that import it fail\n"+
			"with that record, and mcpcode serve stops listing it.", false)
	reason := c.fs.String("reason", "", "why, for the record")
	ws, name, code, ok := c.parseName(a, args)
	if !ok {
		return code
	}
	res, err := ws.RevokeSkill(name, skills.RevokeOptions{Reason: *reason})
	if err != nil {
		return a.fail(c.name, err)
	}
	fmt.Fprintf(a.stdout, "Revoked %q: nothing runs it any more; its files are kept in %s.\n", res.Name, ws.Rel(res.Dir))
	if len(res.Dependents) > 0 {
		fmt.Fprintf(a.stdout, "These approved skills name it and fail until changed and approved again: %s\n", strings.Join(res.Dependents, ", "))
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
	res, err := ws.ApproveSkill(name, skills.ApproveOptions{AllowWrite: *allowWrite, SHA256: *sha})
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
	c := a.skillsCommand("verify", "[--dir WORKSPACE] [--format text|json|github|gitlab]",
		"Checks every skill under skills/: SKILL.md present with valid frontmatter, name equal to its\n"+
			"directory, its files, grant and approval record as approved, the program bundling, its tools\n"+
			"existing in servers/, write tools only where SKILL.md grants write, and its recorded examples\n"+
			"replaying to their recorded results. Prints each skill with who approved it, and one line per\n"+
			"problem; exits 1 when there is one. --format github prints each problem as a GitHub Actions\n"+
			"annotation (::error file=...,line=...::), --format gitlab prints a GitLab code quality report\n"+
			"(JSON) and the problems on stderr.", true)
	format := c.fs.String("format", "text", "text, json, github (annotations) or gitlab (a code quality report)")
	ws, _, code, ok := c.parse(a, args)
	if !ok {
		return code
	}
	if *c.asJSON {
		*format = "json"
	}
	switch *format {
	case "text", "json", "github", "gitlab":
	default:
		return a.usageError(c.name, "unknown --format %q: use text, json, github or gitlab", *format)
	}
	v, err := ws.VerifySkillsAll()
	if err != nil {
		return a.fail(c.name, err)
	}
	if v.Problems == nil {
		v.Problems = []skills.Problem{}
	}
	if v.Skills == nil {
		v.Skills = []skills.VerifiedSkill{}
	}
	switch *format {
	case "json":
		writeJSON(a.stdout, map[string]any{"ok": len(v.Problems) == 0, "skills": v.Skills, "problems": v.Problems})
	case "github":
		var list strings.Builder
		printVerified(&list, v)
		fmt.Fprint(a.stdout, githubText(list.String()))
		for _, p := range v.Problems {
			fmt.Fprintln(a.stdout, githubAnnotation(annotationPath(ws, p.File), p))
		}
	case "gitlab":
		for _, p := range v.Problems {
			fmt.Fprintln(a.stderr, visible.Line(p.String()))
		}
		writeJSON(a.stdout, codeQualityReport(ws, v.Problems))
	default:
		printVerified(a.stdout, v)
		for _, p := range v.Problems {
			fmt.Fprintln(a.stdout, visible.Line(p.String()))
		}
	}
	if len(v.Problems) > 0 {
		return exitFailure
	}
	if *format == "text" || *format == "github" {
		fmt.Fprintln(a.stdout, "All skills verified.")
	}
	return exitOK
}

// printVerified prints each skill verify checked, with who approved it.
func printVerified(w io.Writer, v *skills.Verification) {
	for _, s := range v.Skills {
		status := "FAILED"
		if s.OK {
			status = "ok"
		}
		approval := "approval unreadable"
		if s.Approval != nil {
			approval = "approved by " + s.Approval.String()
			if !s.OK {
				approval = "SKILL.md says: approved by " + s.Approval.String()
			}
		}
		fmt.Fprintf(w, "%-6s skills/%s  %s\n", status, visible.Line(s.Name), visible.Line(approval))
	}
}

// annotationPath is a problem's file as a code host wants it: relative to
// the current directory (where CI runs, the repository's root).
func annotationPath(ws *app.Workspace, file string) string {
	if file == "" {
		file = skills.SkillsDir
	}
	abs := filepath.Join(ws.Root, filepath.FromSlash(file))
	if cwd, err := os.Getwd(); err == nil {
		if rel, err := filepath.Rel(cwd, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(abs)
}

// githubAnnotation is a problem as a GitHub Actions workflow command:
// "::error file=F,line=N,title=T::MESSAGE". The message is escaped as for
// a terminal first, then as the command syntax asks (%, CR and LF; in
// properties also ':' and ','), so that no text of a skill can end the
// command or start another.
func githubAnnotation(file string, p skills.Problem) string {
	// A problem of a whole file is shown on its first line: GitHub shows
	// line annotations in the pull request's diff.
	props := "file=" + githubProperty(file) + fmt.Sprintf(",line=%d", max(p.Line, 1))
	props += ",title=" + githubProperty("mcpcode skills verify: "+p.Skill)
	return "::error " + props + "::" + githubData(visible.Line(p.String()))
}

func githubData(s string) string {
	return githubText(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s))
}

func githubProperty(s string) string {
	return githubText(strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(visible.Line(s)))
}

// githubText keeps text that is already escaped for a terminal from
// being read by GitHub's runner as a legacy workflow command: the runner
// reads "##[command]data" anywhere in a line, not only at its start
// (stop-commands would drop every annotation after it). The second '#' is
// shown as the escape \u0023.
func githubText(s string) string {
	return strings.ReplaceAll(s, "##[", `#\u0023[`)
}

// codeQualityIssue is one entry of a GitLab code quality report (the Code
// Climate format): GitLab shows them in the merge request.
type codeQualityIssue struct {
	Description string `json:"description"`
	CheckName   string `json:"check_name"`
	Fingerprint string `json:"fingerprint"`
	Severity    string `json:"severity"`
	Location    struct {
		Path  string `json:"path"`
		Lines struct {
			Begin int `json:"begin"`
		} `json:"lines"`
	} `json:"location"`
}

func codeQualityReport(ws *app.Workspace, problems []skills.Problem) []codeQualityIssue {
	out := []codeQualityIssue{}
	for _, p := range problems {
		var q codeQualityIssue
		q.Description = visible.Line(p.String())
		q.CheckName = "mcpcode-skills-verify"
		q.Severity = "major"
		q.Location.Path = annotationPath(ws, p.File)
		q.Location.Lines.Begin = max(p.Line, 1)
		sum := sha256.Sum256([]byte(p.Skill + "\x00" + p.File + "\x00" + p.Message))
		q.Fingerprint = hex.EncodeToString(sum[:16])
		out = append(out, q)
	}
	return out
}

// fileList is a repeatable flag of file names.
type fileList []string

func (f *fileList) String() string { return strings.Join(*f, ",") }

func (f *fileList) Set(s string) error {
	*f = append(*f, s)
	return nil
}
