package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/gateway"
	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func cmdServe(a *cli, args []string) int {
	fs := a.flags("serve", "[--dir WORKSPACE] [--http ADDR [--token-file FILE] [--stateless]] [--tools code|skills] [--confirm-writes ask|allow|deny]",
		"Serves the workspace to agent hosts as one MCP server: search_tools, read, execute and propose_skill,\n"+
			"and every approved skill as a tool of its own (--tools skills serves only the skills). Over stdio by\n"+
			"default (hosts start it from their config; nothing but protocol goes to stdout), or streamable HTTP\n"+
			"with --http. Every face speaks protocol 2026-07-28 and the older revisions. A program that calls a\n"+
			"tool that is not read-only asks the person first, through the host (--confirm-writes ask): by an\n"+
			"input_required round of the call (2026-07-28, resumable on any --stateless replica of the workspace)\n"+
			"or by elicitation (older hosts); a host that cannot be asked gets a refusal that says how to allow writes.\n"+
			"Over HTTP on an address other than loopback a bearer token is required: --token-file FILE or the\n"+
			"MCPCODE_TOKEN environment variable.")
	var cf connFlags
	cf.register(fs)
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (host:port) instead of stdio")
	tools := fs.String("tools", gateway.ToolsCode, `"code": search_tools, read, execute, propose_skill and the skills; "skills": only the skills`)
	confirm := fs.String("confirm-writes", gateway.ConfirmAsk, `what a program's call of a tool that is not read-only does: "ask" the person, "allow", or "deny"`)
	tokenFile := fs.String("token-file", "", "file holding the bearer token HTTP clients must send")
	stateless := fs.Bool("stateless", false, "HTTP: serve each request on its own, for replicas behind a load balancer (hosts older than 2026-07-28 cannot be asked there: their writes are refused under ask)")
	isolation := fs.String("isolation", app.IsolationWorker, `"worker" or "none" (trusted programs only)`)
	timeout := fs.Duration("timeout", runtime.DefaultLimits().Timeout, "wall-time limit of each run (execute's timeoutMs may ask for less)")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return a.usageError("serve", "unexpected argument %q", rest[0])
	}
	if *isolation != app.IsolationWorker && *isolation != app.IsolationNone {
		return a.usageError("serve", "--isolation %q: use worker or none", *isolation)
	}
	if *timeout <= 0 {
		return a.usageError("serve", "--timeout must be positive")
	}
	if *httpAddr == "" && (*tokenFile != "" || *stateless) {
		return a.usageError("serve", "--token-file and --stateless need --http ADDR")
	}
	ws, err := a.openWith(app.OpenOptions{Dir: cf.dir, Config: cf.config})
	if err != nil {
		return a.configError("serve", err)
	}
	logger := slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	g, err := gateway.New(ws, gateway.Options{
		Tools: *tools, ConfirmWrites: *confirm, Isolation: *isolation,
		Limits: runtime.Limits{Timeout: *timeout}, ConnectTimeout: cf.connectTimeout,
		Version: mcpcodeVersion(), Logger: logger,
	})
	if err != nil {
		return a.usageError("serve", "%v", err)
	}
	defer g.Close()
	ctx, cancel := context.WithCancel(a.ctx)
	defer cancel()
	watching := make(chan struct{})
	go func() {
		if err := g.Watch(ctx, func() { close(watching) }); err != nil {
			logger.Warn("not watching skills/ and the tree for changes", "error", err)
			close(watching)
		}
	}()
	<-watching
	if *httpAddr == "" {
		if err := g.Run(ctx, &mcp.StdioTransport{}); err != nil && ctx.Err() == nil {
			return a.fail("serve", err)
		}
		return exitOK
	}
	return a.serveHTTP(ctx, g, *httpAddr, *tokenFile, *stateless)
}

// serveHTTP serves the gateway on addr until Ctrl-C.
func (a *cli) serveHTTP(ctx context.Context, g *gateway.Gateway, addr, tokenFile string, stateless bool) int {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return a.usageError("serve", "--http %q: give host:port, for example 127.0.0.1:8080", addr)
	}
	token := os.Getenv("MCPCODE_TOKEN")
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return a.usageError("serve", "--token-file: %v", err)
		}
		token = strings.TrimSpace(string(data))
		if token == "" {
			return a.usageError("serve", "--token-file %s is empty", tokenFile)
		}
	}
	if token == "" && !gateway.IsLoopback(host) {
		return a.usageError("serve", "--http %s is reachable from other machines: set a bearer token with --token-file FILE or MCPCODE_TOKEN, or bind to 127.0.0.1", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return a.fail("serve", err)
	}
	srv := &http.Server{
		Handler:           g.HTTPHandler(gateway.HTTPOptions{Token: token, Stateless: stateless}),
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	fmt.Fprintf(a.stderr, "mcpcode serve: streamable HTTP on http://%s/mcp (workspace %s)\n", ln.Addr(), g.Root())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shut)
		return exitOK
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return exitOK
		}
		return a.fail("serve", err)
	}
}
