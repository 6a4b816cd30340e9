package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
)

func cmdInit(a *cli, args []string) int {
	fs := a.flags("init", "[--dir WORKSPACE] [--from claude-desktop|cursor|claude-code|vscode|FILE] [--ci github|gitlab [--mcpcode-version V]] [--json]",
		"Makes a workspace: mcp.json (with --from, the MCP servers of a host's configuration, each entry\n"+
			"unchanged in meaning: variables stay ${VAR}), AGENTS.md (how an agent uses the tree, runs programs\n"+
			"and proposes skills), a CLAUDE.md that points to it, and a .gitignore for .mcpcode/ and\n"+
			"node_modules/. Files that exist are kept; an import adds only servers mcp.json does not have.\n"+
			"Prints the snippet that adds `mcpcode serve` to the host. --ci github writes\n"+
			".github/workflows/mcpcode-skills.yml into the repository (--ci gitlab:\n"+
			".gitlab/mcpcode-skills.gitlab-ci.yml): on every pull request it installs this version of mcpcode,\n"+
			"verifies the skills with annotations, and posts the review cards of the changed skills (see\n"+
			"docs/REVIEWING.md for its trust model).")
	dir := fs.String("dir", "", "the workspace to create (default: the current directory)")
	from := fs.String("from", "", "import the servers of this host (claude-desktop, cursor, claude-code, vscode) or of this file")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	ci := fs.String("ci", "", "also write the CI workflow of this code host: github or gitlab")
	pin := fs.String("mcpcode-version", "", "the mcpcode version the workflow installs (default: this binary's)")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("init", "unexpected argument %q", rest[0])
	}
	home, _ := os.UserHomeDir()
	binary, err := os.Executable()
	if err != nil || strings.Contains(binary, "go-build") {
		binary = "mcpcode"
	}
	version := *pin
	if version == "" {
		version = pinnableVersion()
	}
	rep, err := a.app.Init(app.InitOptions{Dir: *dir, From: *from, Home: home, Binary: binary, CI: *ci, MCPCodeVersion: version})
	if err != nil {
		if app.IsUsage(err) {
			return a.usageError("init", "%v", err)
		}
		return a.fail("init", err)
	}
	if *asJSON {
		writeJSON(a.stdout, rep)
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Workspace %s\n", rep.Root)
	if rep.Source != "" {
		if len(rep.Imported) == 0 {
			fmt.Fprintf(a.stdout, "  imported no new server from %s\n", rep.Source)
		} else {
			fmt.Fprintf(a.stdout, "  imported %s from %s: %s\n", plural(len(rep.Imported), "server"), rep.Source, visible.Line(strings.Join(rep.Imported, ", ")))
		}
	}
	if len(rep.Written) > 0 {
		fmt.Fprintf(a.stdout, "  wrote %s\n", strings.Join(rep.Written, ", "))
	}
	if len(rep.Kept) > 0 {
		fmt.Fprintf(a.stdout, "  kept %s as they were\n", strings.Join(rep.Kept, ", "))
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(a.stdout, "  note: %s\n", n)
	}
	fmt.Fprintf(a.stdout, "\nNext: mcpcode gen --dir %s\n\n%s", rep.Root, rep.Snippet)
	return exitOK
}
