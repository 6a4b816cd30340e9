package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpcode/mcpcode/servers"
)

// tokens is the store of OAuth logins, nil when the app keeps none.
func (a *App) tokens() *servers.TokenStore {
	if a.TokenDir == "" {
		return nil
	}
	return &servers.TokenStore{Dir: a.TokenDir}
}

// LoginReport is what logging in to one server did.
type LoginReport struct {
	Server string `json:"server"`
	// Status is "logged-in" (a login now), "already" (a stored login still
	// works) or "not-needed" (the server asked for no authorization).
	Status string   `json:"status"`
	Scopes []string `json:"scopes,omitempty"`
	Grant  string   `json:"grant,omitempty"`
	// DPoP is true when the token is DPoP-bound (RFC 9449) to a key
	// stored with the login.
	DPoP  bool `json:"dpop,omitempty"`
	Tools int  `json:"tools"`
	// TokenDir is where the login is stored (the token itself is never
	// shown).
	TokenDir string `json:"tokenDir,omitempty"`
}

// Login statuses.
const (
	LoginDone      = "logged-in"
	LoginAlready   = "already"
	LoginNotNeeded = "not-needed"
)

// Login logs in to one http or sse server: it connects, and when the server
// asks for authorization, runs the OAuth flow (openURL shows the person the
// authorization page), then stores the token for later commands.
func (w *Workspace) Login(ctx context.Context, name string, openURL func(ctx context.Context, server, url string) error) (*LoginReport, error) {
	cfg, err := w.oauthServer(name)
	if err != nil {
		return nil, err
	}
	login := &servers.LoginOptions{OpenURL: openURL}
	if w.app.Login != nil {
		login.Timeout = w.app.Login.Timeout
	}
	pool := w.pool(PoolOptions{}, login)
	defer pool.Close()
	l, err := pool.Connect(ctx, cfg.Name)
	if err != nil {
		return nil, err
	}
	info := pool.Authorization(cfg.Name)
	rep := &LoginReport{Server: cfg.Name, Scopes: info.Scopes, Grant: info.Grant, DPoP: info.DPoP, Tools: len(l.Tools), TokenDir: w.app.TokenDir}
	switch {
	case info.LoggedIn:
		rep.Status = LoginDone
	case info.OAuth:
		rep.Status = LoginAlready
	default:
		rep.Status, rep.Grant = LoginNotNeeded, ""
	}
	return rep, nil
}

// Logout forgets the stored login of one server; it reports whether there
// was one.
func (w *Workspace) Logout(name string) (bool, error) {
	cfg, err := w.oauthServer(name)
	if err != nil {
		return false, err
	}
	store := w.app.tokens()
	if store == nil {
		return false, errors.New("no token store is configured")
	}
	return store.Forget(cfg.URL)
}

// oauthServer is the config of a server that can take an OAuth login.
func (w *Workspace) oauthServer(name string) (servers.ServerConfig, error) {
	cfg, ok := w.Config.Server(name)
	if !ok {
		return cfg, usageErrorf(fmt.Errorf("%w %q: %s", servers.ErrUnknownServer, name, serverList(w.Config)))
	}
	if cfg.Err != nil {
		return cfg, usageErrorf(cfg.Err)
	}
	if cfg.Transport == servers.TransportStdio {
		return cfg, usageErrorf(fmt.Errorf("server %q is a stdio server: it takes no OAuth login (give it its credentials in \"env\" in mcp.json)", name))
	}
	return cfg, nil
}

func serverList(c *servers.Config) string {
	names := c.Names()
	if len(names) == 0 {
		return "mcp.json configures no servers"
	}
	return fmt.Sprintf("mcp.json configures %v", names)
}
