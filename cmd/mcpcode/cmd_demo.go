package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/servers/demo"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func cmdDemoServer(a *app, args []string) int {
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

// demoConfig is the mcp.json of a demo workspace: the three demo servers,
// started through the given mcpcode binary.
func demoConfig(binary string) []byte {
	entries := map[string]any{}
	for _, name := range demo.Names() {
		entries[name] = map[string]any{"command": binary, "args": []string{"demo-server", name}}
	}
	data, _ := json.MarshalIndent(map[string]any{"mcpServers": entries}, "", "  ")
	return append(data, '\n')
}

// demoBinary returns the path the demo's mcp.json should start. A binary
// built by `go run` lives in a temporary directory that disappears when it
// exits, so it is copied into the workspace to keep the demo usable later.
func demoBinary(dir string) (path string, copied bool, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", false, fmt.Errorf("finding the mcpcode binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", false, err
	}
	if !strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return exe, false, nil
	}
	dst := filepath.Join(dir, ".mcpcode", "bin", "mcpcode")
	if err := copyExecutable(exe, dst); err != nil {
		return "", false, fmt.Errorf("copying the mcpcode binary into the demo workspace: %w", err)
	}
	return dst, true, nil
}

// copyExecutable copies the binary atomically, so that a demo started
// while another one runs never starts a half-written copy.
func copyExecutable(src, dst string) error {
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return atomicfile.Write(dst, data, 0o755)
}
