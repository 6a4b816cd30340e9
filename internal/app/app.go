// Package app holds the use cases that every face of mcpcode calls: the CLI
// and the MCP gateway (`mcpcode serve`). A face parses its input,
// makes one call here and renders what comes back; nothing here prints to a
// terminal, reads flags or exits.
//
// The use cases: open a workspace (found by walking up to mcp.json, like
// git finds .git), list its servers and tools, generate the typed tree
// (with a lock, and a watch mode), run a program from a file, from text or
// as an approved skill, and the skills' life cycle (propose, show, approve,
// dismiss, verify). Which host variables reach stdio servers is decided
// here too.
package app

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"time"

	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// App carries what the use cases need from the host. The zero value is not
// usable: set Environ and WorkerCommand (the CLI does).
type App struct {
	// Environ is the host environment ("KEY=value"); only the variables
	// BaseEnv keeps reach stdio servers, and ${VAR} in mcp.json is looked up
	// in it.
	Environ []string
	// Version identifies mcpcode to upstream servers.
	Version string
	// WorkerCommand returns the command that starts a worker process
	// (`mcpcode __worker`). Nil makes isolation "worker" unavailable.
	WorkerCommand func() *exec.Cmd
	// SessionCommand returns the command that serves the workspace
	// session of root (`mcpcode session start --foreground`; StartSession
	// runs it in the background). Nil: sessions cannot be started.
	SessionCommand func(root, config string, idle time.Duration) *exec.Cmd
	// Dial, when set, replaces the real transports (tests connect in-process
	// servers with it).
	Dial func(ctx context.Context, s servers.ServerConfig) (mcp.Transport, error)
	// TokenDir is where OAuth logins of http and sse servers are stored,
	// per user and outside any workspace ("" keeps them in memory only).
	TokenDir string
	// Login, when set, lets a server that asks for authorization log the
	// person in during the command (a browser); nil fails such a server
	// with "needs login: mcpcode auth NAME".
	Login *servers.LoginOptions

	pools workerPools
	// later is what Close does first: stopping the servers of one-shot runs.
	later struct {
		mu  sync.Mutex
		fns []func() error
	}
}

// UsageError is a problem with how mcpcode was invoked or configured (bad
// arguments, a missing or broken mcp.json): faces report it apart from
// work that failed (the CLI exits 2 instead of 1).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usageErrorf returns a *UsageError.
func usageErrorf(err error) error {
	if err == nil {
		return nil
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return err
	}
	return &UsageError{Err: err}
}

// IsUsage reports whether err is a usage or configuration problem.
func IsUsage(err error) bool {
	var ue *UsageError
	return errors.As(err, &ue)
}

// lookupEnv resolves ${VAR} in mcp.json from the host environment.
func (a *App) lookupEnv(key string) (string, bool) {
	for i := len(a.Environ) - 1; i >= 0; i-- {
		kv := a.Environ[i]
		if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
			return kv[len(key)+1:], true
		}
	}
	return "", false
}
