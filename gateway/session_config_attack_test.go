package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/session"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Attacks on a workspace session's lifecycle: what it serves must be what
// the run would start itself.

// whoUpstream is a server that says which token it was started with.
func whoUpstream(token string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "who", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: token}}}, nil
	})
	return s
}

// TestRunDoesNotUseASessionWithOtherValues: ${VAR} in mcp.json takes its
// value from the session's environment for the servers the session starts.
// A run whose own environment gives it another value (another account's
// token, another target) must not be served by them, silently acting as
// that other account: it warns and starts its own server with its value.
// A run without the variable (an agent host's process without the secret)
// uses the session, and so does a run with the same value.
func TestRunDoesNotUseASessionWithOtherValues(t *testing.T) {
	t.Parallel()
	if !session.Supported {
		t.Skip("sessions need Linux")
	}
	dir := t.TempDir()
	writeConfigFile(t, filepath.Join(dir, "mcp.json"), `{"mcpServers": {"who": {"command": "unused", "env": {"TOKEN": "${TOKEN}"}}}}`)
	var starts atomic.Int32
	dial := func(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
		starts.Add(1)
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = whoUpstream(cfg.Env["TOKEN"]).Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}
	open := func(environ ...string) *app.Workspace {
		ws, err := (&app.App{Environ: environ, Dial: dial}).Open(app.OpenOptions{Dir: dir, RequireConfig: true})
		if err != nil {
			t.Fatal(err)
		}
		return ws
	}
	serveSession(t, open("TOKEN=session-account"), 0)
	for _, c := range []struct {
		environ      []string
		want         string
		warns, start bool
	}{
		{nil, "session-account", false, false},                               // the first run starts the session's server
		{[]string{"TOKEN=session-account"}, "session-account", false, false}, // the same value: the session's server
		{[]string{"TOKEN=other-account"}, "other-account", true, true},       // another value: a server of its own
	} {
		before := starts.Load()
		var warnings []string
		res, err := open(c.environ...).Run(t.Context(), app.RunRequest{Isolation: app.IsolationNone,
			Source: []byte(`import { callMCPTool } from "mcpcode:runtime";
export default (await callMCPTool("who", "whoami", {})).content[0].text;`),
			Warn: func(m string) { warnings = append(warnings, m) }})
		if err != nil || !res.OK {
			t.Fatalf("run with %q: %v %+v", c.environ, err, res.Error)
		}
		if got := strings.Trim(string(res.Result), `"`); got != c.want {
			t.Errorf("a run with %q was served as %q, want %q", c.environ, got, c.want)
		}
		if warned := len(warnings) > 0 && strings.Contains(warnings[0], "who"); warned != c.warns {
			t.Errorf("a run with %q warned %q", c.environ, warnings)
		}
		if started := starts.Load() > before; c.start != started && before > 0 {
			t.Errorf("a run with %q started a server: %v, want %v", c.environ, started, c.start)
		}
	}
}

// writeConfigFile writes text to the mcp.json at path as a new file (a
// new inode: an edit a session notices at once).
func writeConfigFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path+".tmp", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		t.Fatal(err)
	}
}

// TestSessionServesMcpJSONAsItIsWhenItListens: mcp.json edited after the
// session's workspace was opened but before the session listens (session
// start reads it first, then makes its socket) is not served stale: the
// first call gets the server of the new entry.
func TestSessionServesMcpJSONAsItIsWhenItListens(t *testing.T) {
	t.Parallel()
	if !session.Supported {
		t.Skip("sessions need Linux")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "mcp.json")
	writeConfigFile(t, cfg, `{"mcpServers": {"who": {"command": "unused", "args": ["old"]}}}`)
	ws, err := (&app.App{Dial: func(ctx context.Context, c servers.ServerConfig) (mcp.Transport, error) {
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = whoUpstream(strings.Join(c.Args, " ")).Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}}).Open(app.OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	writeConfigFile(t, cfg, `{"mcpServers": {"who": {"command": "unused", "args": ["new"]}}}`)
	serveSession(t, ws, 0)
	run, err := servers.DialSession(t.Context(), ws.Session(), servers.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	if got := callText(t, run, t.Context(), "who", "whoami"); got != "new" {
		t.Errorf("the session served the server of the entry %q, want the entry as mcp.json has it now (new)", got)
	}
}
