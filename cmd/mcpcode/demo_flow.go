package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/servers/demo"
)

func cmdDemo(a *app, args []string) int {
	fs := a.flags("demo", "[--dir DIR]",
		"Writes a demo workspace whose mcp.json starts the three built-in demo servers\n(google-drive, salesforce, slack: synthetic data, no accounts), then shows them connected.")
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
	fmt.Fprintf(a.stdout, "Demo workspace: %s\n", abs)
	if copied {
		fmt.Fprintf(a.stdout, "  (mcpcode was started by `go run`; a copy of it is kept at %s so the workspace keeps working)\n", rel(abs, binary))
	}
	fmt.Fprintf(a.stdout, "  wrote mcp.json: %d demo servers, started as `%s demo-server NAME`\n\n", len(demo.Names()), rel(abs, binary))

	ws, err := a.loadWorkspace(cfgPath)
	if err != nil {
		return a.fail("demo", err)
	}
	fmt.Fprintln(a.stdout, "1. Connecting to the servers (mcpcode servers):")
	pool := a.newPool(ws, cf, nil)
	defer pool.Close()
	statuses := pool.ConnectAll(a.ctx, nil, nil)
	printServerTable(indented(a.stdout), statuses, nil)
	if exitCodeOf(statuses) != exitOK {
		printFailures(a.stderr, statuses)
		return exitFailure
	}

	fmt.Fprintln(a.stdout, "\n2. Generating the typed tree (mcpcode gen):")
	rep, err := a.generate(ws, pool, genFlags{conn: cf, asJSON: true}, nil)
	if err != nil {
		return a.fail("demo", err)
	}
	a.reportGen(indented(a.stdout), rep, false)
	fmt.Fprintf(a.stdout, "  An agent reads servers/README.md, one servers/<server>/index.ts and the tool files it needs.\n")

	fmt.Fprintln(a.stdout, "\nTry next:")
	fmt.Fprintf(a.stdout, "  cd %s\n", *dir)
	fmt.Fprintf(a.stdout, "  %s tools          # every tool with its description\n", rel(abs, binary))
	return exitOK
}

// rel shows path relative to base when it lies inside it.
func rel(base, path string) string {
	if r, err := filepath.Rel(base, path); err == nil && filepath.IsLocal(r) {
		return "./" + filepath.ToSlash(r)
	}
	return path
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
