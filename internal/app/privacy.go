package app

import (
	"fmt"
	"path/filepath"
	"sync"

	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/privacy"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
)

// Privacy modes of a run (RunRequest.Privacy); "" takes the workspace's
// mode from mcp.json ("privacy": {"mode": ...}), off when it has none.
const (
	PrivacyTokenize = servers.PrivacyTokenize
	PrivacyOff      = servers.PrivacyOff
)

// privacyDir holds the token store, in the state directory.
const privacyDir = "privacy"

// PrivacyDir is the directory of the workspace's token store.
func (w *Workspace) PrivacyDir() string { return filepath.Join(w.Root, layout.StateDir, privacyDir) }

// stores holds one token store per directory for the process, so that
// concurrent runs (serve) share its cache and its lock.
var stores struct {
	mu sync.Mutex
	m  map[string]*privacy.Store
}

// TokenStore returns the workspace's token store.
func (w *Workspace) TokenStore() *privacy.Store {
	maxTokens := 0
	if p := w.Config.Privacy; p != nil {
		maxTokens = p.MaxTokens
	}
	dir := w.PrivacyDir()
	stores.mu.Lock()
	defer stores.mu.Unlock()
	if stores.m == nil {
		stores.m = map[string]*privacy.Store{}
	}
	st, ok := stores.m[dir]
	if !ok {
		st = privacy.NewStore(dir, maxTokens)
		stores.m[dir] = st
	}
	return st
}

// ForgetTokens clears the workspace's token store: tokens shown before stop
// resolving, and their numbers are never given to other values.
func (w *Workspace) ForgetTokens() error { return w.TokenStore().Forget() }

// TokenStats describes the token store without its values.
func (w *Workspace) TokenStats() (privacy.Stats, error) { return w.TokenStore().Stats() }

// privacyMode resolves a run's privacy mode.
func (w *Workspace) privacyMode(requested string) (string, error) {
	switch requested {
	case PrivacyTokenize, PrivacyOff:
		return requested, nil
	case "":
		if p := w.Config.Privacy; p != nil && p.Mode != "" {
			return p.Mode, nil
		}
		return PrivacyOff, nil
	}
	return "", usageErrorf(fmt.Errorf("privacy mode %q: use %q or %q", requested, PrivacyTokenize, PrivacyOff))
}

// privacySession starts the privacy of a run: nil when the run neither
// tokenizes nor has flow rules to enforce.
func (w *Workspace) privacySession(mode string) (*privacy.Session, error) {
	cfg := privacy.Config{Tokenize: mode == PrivacyTokenize}
	if p := w.Config.Privacy; p != nil {
		cfg.Kinds = p.Detectors
		cfg.NameFields = p.NameFields
		for _, pt := range p.Patterns {
			cfg.Patterns = append(cfg.Patterns, privacy.Pattern{Kind: pt.Kind, Regexp: pt.Regexp})
		}
		for _, f := range p.Flows {
			cfg.Flows = append(cfg.Flows, privacy.Flow{From: f.From, To: f.To})
		}
	}
	if !cfg.Tokenize && len(cfg.Flows) == 0 {
		// Nothing to do, but a broken setting is reported all the same.
		if _, err := privacy.NewDetector(cfg.Kinds, cfg.Patterns); err != nil {
			return nil, usageErrorf(fmt.Errorf("%s: privacy: %w", filepath.Base(w.Config.Path), err))
		}
		return nil, nil
	}
	var store *privacy.Store
	if cfg.Tokenize {
		store = w.TokenStore()
	}
	s, err := privacy.NewSession(store, cfg)
	if err != nil {
		return nil, usageErrorf(fmt.Errorf("%s: privacy: %w", filepath.Base(w.Config.Path), err))
	}
	return s, nil
}

// redact replaces the values in everything of res that leaves the run by
// their tokens. When the token store cannot be updated, nothing of the
// output is shown.
func redact(s *privacy.Session, res *runtime.Result) {
	err := s.Finish(func(r *privacy.Redactor) {
		for i := range res.Logs {
			res.Logs[i].Text = r.Text(res.Logs[i].Text)
		}
		res.Result = r.JSON(res.Result)
		if e := res.Error; e != nil {
			e.Message = r.Text(e.Message)
			e.Stack = r.Text(e.Stack)
		}
	})
	if err == nil {
		return
	}
	*res = runtime.Result{OK: false, Result: []byte("null"), Logs: []runtime.LogEntry{}, ToolCalls: res.ToolCalls, Stats: res.Stats,
		Error: &runtime.RunError{Kind: runtime.KindPolicy,
			Message: fmt.Sprintf("the output of this run was withheld: privacy is on and the token store could not be updated (%v)", err)}}
}
