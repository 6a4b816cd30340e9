package servers

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/mcpcode/mcpcode/internal/fileowner"
)

// effectiveUID is the user stored logins must belong to (a variable so
// that a test can pose as another user).
var effectiveUID = os.Geteuid

// TokenStore keeps OAuth tokens for upstream servers, per user, outside any
// workspace (the CLI uses os.UserConfigDir()/mcpcode/tokens): one file per
// server URL, readable by the user only (0600, in a 0700 directory). A
// token is never printed or logged; only this store writes it down. A file
// that is not a plain file of the user's own, private, is not used, and
// nothing is written into a directory another user owns (ownFile).
type TokenStore struct {
	// Dir is the directory of the token files.
	Dir string

	mu sync.Mutex
}

// storedLogin is what a token file holds: the token and what refreshing it
// needs (the client registered with the authorization server and its token
// endpoint), so that later commands use and refresh it without asking
// anyone.
type storedLogin struct {
	// URL is the MCP server's URL (the file's key).
	URL string `json:"url"`
	// ClientID, ClientSecret and AuthStyle are the OAuth client (registered
	// dynamically, pre-registered, or a metadata document URL).
	ClientID     string           `json:"clientId"`
	ClientSecret string           `json:"clientSecret,omitempty"`
	AuthStyle    oauth2.AuthStyle `json:"authStyle,omitempty"`
	TokenURL     string           `json:"tokenUrl,omitempty"`
	// Issuer is the authorization server's issuer when it was pinned or a
	// client secret was configured: refreshes send the secret only there.
	Issuer string `json:"issuer,omitempty"`
	// Scopes are the scopes granted so far (a step-up asks for more, never
	// fewer).
	Scopes []string `json:"scopes,omitempty"`
	// Grant is how the token was obtained.
	Grant string `json:"grant"`
	// DPoP is the key the login's tokens are bound to (dpop.go), when the
	// authorization server advertised DPoP; nil for Bearer logins.
	DPoP    *dpopKey      `json:"dpopKey,omitempty"`
	Token   *oauth2.Token `json:"token"`
	Updated time.Time     `json:"updated"`
}

// fileFor is the token file of a server URL.
func (s *TokenStore) fileFor(url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:12])+".json")
}

// load returns the stored login for url, nil when there is none.
func (s *TokenStore) load(url string) (*storedLogin, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.fileFor(url)
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the stored login: %w", err)
	}
	if err := ownFile("the stored login", path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the stored login: %w", err)
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !os.SameFile(fi, opened) {
		return nil, fmt.Errorf("the stored login %s changed while mcpcode read it: try again", path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("reading the stored login: %w", err)
	}
	var l storedLogin
	if err := json.Unmarshal(data, &l); err != nil || l.URL != url || l.Token == nil {
		return nil, nil // unreadable or another URL's: as if absent
	}
	return &l, nil
}

// ownFile refuses a token file that is not a plain file of the user's own
// that nobody else may read or write: a login another account planted (its
// token and DPoP key) would carry the person's tool calls, and one others
// may read gives its token away.
func ownFile(what, path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s is not a regular file: mcpcode does not use it; remove it and log in again (mcpcode auth)", what, path)
	}
	uid, ok := fileowner.Of(fi)
	if !ok {
		return nil // no unix owner and mode (Windows)
	}
	if int(uid) != effectiveUID() {
		return fmt.Errorf("%s %s belongs to another user (uid %d, not %d): mcpcode does not use it; remove it and log in again (mcpcode auth)", what, path, uid, effectiveUID())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("%s %s may be read or written by others (mode %04o): mcpcode does not use it; run chmod 600 %s, or remove it and log in again", what, path, fi.Mode().Perm(), path)
	}
	return nil
}

// save writes a login atomically, readable by the user only.
func (s *TokenStore) save(l *storedLogin) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("creating the token directory: %w", err)
	}
	_ = os.Chmod(s.Dir, 0o700)
	if fi, err := os.Stat(s.Dir); err == nil {
		if uid, ok := fileowner.Of(fi); ok && int(uid) != effectiveUID() {
			return fmt.Errorf("the token directory %s belongs to another user (uid %d, not %d), who could replace the logins in it: "+
				"mcpcode stores no token there; remove it, or set XDG_CONFIG_HOME to a directory of your own", s.Dir, uid, effectiveUID())
		}
	}
	l.Updated = time.Now().UTC().Truncate(time.Second)
	data, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(s.Dir, ".token-*")
	if err != nil {
		return fmt.Errorf("writing the token: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("writing the token: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing the token: %w", err)
	}
	return os.Rename(tmp, s.fileFor(l.URL))
}

// remove deletes the stored login of url; it reports whether there was one.
func (s *TokenStore) remove(url string) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.fileFor(url))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// persisting is a token source that writes every new token it hands out
// to the store (a refreshed access token, a rotated refresh token).
type persisting struct {
	src   oauth2.TokenSource
	store *TokenStore
	login storedLogin // without Token; the template of what is saved
	onErr func(error)

	mu   sync.Mutex
	last string // the access token last saved
}

func (p *persisting) Token() (*oauth2.Token, error) {
	tok, err := p.src.Token()
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if tok.AccessToken != p.last {
		l := p.login
		l.Token = tok
		if err := p.store.save(&l); err != nil && p.onErr != nil {
			p.onErr(err)
		}
		p.last = tok.AccessToken
	}
	return tok, nil
}
