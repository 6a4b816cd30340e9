//go:build unix

package servers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/oauth2"
)

// TestTokenStoreRefusesLoginsOthersControl: a token file is used only
// when it is a plain file of the user's own that nobody else may read or
// write. Otherwise another account on the machine (a shared or
// pre-created config directory) could plant a login, its token and its
// DPoP key, and mcpcode would send the person's tool calls with that
// account's credentials; or read a login it left readable.
func TestTokenStoreRefusesLoginsOthersControl(t *testing.T) {
	key, err := newDPoPKey()
	if err != nil {
		t.Fatal(err)
	}
	const url = "https://mcp.example/mcp"
	planted := func(t *testing.T) *TokenStore {
		s := &TokenStore{Dir: t.TempDir()}
		if err := s.save(&storedLogin{URL: url, ClientID: "c", Grant: GrantAuthorizationCode, DPoP: key,
			Token: &oauth2.Token{AccessToken: "planted-at", TokenType: "DPoP"}}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	t.Run("own file", func(t *testing.T) {
		l, err := planted(t).load(url)
		if err != nil || l == nil || l.Token.AccessToken != "planted-at" || l.DPoP == nil {
			t.Fatalf("the user's own login is not loaded: %v", err)
		}
	})
	for _, tc := range []struct {
		name  string
		spoil func(t *testing.T, s *TokenStore)
		want  string
	}{
		{"another user's", func(t *testing.T, s *TokenStore) {
			uid := os.Geteuid()
			effectiveUID = func() int { return uid + 4242 }
			t.Cleanup(func() { effectiveUID = os.Geteuid })
		}, "belongs to another user"},
		{"readable by others", func(t *testing.T, s *TokenStore) {
			if err := os.Chmod(s.fileFor(url), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "chmod 600"},
		{"a symbolic link", func(t *testing.T, s *TokenStore) {
			other := filepath.Join(t.TempDir(), "elsewhere.json")
			if err := os.Rename(s.fileFor(url), other); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, s.fileFor(url)); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := planted(t)
			tc.spoil(t, s)
			l, err := s.load(url)
			if l != nil {
				t.Fatalf("the login was used (token %q)", l.Token.AccessToken)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "planted-at") {
				t.Fatalf("error %v, want one that says %q", err, tc.want)
			}
		})
	}
	t.Run("save into another user's directory", func(t *testing.T) {
		s := &TokenStore{Dir: t.TempDir()}
		uid := os.Geteuid()
		effectiveUID = func() int { return uid + 4242 }
		defer func() { effectiveUID = os.Geteuid }()
		err := s.save(&storedLogin{URL: url, Grant: GrantAuthorizationCode, DPoP: key, Token: &oauth2.Token{AccessToken: "mine"}})
		if err == nil || !strings.Contains(err.Error(), "belongs to another user") {
			t.Fatalf("saving into a directory another user owns: %v", err)
		}
		if files, _ := filepath.Glob(filepath.Join(s.Dir, "*")); len(files) != 0 {
			t.Fatalf("files written: %v", files)
		}
	})
}
