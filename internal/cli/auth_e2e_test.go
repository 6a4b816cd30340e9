package cli

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// oauthFixture is an MCP server behind OAuth (go-sdk's RequireBearerToken
// and protected resource metadata) and a small authorization server:
// dynamic registration, authorization code with PKCE (S256 checked),
// refresh tokens. Access tokens live one second, so every later command
// has to refresh its token (golang.org/x/oauth2 refreshes ten seconds
// before expiry).
type oauthFixture struct {
	srv *httptest.Server

	mu         sync.Mutex
	n          int
	challenges map[string]string // code -> code_challenge
	access     map[string]bool
	refresh    map[string]bool
	issued     []string // every token issued, to look for in outputs
	authorized int      // authorization requests (a person asked to log in)
	refreshed  int      // refresh_token grants
	rejected   int      // MCP requests without a valid token
}

func newOAuthFixture(t *testing.T) *oauthFixture {
	t.Helper()
	f := &oauthFixture{challenges: map[string]string{}, access: map[string]bool{}, refresh: map[string]bool{}}
	mux := http.NewServeMux()
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	base := f.srv.URL
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: base + "/mcp", AuthorizationServers: []string{base}, ScopesSupported: []string{"tools"},
	}))
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		writeJSONResponse(w, http.StatusOK, map[string]any{
			"issuer": base, "authorization_endpoint": base + "/authorize", "token_endpoint": base + "/token",
			"registration_endpoint": base + "/register", "response_types_supported": []string{"code"},
			"grant_types_supported":            []string{"authorization_code", "refresh_token"},
			"code_challenge_methods_supported": []string{"S256"}, "token_endpoint_auth_methods_supported": []string{"none"},
			"scopes_supported": []string{"tools"},
		})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var meta map[string]any
		_ = json.NewDecoder(r.Body).Decode(&meta)
		writeJSONResponse(w, http.StatusCreated, map[string]any{"client_id": "client-1", "redirect_uris": meta["redirect_uris"], "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		if q.Get("client_id") != "client-1" || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
			http.Error(w, "bad authorization request: "+r.URL.RawQuery, http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.authorized++
		f.n++
		code := fmt.Sprintf("code-%d", f.n)
		f.challenges[code] = q.Get("code_challenge")
		f.mu.Unlock()
		to, _ := url.Parse(q.Get("redirect_uri"))
		v := to.Query()
		v.Set("code", code)
		v.Set("state", q.Get("state"))
		to.RawQuery = v.Encode()
		http.Redirect(w, r, to.String(), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		f.mu.Lock()
		defer f.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			challenge, ok := f.challenges[r.Form.Get("code")]
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				writeJSONResponse(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(f.challenges, r.Form.Get("code"))
		case "refresh_token":
			if !f.refresh[r.Form.Get("refresh_token")] {
				writeJSONResponse(w, http.StatusBadRequest, map[string]string{"error": "invalid_grant"})
				return
			}
			delete(f.refresh, r.Form.Get("refresh_token"))
			f.refreshed++
		default:
			writeJSONResponse(w, http.StatusBadRequest, map[string]string{"error": "unsupported_grant_type"})
			return
		}
		f.n++
		at, rt := fmt.Sprintf("AT-secret-%d-9f3c", f.n), fmt.Sprintf("RT-secret-%d-7b1d", f.n)
		f.access[at], f.refresh[rt] = true, true
		f.issued = append(f.issued, at, rt)
		writeJSONResponse(w, http.StatusOK, map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer", "expires_in": 1, "scope": "tools"})
	})
	server := mcp.NewServer(&mcp.Implementation{Name: "secure", Version: "1"}, nil)
	server.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "you are logged in"}}}, nil
		})
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		if !f.access[token] {
			f.rejected++
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Scopes: []string{"tools"}, Expiration: time.Now().Add(time.Hour)}, nil
	}
	mux.Handle("/mcp", auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: base + "/.well-known/oauth-protected-resource/mcp"})(
		mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)))
	return f
}

func writeJSONResponse(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *oauthFixture) counts() (authorized, refreshed int, issued []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.authorized, f.refreshed, append([]string(nil), f.issued...)
}

// outputsAndFiles is everything a secret must not show in: the commands'
// outputs and every file of the workspace ws (its logs included).
func outputsAndFiles(outputs, ws string) string {
	var everything strings.Builder
	everything.WriteString(outputs)
	_ = filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			everything.Write(data)
		}
		return nil
	})
	return everything.String()
}

// browseLogins is the person at the browser: until the test ends, it
// loads each URL the BROWSER command appended to the file urls, following
// the redirects, and sends what each load came to on the channel returned
// (nil, or why it failed), for a test that wants to know.
func browseLogins(t *testing.T, urls string) <-chan error {
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	browsed := make(chan error, 10)
	go func() {
		seen := 0
		for {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			data, _ := os.ReadFile(urls)
			lines := strings.Fields(string(data))
			for ; seen < len(lines); seen++ {
				resp, err := http.Get(lines[seen])
				if err == nil {
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						err = fmt.Errorf("the redirect page answered %s", resp.Status)
					}
				}
				select {
				case browsed <- err:
				case <-stop:
					return
				}
			}
		}
	}()
	return browsed
}

// TestOAuthLoginOnceThenNoPrompt: a server behind OAuth needs a login
// (servers says so, not "401"); `mcpcode auth` logs in once through the
// browser ($BROWSER) and a loopback redirect; gen and run then work
// without asking anyone, refreshing the expired token; no token shows in
// any output, log or workspace file; the stored login is private to the
// user; --logout forgets it.
func TestOAuthLoginOnceThenNoPrompt(t *testing.T) {
	e2e(t)
	t.Parallel()
	f := newOAuthFixture(t)
	ws := t.TempDir()
	home := t.TempDir()
	urls := filepath.Join(t.TempDir(), "browser-urls")
	writeFile(t, filepath.Join(ws, "mcp.json"), fmt.Sprintf(`{"mcpServers": {"secure": {"type": "http", "url": "%s/mcp"}}}`, f.srv.URL))
	// The browser: records the URL it is asked to open; the person (a
	// goroutine of this test) then loads it, following the redirects.
	env := []string{"XDG_CONFIG_HOME=" + home, "HOME=" + home, "BROWSER=echo >> " + shellQuote(urls)}
	var outputs strings.Builder
	run := func(args ...string) runResult {
		t.Helper()
		res := runBinaryEnv(t, ws, env, 2*time.Minute, args...)
		fmt.Fprintf(&outputs, "%s\n%s\n", res.stdout, res.stderr)
		return res
	}
	browsed := browseLogins(t, urls)

	// Before logging in: the server needs a login; gen and servers say how.
	noBrowser := []string{"XDG_CONFIG_HOME=" + home, "HOME=" + home, "BROWSER="}
	res := runBinaryEnv(t, ws, noBrowser, 2*time.Minute, "servers", "--json")
	fmt.Fprintf(&outputs, "%s\n%s\n", res.stdout, res.stderr)
	if res.code != 1 || !strings.Contains(res.stdout, `"status": "needs login"`) || !strings.Contains(res.stdout, "needs login: mcpcode auth secure") || strings.Contains(res.stdout+res.stderr, "401") {
		t.Errorf("servers before login: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	res = runBinaryEnv(t, ws, noBrowser, 2*time.Minute, "servers")
	if res.code != 1 || !strings.Contains(res.stdout, "secure  needs login  http") || !strings.Contains(res.stderr, `server "secure": needs login: mcpcode auth secure`) || strings.Contains(res.stdout+res.stderr, "401") {
		t.Errorf("servers table before login: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}

	res = run("auth", "secure")
	if res.code != 0 || !strings.Contains(res.stdout, "Logged in to secure (scopes: tools); 1 tool listed.") {
		t.Fatalf("auth: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	if err := <-browsed; err != nil {
		t.Fatalf("the browser: %v", err)
	}
	res = run("gen")
	if res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	writeFile(t, filepath.Join(ws, "who.ts"), `import { whoami } from "./servers/secure/index.ts";
const r: any = await whoami({});
console.log(r.content[0].text);`)
	res = run("run", "who.ts")
	if res.code != 0 || !strings.Contains(res.stdout, "you are logged in") {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", res.code, res.stdout, res.stderr)
	}
	authorized, refreshed, issued := f.counts()
	if authorized != 1 {
		t.Errorf("the person was asked to log in %d times, want once (gen and run must use the stored login)", authorized)
	}
	if data, _ := os.ReadFile(urls); strings.Count(string(data), "\n") != 1 {
		t.Errorf("the browser was opened for:\n%s", data)
	}
	if refreshed < 2 {
		t.Errorf("%d refreshes; gen and run each had an expired token to refresh", refreshed)
	}

	// The stored login: private, outside the workspace, and the only place
	// a token is written down.
	dir := filepath.Join(home, "mcpcode", "tokens")
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("token directory %s: %v, mode %v, want 0700", dir, err, st.Mode().Perm())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files: %v", files)
	}
	if st, _ := os.Stat(files[0]); st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", st.Mode().Perm())
	}
	stored, _ := os.ReadFile(files[0])
	last := issued[len(issued)-2] // the latest access token
	if !strings.Contains(string(stored), last) {
		t.Errorf("the stored login does not hold the refreshed token")
	}
	everything := outputsAndFiles(outputs.String(), ws)
	for _, tok := range issued {
		if strings.Contains(everything, tok) {
			t.Errorf("a token (%s…) shows in an output, a log or a workspace file", tok[:9])
		}
	}
	logs, _ := os.ReadFile(filepath.Join(ws, ".mcpcode", "logs", "secure.log"))
	if !strings.Contains(string(logs), "[oauth]") {
		t.Errorf("the server's log has no oauth notes:\n%s", logs)
	}

	res = run("auth", "--logout", "secure")
	if res.code != 0 || !strings.Contains(res.stdout, "Logged out of secure") {
		t.Errorf("logout: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*.json")); len(files) != 0 {
		t.Errorf("token files after logout: %v", files)
	}
	res = runBinaryEnv(t, ws, noBrowser, 2*time.Minute, "tools", "secure")
	if res.code != 1 || !strings.Contains(res.stdout, "secure: failed: needs login: mcpcode auth secure") {
		t.Errorf("tools after logout: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// runBinaryEnv is runBinary with extra environment variables.
func runBinaryEnv(t *testing.T, dir string, env []string, guard time.Duration, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mcpcode %s did not finish within %s\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), guard, stdout.String(), stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{stdout.String(), stderr.String(), code}
}
