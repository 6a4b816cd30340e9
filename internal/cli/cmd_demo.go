package cli

import (
	"strings"

	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func cmdDemoServer(a *cli, args []string) int {
	fs := a.flags("demo-server", "NAME",
		"Serves a built-in demo MCP server over stdin/stdout (synthetic data, no accounts).\nNames: "+strings.Join(demo.Names(), ", ")+".")
	rest, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(rest) != 1 {
		return a.usageError("demo-server", "want one server name (%s)", strings.Join(demo.Names(), ", "))
	}
	if _, err := demo.New(rest[0]); err != nil {
		return a.usageError("demo-server", "%v", err)
	}
	if err := demo.Serve(a.ctx, rest[0], &mcp.StdioTransport{}); err != nil && a.ctx.Err() == nil {
		return a.fail("demo-server", err)
	}
	return exitOK
}
