package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
)

func cmdCheck(a *cli, args []string) int {
	fs := a.flags("check", "[FILE|-] [--dir WORKSPACE] [--json]",
		"Type-checks a program against the generated tree, the approved skills and the files it imports,\n"+
			"with the TypeScript compiler, the way `mcpcode run` would resolve its imports; nothing runs.\n"+
			"Errors are printed with the program's file and line, the compiler's message and a hint.\n"+
			"The compiler is mcp.json's \"typecheck\": {\"tsc\": PATH}, else the workspace's\n"+
			"node_modules/.bin/tsc, else tsc on PATH (install one with `npm i -D typescript@7`).\n"+
			"Results are cached in .mcpcode/check/ until the program or a file it imports changes.\n"+
			"Exits 0 when it type-checks, 3 when it does not, 1 when the check could not be made,\n"+
			"2 on usage errors or when no compiler is found.")
	var dir string
	var asJSON bool
	fs.StringVar(&dir, "dir", "", "the workspace: the directory with mcp.json, servers/, skills/ and workspace/ (default: the current directory, or the nearest parent with mcp.json)")
	fs.BoolVar(&asJSON, "json", false, "print one JSON object: {ok, errors, diagnostics, compiler, files, cached}")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return a.usageError("check", "give one program: a FILE, or - to read it from stdin")
	}
	var req app.CheckRequest
	if rest[0] == "-" {
		src, err := io.ReadAll(a.stdin)
		if err != nil {
			return a.fail("check", fmt.Errorf("reading the program from stdin: %w", err))
		}
		req.Source = src
	} else {
		req.File = rest[0]
	}
	ws, err := a.openWith(app.OpenOptions{Dir: dir})
	if err != nil {
		return a.configError("check", err)
	}
	res, err := ws.Check(a.ctx, req)
	if err != nil {
		if app.IsUsage(err) {
			fmt.Fprintf(a.stderr, "mcpcode check: %s\n", err)
			return exitUsage
		}
		return a.fail("check", err)
	}
	code = exitOK
	if !res.OK {
		code = exitTypeErrors
	}
	if asJSON {
		writeJSON(a.stdout, res)
		return code
	}
	if res.OK {
		cached := ""
		if res.Cached {
			cached = ", cached"
		}
		fmt.Fprintf(a.stdout, "ok: the program type-checks (%s, %d files of the workspace%s)\n", visible.Line(res.Compiler), len(res.Files), cached)
		return code
	}
	// The program's and the compiler's words: shown visibly.
	fmt.Fprintln(a.stdout, visible.Text(app.TypeErrorText(res)))
	return code
}

// typeErrors prints the report of a use case refused because the program
// does not type-check, and returns its exit code; ok is false for any
// other error.
func (a *cli) typeErrors(cmd string, err error) (int, bool) {
	var te *app.TypeErrors
	if !errors.As(err, &te) {
		return 0, false
	}
	fmt.Fprintf(a.stderr, "mcpcode %s: %s\n", cmd, visible.Text(indentRest(te.Error())))
	return exitTypeErrors, true
}
