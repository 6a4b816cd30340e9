package cli

import (
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
	"github.com/mcpcode/mcpcode/servers"
)

func cmdAuth(a *cli, args []string) int {
	fs := a.flags("auth", "[--dir WORKSPACE] [--config FILE] [--no-browser] [--timeout 5m] [--json] SERVER\n   or: mcpcode auth --logout SERVER",
		"Logs in to an http or sse server that asks for OAuth authorization: opens the authorization page\n"+
			"in a browser ($BROWSER URL when $BROWSER is set), takes the redirect on a loopback address and\n"+
			"stores the token for later commands (gen, run, tools), per user and outside the workspace\n"+
			"(the user config directory, mcpcode/tokens, readable only by you); it is refreshed as needed and\n"+
			"never printed. A server configured for client credentials gets its token without a browser.\n"+
			"--logout forgets the stored login.")
	var cf connFlags
	cf.register(fs)
	noBrowser := fs.Bool("no-browser", false, "print the login URL instead of opening a browser")
	logout := fs.Bool("logout", false, "forget the stored login of the server")
	timeout := fs.Duration("timeout", servers.DefaultLoginTimeout, "how long to wait for the login in the browser")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	names, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(names) != 1 {
		return a.usageError("auth", "give one server name")
	}
	ws, err := a.open(cf)
	if err != nil {
		return a.configError("auth", err)
	}
	name := names[0]
	if *logout {
		had, err := ws.Logout(name)
		if err != nil {
			if app.IsUsage(err) {
				return a.usageError("auth", "%v", err)
			}
			return a.fail("auth", err)
		}
		if *asJSON {
			writeJSON(a.stdout, map[string]any{"server": name, "loggedOut": had})
		} else if had {
			fmt.Fprintf(a.stdout, "Logged out of %s: its stored login is deleted.\n", name)
		} else {
			fmt.Fprintf(a.stdout, "%s has no stored login.\n", name)
		}
		return exitOK
	}
	a.app.Login = &servers.LoginOptions{Timeout: *timeout}
	open := a.openURL
	if *noBrowser {
		open = a.printURL
	}
	rep, err := ws.Login(a.ctx, name, open)
	if err != nil {
		if app.IsUsage(err) {
			return a.usageError("auth", "%v", err)
		}
		var se *servers.ServerError
		if errors.As(err, &se) {
			fmt.Fprintf(a.stderr, "mcpcode auth: %s\n", indentRest(visible.Text(se.Detail())))
			return exitFailure
		}
		return a.fail("auth", err)
	}
	if *asJSON {
		writeJSON(a.stdout, rep)
		return exitOK
	}
	fmt.Fprintln(a.stdout, loginSummary(rep))
	return exitOK
}

// loginSummary is what mcpcode auth says about a login. The scopes come
// from the authorization server and are shown escaped (internal/visible).
func loginSummary(rep *app.LoginReport) string {
	scopes := ""
	if len(rep.Scopes) > 0 {
		scopes = " (scopes: " + visible.Line(strings.Join(rep.Scopes, " ")) + ")"
	}
	if rep.DPoP {
		scopes += " with a DPoP-bound token"
	}
	switch rep.Status {
	case app.LoginDone:
		return fmt.Sprintf("Logged in to %s%s; %s listed. The token is stored in %s, readable only by you.", rep.Server, scopes, plural(rep.Tools, "tool"), rep.TokenDir)
	case app.LoginAlready:
		return fmt.Sprintf("Already logged in to %s%s; %s listed. To log in again: mcpcode auth --logout %s, then mcpcode auth %s.", rep.Server, scopes, plural(rep.Tools, "tool"), rep.Server, rep.Server)
	}
	return fmt.Sprintf("%s asks for no login; %s listed.", rep.Server, plural(rep.Tools, "tool"))
}

// tokenDir is where OAuth logins are stored: the user config directory
// ($XDG_CONFIG_HOME, else ~/.config on Linux), mcpcode/tokens.
func tokenDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "mcpcode", "tokens")
}

// loginOptions lets a command (run, gen, tools) log in when a server asks
// for it, if there is a way to show the person the login page: $BROWSER,
// or a terminal. Otherwise such a server fails with "needs login".
func (a *cli) loginOptions() *servers.LoginOptions {
	if os.Getenv("BROWSER") != "" {
		return &servers.LoginOptions{OpenURL: a.openURL}
	}
	in, ok := a.stdin.(*os.File)
	errOut, ok2 := a.terminal().(*os.File)
	if ok && ok2 && isTerminal(in) && isTerminal(errOut) {
		return &servers.LoginOptions{OpenURL: a.openURL}
	}
	return nil
}

// printURL shows the login URL for the person to open.
func (a *cli) printURL(_ context.Context, server, url string) error {
	fmt.Fprintf(a.stderr, "To log in to %s, open this URL in a browser:\n  %s\nWaiting for the login...\n", visible.Line(server), visible.Line(url))
	return nil
}

// openURL opens the login page in a browser: $BROWSER when set (the
// convention that lets headless machines and tests complete the flow),
// else the system's opener; the URL is printed as well.
func (a *cli) openURL(_ context.Context, server, url string) error {
	// Only a web page: the URL is the authorization server's, and an
	// opener given a file: URL or another program's scheme opens a local
	// file or starts that program.
	if u, err := neturl.Parse(url); err != nil || (!strings.EqualFold(u.Scheme, "https") && !strings.EqualFold(u.Scheme, "http")) || u.Host == "" {
		return fmt.Errorf("the login page %s is not an http or https URL: mcpcode does not open it", visible.Line(url))
	}
	fmt.Fprintf(a.stderr, "Logging in to %s: opening the login page in a browser.\nIf none opens, open this URL:\n  %s\n", visible.Line(server), visible.Line(url))
	var cmd *exec.Cmd
	if b := os.Getenv("BROWSER"); b != "" {
		// The URL is the authorization server's text: it goes to the
		// shell as a parameter ($1), never into the command's text, where
		// the person's own quotes around %s would undo any quoting of
		// ours and let a "$(...)" or ";" in it run.
		line := b + ` "$1"`
		if strings.Contains(b, "%s") {
			line = strings.ReplaceAll(b, "%s", `"$1"`)
		}
		cmd = exec.Command("/bin/sh", "-c", line, "mcpcode-browser", url)
	} else {
		switch goruntime.GOOS {
		case "darwin":
			cmd = exec.Command("open", url)
		case "windows":
			cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
		default:
			cmd = exec.Command("xdg-open", url)
		}
	}
	cmd.Stdout, cmd.Stderr = a.stderr, a.stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(a.stderr, "(could not open a browser: %v)\n", err)
		return nil // the URL is printed; the person can open it
	}
	// A browser command may return at once or only when the page is
	// closed: do not wait for it, but reap it.
	go func() { _ = cmd.Wait() }()
	return nil
}
