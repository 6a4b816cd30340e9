// Package gateway is `mcpcode serve`: one MCP server that agent hosts
// (Claude Desktop, Claude Code, Cursor, VS Code, agent SDKs) connect to in
// place of their upstream servers. It offers a handful of tools over the
// workspace (search the generated tree, read its files, execute a program,
// propose a skill) and every approved skill as a tool of its own. It is a
// second face over internal/app, like the CLI: it holds no use case.
//
// Writes are made under a person's eye: when a program run through execute
// calls a tool that is not read-only, the gateway asks the host first (an
// input_required round of the call for hosts on protocol 2026-07-28,
// rounds.go; MCP elicitation for older hosts), unless the configured policy
// says otherwise.
package gateway

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool sets a gateway can serve.
const (
	// ToolsCode serves search_tools, read, execute and propose_skill, and
	// the approved skills.
	ToolsCode = "code"
	// ToolsSkills serves only the approved skills.
	ToolsSkills = "skills"
)

// Write confirmation policies.
const (
	// ConfirmAsk asks the person through the host before each write a
	// program makes; a host that cannot be asked gets ConfirmDeny.
	ConfirmAsk = "ask"
	// ConfirmAllow lets programs call every tool.
	ConfirmAllow = "allow"
	// ConfirmDeny refuses every call of a tool that is not read-only,
	// except from skills a person granted write.
	ConfirmDeny = "deny"
)

// Options configure a Gateway.
type Options struct {
	// Tools is ToolsCode (default) or ToolsSkills.
	Tools string
	// ConfirmWrites is ConfirmAsk (default), ConfirmAllow or ConfirmDeny.
	ConfirmWrites string
	// Limits bound each run; zero fields take the runtime's defaults.
	Limits runtime.Limits
	// Isolation is app.IsolationWorker (default) or app.IsolationNone.
	Isolation string
	// ConnectTimeout bounds connecting to one upstream server.
	ConnectTimeout time.Duration
	// Version is mcpcode's version, reported to clients.
	Version string
	// Logger receives the gateway's own diagnostics; nil discards them.
	Logger *slog.Logger
}

// Gateway is the MCP server of one workspace.
type Gateway struct {
	ws     *app.Workspace
	opts   Options
	server *mcp.Server
	pool   *servers.Pool
	log    *slog.Logger

	// stateless is set when the gateway is served over stateless HTTP,
	// where it cannot send requests (elicitation) to clients.
	stateless atomic.Bool

	// states signs and checks the requestStates of input_required rounds;
	// held are the runs this process holds between rounds (rounds.go).
	states *stateStore
	held   heldRuns
	// holdGrace bounds how long a resumed run's request waits for the run
	// to catch up with its journal (defaultHoldGrace; tests shorten it).
	holdGrace time.Duration

	mu         sync.Mutex
	skillTools map[string]string // tool name → fingerprint of what was registered
	resources  map[string]bool   // registered resource URIs
}

// New returns the gateway of a workspace; Close releases its upstream
// connections.
func New(ws *app.Workspace, opts Options) (*Gateway, error) {
	switch opts.Tools {
	case "":
		opts.Tools = ToolsCode
	case ToolsCode, ToolsSkills:
	default:
		return nil, fmt.Errorf("--tools %q: use %s or %s", opts.Tools, ToolsCode, ToolsSkills)
	}
	switch opts.ConfirmWrites {
	case "":
		opts.ConfirmWrites = ConfirmAsk
	case ConfirmAsk, ConfirmAllow, ConfirmDeny:
	default:
		return nil, fmt.Errorf("--confirm-writes %q: use %s, %s or %s", opts.ConfirmWrites, ConfirmAsk, ConfirmAllow, ConfirmDeny)
	}
	if opts.Isolation == "" {
		opts.Isolation = app.IsolationWorker
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	g := &Gateway{ws: ws, opts: opts, log: log, skillTools: map[string]string{}, resources: map[string]bool{},
		states: newStateStore(ws.State()), holdGrace: defaultHoldGrace}
	g.pool = ws.Pool(app.PoolOptions{ConnectTimeout: opts.ConnectTimeout})
	g.server = mcp.NewServer(&mcp.Implementation{Name: "mcpcode", Title: "mcpcode", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions(opts.Tools),
		// What is served, and so what server/discover and initialize
		// advertise: tools and resources that change, no prompts (the list
		// is empty), completion of the tree's resource template.
		Capabilities: &mcp.ServerCapabilities{
			Tools:       &mcp.ToolCapabilities{ListChanged: true},
			Resources:   &mcp.ResourceCapabilities{ListChanged: true},
			Prompts:     &mcp.PromptCapabilities{},
			Completions: &mcp.CompletionCapabilities{},
		},
		CompletionHandler: g.complete,
	})
	g.states.sweep() // journals and markers left by runs that never ended
	g.server.AddReceivingMiddleware(g.syncOnList)
	if opts.Tools == ToolsCode {
		g.addCodeTools()
		g.addResourceTemplate()
	}
	if err := g.Sync(); err != nil {
		g.pool.Close()
		return nil, err
	}
	return g, nil
}

// Server is the MCP server, to run on a transport.
func (g *Gateway) Server() *mcp.Server { return g.server }

// Root is the workspace served.
func (g *Gateway) Root() string { return g.ws.Root }

// Close stops the runs held between rounds and closes the upstream
// connections.
func (g *Gateway) Close() error {
	g.held.stopAll()
	return g.pool.Close()
}

// Run serves one connection (stdio for hosts that start mcpcode from their
// config) until it ends or ctx is done.
func (g *Gateway) Run(ctx context.Context, t mcp.Transport) error {
	err := g.server.Run(ctx, t)
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// Sync brings the served skills and resources in line with the workspace:
// skills approved, dismissed or edited since the last sync become, stop
// being or change tools, and the tree's files become resources. go-sdk
// sends the list_changed notifications for what changed.
func (g *Gateway) Sync() error {
	if err := g.syncSkills(); err != nil {
		return err
	}
	if g.opts.Tools == ToolsCode {
		return g.syncResources()
	}
	return nil
}

// instructions teach an agent the workflow in a few lines.
func instructions(tools string) string {
	if tools == ToolsSkills {
		return "Each tool is a skill: a reviewed program that a person approved. Call it with the input its schema describes; only its result comes back."
	}
	return `mcpcode turns many MCP servers into a typed TypeScript API. Work in code, not in tool calls:
1. search_tools finds the few tools you need (or read "servers/README.md").
2. read the one or two tool files it names (servers/<server>/<tool>.ts) for their input and output types.
3. execute a short TypeScript program that imports them ("servers/<server>/<tool>"), filters and joins data in code, and logs or returns only what you need: large data stays in the program.
4. When a program is worth keeping, propose_skill; a person reviews it before it can run as a tool.
Calls to tools that change things may ask the user first.`
}
