package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/mcpcode/mcpcode/gateway"
	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/visible"
)

func cmdSession(a *cli, args []string) int {
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "Usage: mcpcode session start|status|stop [--dir WORKSPACE]")
		fmt.Fprintln(w)
		fmt.Fprintln(w, "A session keeps a workspace's upstream servers running between runs: while it runs, mcpcode run")
		fmt.Fprintln(w, "in that workspace calls tools through it (stdio servers stay up with their state, HTTP sessions")
		fmt.Fprintln(w, "and logins stay warm) instead of starting the servers it calls. Each run is otherwise what it is")
		fmt.Fprintln(w, "without one: its own process and worker, limits, audit, and questions asked at its own terminal.")
		fmt.Fprintln(w, "Only its user can reach it. Nothing starts one but `mcpcode session start`; it stops on")
		fmt.Fprintln(w, "`mcpcode session stop`, after --idle without a run (default 30m), or when its binary is replaced.")
		fmt.Fprintln(w)
		fmt.Fprintln(w, `Run "mcpcode session start -h" (status, stop) for the flags.`)
	}
	if len(args) == 0 {
		usage(a.stderr)
		return exitUsage
	}
	switch args[0] {
	case "start":
		return a.sessionStart(args[1:])
	case "status":
		return a.sessionStatus(args[1:])
	case "stop":
		return a.sessionStop(args[1:])
	case "-h", "-help", "--help", "help":
		usage(a.stdout)
		return exitOK
	}
	fmt.Fprintf(a.stderr, "mcpcode session: unknown subcommand %q\n", args[0])
	usage(a.stderr)
	return exitUsage
}

func (a *cli) sessionStart(args []string) int {
	fs := a.flags("session start", "[--dir WORKSPACE] [--idle 30m] [--foreground]",
		"Starts the workspace's session in the background and returns once it listens (its log:\n"+
			".mcpcode/logs/session.log). ${VAR} in mcp.json is read from this command's environment.\n"+
			"--foreground serves in this process until Ctrl-C (for a service manager).")
	var cf connFlags
	cf.register(fs)
	idle := fs.Duration("idle", app.DefaultSessionIdle, "stop after this long without a run (0: never)")
	foreground := fs.Bool("foreground", false, "serve in this process instead of starting a background one")
	readyFD := fs.Int("ready-fd", 0, "(internal) write the session's status to this descriptor once it listens")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("session start", "unexpected argument %q", rest[0])
	}
	if *idle < 0 {
		return a.usageError("session start", "--idle must not be negative")
	}
	ws, err := a.open(cf)
	if err != nil {
		return a.configError("session start", err)
	}
	if !*foreground {
		st, err := ws.StartSession(a.ctx, *idle)
		if err != nil {
			if app.IsUsage(err) {
				return a.usageError("session start", "%v", err)
			}
			return a.fail("session start", err)
		}
		fmt.Fprintf(a.stdout, "session started for %s (process %d)%s; stop it with: mcpcode session stop\n",
			visible.Text(st.Workspace), st.Pid, idleText(time.Duration(st.IdleStop)))
		return exitOK
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	opts := gateway.SessionOptions{Idle: *idle, ConnectTimeout: cf.connectTimeout, Version: mcpcodeVersion(), Logger: logger,
		Ready: func(st app.SessionStatus) {
			logger.Info("session: listening", "workspace", st.Workspace, "pid", st.Pid, "idle", time.Duration(st.IdleStop))
			if *readyFD > 2 {
				f := os.NewFile(uintptr(*readyFD), "ready")
				_ = json.NewEncoder(f).Encode(st)
				f.Close()
			}
		}}
	if err := gateway.ServeSession(a.ctx, ws, opts); err != nil {
		return a.fail("session start", err)
	}
	logger.Info("session: stopped")
	return exitOK
}

// sessionCommand is App.SessionCommand: this binary serving the session of
// root in the foreground, its status written to fd 3 once it listens.
func sessionCommand(root, config string, idle time.Duration) *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		exe = os.Args[0]
	}
	return exec.Command(exe, "session", "start", "--foreground", "--dir", root, "--config", config,
		"--idle", idle.String(), "--ready-fd", "3")
}

func idleText(d time.Duration) string {
	if d <= 0 {
		return ", no idle stop"
	}
	return ", stops after " + d.String() + " without a run"
}

func (a *cli) sessionStatus(args []string) int {
	fs := a.flags("session status", "[--dir WORKSPACE] [--json]", "Shows the workspace's session: its process, uptime, idle stop and servers. Exits 1 when none runs.")
	var d dirFlag
	d.register(fs)
	asJSON := fs.Bool("json", false, "print the status as JSON")
	if _, code, ok := parse(fs, args); !ok {
		return code
	}
	ws, err := a.openWith(app.OpenOptions{Dir: d.dir})
	if err != nil {
		return a.configError("session status", err)
	}
	st, err := ws.SessionStatus(a.ctx)
	if err != nil {
		return a.fail("session status", err)
	}
	if *asJSON {
		writeJSON(a.stdout, st)
		return exitOK
	}
	now := time.Now()
	fmt.Fprintf(a.stdout, "session of %s: process %d, up %s, last run %s ago%s\n", visible.Text(st.Workspace), st.Pid,
		now.Sub(st.Started).Round(time.Second), now.Sub(st.LastUsed).Round(time.Second), idleText(time.Duration(st.IdleStop)))
	fmt.Fprintf(a.stdout, "config %s\nbinary %s\n", visible.Text(st.Config), visible.Text(st.Binary))
	if len(st.Restarted) > 0 {
		fmt.Fprintf(a.stdout, "restarted after mcp.json changed: %s\n", visible.Text(fmt.Sprint(st.Restarted)))
	}
	if len(st.Servers) == 0 {
		fmt.Fprintln(a.stdout, "no server started yet: a run starts the ones it calls")
		return exitOK
	}
	tw := tabwriter.NewWriter(a.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTRANSPORT\tSTATE\tTOOLS\tPID")
	for _, s := range st.Servers {
		state, pid := "not connected", "-"
		if s.Connected {
			state = "connected"
		}
		if s.Pid > 0 {
			pid = strconv.Itoa(s.Pid)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", visible.Text(s.Name), s.Transport, state, s.Tools, pid)
	}
	tw.Flush()
	return exitOK
}

func (a *cli) sessionStop(args []string) int {
	fs := a.flags("session stop", "[--dir WORKSPACE]", "Stops the workspace's session and its servers, and waits until they are gone. Exits 1 when none runs.")
	var d dirFlag
	d.register(fs)
	if _, code, ok := parse(fs, args); !ok {
		return code
	}
	ws, err := a.openWith(app.OpenOptions{Dir: d.dir})
	if err != nil {
		return a.configError("session stop", err)
	}
	st, err := ws.StopSession(a.ctx)
	if err != nil {
		return a.fail("session stop", err)
	}
	fmt.Fprintf(a.stdout, "session of %s stopped (process %d, %d servers)\n", visible.Text(st.Workspace), st.Pid, len(st.Servers))
	return exitOK
}
