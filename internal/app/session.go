package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mcpcode/mcpcode/internal/session"
	"github.com/mcpcode/mcpcode/servers"
)

// SessionStatus is what a workspace session says about itself.
type SessionStatus = session.Status

// ErrNoSession is returned when no session runs for the workspace.
var ErrNoSession = errors.New("no session runs for this workspace (start one with mcpcode session start)")

// DefaultSessionIdle is how long a session waits without a request before
// it stops, unless told otherwise.
const DefaultSessionIdle = 30 * time.Minute

// sessionDialTimeout bounds a run's connecting to its workspace's session
// and asking its status: a session that does not answer by then is not
// used.
const sessionDialTimeout = 5 * time.Second

// StartSession starts the workspace's session in the background
// (App.SessionCommand: this binary, serving gateway.ServeSession in a
// process of its own, in a session of its own, with the environment of
// this process, its output in .mcpcode/logs/session.log) and returns once
// it listens, with its status. It fails when one runs already.
func (w *Workspace) StartSession(ctx context.Context, idle time.Duration) (*SessionStatus, error) {
	if !session.Supported {
		_, err := session.Dial(ctx, "")
		return nil, err
	}
	if w.app.SessionCommand == nil {
		return nil, errors.New("this mcpcode cannot start sessions (no session command)")
	}
	if st, err := w.SessionStatus(ctx); err == nil {
		return nil, usageErrorf(fmt.Errorf("a session already runs for this workspace (process %d, since %s): mcpcode session status", st.Pid, st.Started.Format(time.RFC3339)))
	}
	if err := os.MkdirAll(w.Logs(), 0o755); err != nil {
		return nil, err
	}
	logPath := filepath.Join(w.Logs(), "session.log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer readyR.Close()
	cmd := w.app.SessionCommand(w.Root, w.Config.Path, idle)
	cmd.Env = w.app.Environ
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.ExtraFiles = []*os.File{readyW} // fd 3: its status once it listens
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		readyW.Close()
		return nil, fmt.Errorf("starting the session: %w", err)
	}
	readyW.Close()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	type ready struct {
		st  SessionStatus
		err error
	}
	got := make(chan ready, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(readyR, 1<<20))
		var r ready
		if err == nil {
			err = json.Unmarshal(data, &r.st)
		}
		r.err = err
		got <- r
	}()
	select {
	case r := <-got:
		if r.err == nil && r.st.Pid == cmd.Process.Pid {
			go func() { <-exited }() // reaped when it ends, should this process still run
			return &r.st, nil
		}
		err := <-exited
		return nil, fmt.Errorf("the session did not start (%v); see %s", err, logPath)
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-exited
		return nil, ctx.Err()
	}
}

// SessionStatus asks the workspace's session what it serves; ErrNoSession
// when none runs.
func (w *Workspace) SessionStatus(ctx context.Context) (*SessionStatus, error) {
	s, err := w.dialSession(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	st, err := s.AskStatus(ctx)
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// StopSession stops the workspace's session and waits until its process,
// and so its servers, are gone; ErrNoSession when none runs.
func (w *Workspace) StopSession(ctx context.Context) (*SessionStatus, error) {
	s, err := w.dialSession(ctx, nil)
	if err != nil {
		return nil, err
	}
	pid := s.Status.Pid
	st, err := s.Stop(ctx)
	s.Close()
	if err != nil {
		st = s.Status // it may have stopped before its answer reached us
	}
	for !processGone(pid) {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("the session (process %d) did not stop: %w", pid, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
	return &st, nil
}

// dialSession connects to the workspace's session; ErrNoSession when no
// socket is there or nothing listens on it.
func (w *Workspace) dialSession(ctx context.Context, h *ClientHandlers) (*servers.Session, error) {
	dir := w.Session()
	if _, err := os.Lstat(filepath.Join(dir, session.SocketName)); err != nil {
		return nil, ErrNoSession
	}
	ctx, cancel := context.WithTimeout(ctx, sessionDialTimeout)
	defer cancel()
	s, err := servers.DialSession(ctx, dir, servers.SessionOptions{Handlers: h, ClientVersion: w.app.Version})
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoSession // a socket left by a session that died
	}
	return s, err
}

// runSession returns the workspace's session for a run, nil when the run
// makes its own connections: no session runs, it serves another
// configuration file (the run's --config), or it cannot be used (then warn
// says why, and the run goes on without it).
func (w *Workspace) runSession(ctx context.Context, req RunRequest) *servers.Session {
	s, err := w.dialSession(ctx, req.Handlers)
	switch {
	case errors.Is(err, ErrNoSession):
		return nil
	case err != nil:
		req.warn("the workspace session is not used: " + err.Error() + "; this run starts the servers it calls itself")
		return nil
	}
	switch {
	case s.Status.Config != w.Config.Path:
		s.Close()
		return nil
	case s.Status.Binary != session.ExecutableID():
		s.Close()
		req.warn(fmt.Sprintf("the workspace session (process %d) runs another mcpcode binary (%s); this run starts the servers it calls itself: stop the session (mcpcode session stop) and start it again with this one", s.Status.Pid, s.Status.Binary))
		return nil
	}
	if other := w.Config.OtherEntries(s.Status.Entries); len(other) > 0 {
		// Its servers were started with other values: another account's
		// token, another URL. A run is never served by them.
		s.Close()
		req.warn(fmt.Sprintf("the workspace session (process %d) started %s from other values than this run reads in mcp.json (a ${VAR} in it has another value in this run's environment than in the session's, or mcp.json changed meanwhile); this run starts the servers it calls itself: to use the session, run with the session's values, or stop it and start it again from this environment", s.Status.Pid, strings.Join(other, ", ")))
		return nil
	}
	return s
}

// warn passes a warning about the run to the face (RunRequest.Warn).
func (req RunRequest) warn(msg string) {
	if req.Warn != nil {
		req.Warn(msg)
	}
}

// ToolListings connects the named servers (all enabled ones when none are
// named) and returns what each offers: through the workspace's session
// when one runs (its servers stay up), else with connections of its own,
// closed before it returns.
func (w *Workspace) ToolListings(ctx context.Context, names []string, o PoolOptions) []servers.Status {
	if len(names) == 0 {
		names = w.Config.Names()
	}
	if s := w.runSession(ctx, RunRequest{}); s != nil {
		defer s.Close()
		out := make([]servers.Status, len(names))
		var wg sync.WaitGroup
		for i, name := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cfg, _ := w.Config.Server(name)
				st := servers.Status{Name: name, Transport: cfg.Transport}
				if st.Listing, st.Err = s.Listing(ctx, name); st.Listing != nil {
					st.Listing.Transport = cfg.Transport
				}
				out[i] = st
			}()
		}
		wg.Wait()
		return out
	}
	pool := w.Pool(o)
	defer pool.Close()
	return pool.ConnectAll(ctx, names, nil)
}
