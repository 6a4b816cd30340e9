// Package demo provides the built-in demo MCP servers: google-drive,
// salesforce and slack, modelled on the scenarios of Anthropic's "Code
// execution with MCP" article. They need no accounts and serve
// deterministic synthetic data (seeded, identical bytes on every run and
// machine) that includes names, emails and phone numbers, all fictional.
//
// google-drive and salesforce declare output schemas and return
// structuredContent; slack declares none and answers with JSON text, since
// real servers come both ways.
package demo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverVersion is reported by every demo server.
const serverVersion = "1.0.0"

type serverSpec struct {
	title        string
	instructions string
	register     func(*mcp.Server)
}

var specs = map[string]serverSpec{
	"google-drive": {"Google Drive (demo)", driveInstructions, registerDrive},
	"salesforce":   {"Salesforce (demo)", salesforceInstructions, registerSalesforce},
	"slack":        {"Slack (demo)", slackInstructions, registerSlack},
}

// Names returns the names of the demo servers, sorted.
func Names() []string {
	names := make([]string, 0, len(specs))
	for name := range specs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// New returns a fresh demo server with fresh in-memory state: salesforce
// updates and slack messages live as long as the returned server. The
// shared read-only data is built once per process on first use.
func New(name string) (srv *mcp.Server, err error) {
	spec, ok := specs[name]
	if !ok {
		return nil, fmt.Errorf("unknown demo server %q; choose one of %s", name, strings.Join(Names(), ", "))
	}
	// The SDK panics on an invalid tool declaration; keep that inside.
	defer func() {
		if r := recover(); r != nil {
			srv, err = nil, fmt.Errorf("building demo server %q: %v", name, r)
		}
	}()
	srv = mcp.NewServer(&mcp.Implementation{
		Name:    "demo-" + name,
		Title:   spec.title,
		Version: serverVersion,
	}, &mcp.ServerOptions{
		Instructions: spec.instructions,
		Capabilities: &mcp.ServerCapabilities{}, // tools only; no logging
	})
	spec.register(srv)
	return srv, nil
}

// Serve runs the named demo server on t until the client disconnects
// (nil) or ctx ends (nil as well: stopping is not a failure). Other errors
// come from the transport.
func Serve(ctx context.Context, name string, t mcp.Transport) error {
	srv, err := New(name)
	if err != nil {
		return err
	}
	if err := srv.Run(ctx, t); err != nil && !isShutdown(ctx, err) {
		return fmt.Errorf("demo server %q: %w", name, err)
	}
	return nil
}

// isShutdown reports whether err only says that the session ended normally.
func isShutdown(ctx context.Context, err error) bool {
	return ctx.Err() != nil || errors.Is(err, mcp.ErrConnectionClosed)
}
