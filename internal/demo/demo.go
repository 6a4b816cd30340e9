// Package demo provides the built-in demo MCP servers: google-drive,
// salesforce and slack, modelled on the scenarios of Anthropic's "Code
// execution with MCP" article. They need no accounts and serve
// deterministic synthetic data (seeded, identical bytes on every run and
// machine) that includes names, emails and phone numbers, all fictional.
//
// google-drive and salesforce declare output schemas and return
// structuredContent; slack's tools answer with JSON text, since real servers
// come both ways: getChannelHistory also declares an array output schema
// (the article's polling loop uses the result as an array), postMessage
// declares none. The servers accept the article's snippets as written (see
// the article test): the SalesMeeting object, Name on Leads, the messages
// array.
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
	description  string // serverInfo.description: one plain line for people and for servers/README.md
	instructions string
	register     func(*mcp.Server)
}

var specs = map[string]serverSpec{
	"google-drive": {"Google Drive (demo)", "Demo Google Drive: a sales-meeting transcript, a 10,000-row orders sheet and a few small files (synthetic data).", driveInstructions, registerDrive},
	"salesforce":   {"Salesforce (demo)", "Demo Salesforce org: Leads, Contacts, Accounts, Opportunities and SalesMeetings, queried with a SOQL subset (synthetic data).", salesforceInstructions, registerSalesforce},
	"slack":        {"Slack (demo)", "Demo Slack workspace: three channels and a deployment in progress in #deployments (synthetic data).", slackInstructions, registerSlack},
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
		Name:        "demo-" + name,
		Title:       spec.title,
		Description: spec.description,
		Version:     serverVersion,
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
