package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpcode/mcpcode/internal/app"
)

func cmdPrivacy(a *cli, args []string) int {
	usage := func() {
		fmt.Fprintln(a.stderr, "Usage: mcpcode privacy status|forget [--dir WORKSPACE] [--json]")
		fmt.Fprintln(a.stderr)
		fmt.Fprintln(a.stderr, "With privacy on (mcpcode run --privacy tokenize, or \"privacy\": {\"mode\": \"tokenize\"} in mcp.json),")
		fmt.Fprintln(a.stderr, "emails, phones, names, card numbers, IBANs and IP addresses leave a run as tokens such as [EMAIL_1],")
		fmt.Fprintln(a.stderr, "kept in the workspace's token store (.mcpcode/privacy/, readable by you only).")
		fmt.Fprintln(a.stderr, "  status  counts the tokens by kind (never shows a value)")
		fmt.Fprintln(a.stderr, "  forget  clears the store: tokens shown before stop resolving, and their numbers are never reused")
	}
	if len(args) == 0 {
		usage()
		return exitUsage
	}
	sub := args[0]
	switch sub {
	case "-h", "-help", "--help", "help":
		usage()
		return exitOK
	case "status", "forget":
	default:
		fmt.Fprintf(a.stderr, "mcpcode privacy: unknown command %q\n", sub)
		usage()
		return exitUsage
	}
	name := "privacy " + sub
	fs := a.flags(name, "[--dir WORKSPACE]", map[string]string{
		"status": "Counts the tokens of the workspace's token store by kind; never shows a value.",
		"forget": "Clears the workspace's token store. Tokens shown before stop resolving (a program that uses one\n" +
			"gets a policy error, and nothing is sent); their numbers are never given to other values.",
	}[sub])
	dir := fs.String("dir", "", "the workspace (default: the current directory, or the nearest parent with mcp.json)")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, code, ok := parse(fs, args[1:])
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError(name, "unexpected argument %q", rest[0])
	}
	ws, err := a.openWith(app.OpenOptions{Dir: *dir})
	if err != nil {
		return a.configError(name, err)
	}
	before, err := ws.TokenStats()
	if err != nil && sub == "status" {
		return a.fail(name, err)
	}
	if sub == "forget" {
		if err := ws.ForgetTokens(); err != nil {
			return a.fail(name, err)
		}
		if *asJSON {
			writeJSON(a.stdout, map[string]any{"cleared": before.Entries})
			return exitOK
		}
		fmt.Fprintf(a.stdout, "Cleared %d values from the token store (%s). Tokens shown before no longer resolve; their numbers will not be reused.\n",
			before.Entries, ws.Rel(before.Path))
		return exitOK
	}
	if *asJSON {
		writeJSON(a.stdout, before)
		return exitOK
	}
	mode := app.PrivacyOff
	if p := ws.Config.Privacy; p != nil && p.Mode != "" {
		mode = p.Mode
	}
	fmt.Fprintf(a.stdout, "Privacy mode in %s: %s\n", ws.Rel(ws.Config.Path), mode)
	if p := ws.Config.Privacy; p != nil && len(p.Flows) > 0 {
		for _, f := range p.Flows {
			fmt.Fprintf(a.stdout, "Flow rule: data from %s may go to %s\n", f.From, orNone(f.To))
		}
	}
	if !before.Exists {
		fmt.Fprintf(a.stdout, "Token store %s: empty (no run has tokenized yet)\n", ws.Rel(before.Path))
		return exitOK
	}
	fmt.Fprintf(a.stdout, "Token store %s: %d of at most %d values, %s\n", ws.Rel(before.Path), before.Entries, before.Max, formatBytes(before.Bytes))
	kinds := make([]string, 0, len(before.ByKind))
	for k := range before.ByKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		fmt.Fprintf(a.stdout, "  %-8s %d\n", k, before.ByKind[k])
	}
	return exitOK
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "no other server"
	}
	return strings.Join(names, ", ")
}
