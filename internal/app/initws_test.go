package app

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/servers"
)

func lookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

// TestInitImportsClaudeDesktop: the imported mcp.json means exactly what
// the host's configuration meant.
func TestInitImportsClaudeDesktop(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	src := filepath.Join("testdata", "init", "claude_desktop_config.json")
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	hostPath, _ := HostConfigPath(HostClaudeDesktop, home, t.TempDir())
	writeFile(t, hostPath, string(data))
	ws := filepath.Join(t.TempDir(), "ws")
	rep, err := (&App{}).Init(InitOptions{Dir: ws, From: HostClaudeDesktop, Home: home, Binary: "/usr/local/bin/mcpcode"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Source != hostPath || strings.Join(rep.Imported, ",") != "filesystem,github,linear,postgres" {
		t.Errorf("report: %+v", rep)
	}
	env := lookup(map[string]string{"GITHUB_TOKEN": "gh", "LINEAR_TOKEN": "lin"})
	want, err := servers.ParseConfig(data, src, env)
	if err != nil {
		t.Fatal(err)
	}
	gotData, _ := os.ReadFile(filepath.Join(ws, "mcp.json"))
	got, err := servers.ParseConfig(gotData, filepath.Join(ws, "mcp.json"), env)
	if err != nil {
		t.Fatalf("the imported mcp.json does not load: %v\n%s", err, gotData)
	}
	if !reflect.DeepEqual(got.Servers, want.Servers) {
		t.Errorf("imported servers differ:\n got %+v\nwant %+v", got.Servers, want.Servers)
	}
	if !strings.Contains(string(gotData), `"${GITHUB_TOKEN}"`) || strings.Contains(string(gotData), `"gh"`) {
		t.Errorf("a variable was expanded into mcp.json:\n%s", gotData)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], `"postgres": env PGPASSWORD holds a literal value`) {
		t.Errorf("notes = %q", rep.Notes)
	}
	for _, f := range []string{"AGENTS.md", "CLAUDE.md", ".gitignore"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	if !strings.Contains(rep.Snippet, `"args": ["serve","--dir","`+ws+`"]`) || !strings.Contains(rep.Snippet, `"/usr/local/bin/mcpcode"`) {
		t.Errorf("snippet:\n%s", rep.Snippet)
	}

	// A second import keeps what is there and adds nothing twice.
	rep, err = (&App{}).Init(InitOptions{Dir: ws, From: src})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Imported) != 0 || !strings.Contains(strings.Join(rep.Kept, ","), "mcp.json") || !strings.Contains(strings.Join(rep.Kept, ","), "AGENTS.md") {
		t.Errorf("second init: %+v", rep)
	}
}

// TestInitImportsVSCode: VS Code's ${env:X} becomes ${X}, and its inputs
// become variables the person is told to set.
func TestInitImportsVSCode(t *testing.T) {
	t.Parallel()
	src := filepath.Join("testdata", "init", "vscode-mcp.json")
	ws := t.TempDir()
	rep, err := (&App{}).Init(InitOptions{Dir: ws, From: src})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(ws, "mcp.json"))
	var top struct {
		MCPServers map[string]json.RawMessage `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &top); err != nil || len(top.MCPServers) != 3 {
		t.Fatalf("mcp.json: %v\n%s", err, data)
	}
	got, err := servers.ParseConfig(data, "mcp.json", lookup(map[string]string{"GITHUB_TOKEN": "t0k", "HOME": "/home/me"}))
	if err != nil {
		t.Fatalf("the imported mcp.json does not load: %v\n%s", err, data)
	}
	gh, _ := got.Server("github")
	mem, _ := got.Server("memory")
	sentry, _ := got.Server("sentry")
	if gh.Transport != "stdio" || gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "t0k" || mem.Env["MEMORY_FILE_PATH"] != "/home/me/memory.json" ||
		sentry.Transport != "sse" || sentry.URL != "https://mcp.sentry.dev/sse" {
		t.Errorf("servers: %+v %+v %+v", gh, mem, sentry)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], `VS Code asked for input "github-token"; set the environment variable GITHUB_TOKEN`) {
		t.Errorf("notes = %q", rep.Notes)
	}
}

func TestInitErrors(t *testing.T) {
	t.Parallel()
	if _, err := (&App{}).Init(InitOptions{Dir: t.TempDir(), From: "emacs"}); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), `unknown host "emacs"`) {
		t.Errorf("unknown host: %v", err)
	}
	if _, err := (&App{}).Init(InitOptions{Dir: t.TempDir(), From: filepath.Join(t.TempDir(), "none.json")}); err == nil || !strings.Contains(err.Error(), "reading the host configuration") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(t.TempDir(), "bad.json")
	writeFile(t, bad, `{"other": {}}`)
	if _, err := (&App{}).Init(InitOptions{Dir: t.TempDir(), From: bad}); err == nil || !strings.Contains(err.Error(), `has no "mcpServers"`) {
		t.Errorf("no servers: %v", err)
	}
}

// TestInitGitignore: the .gitignore init writes keeps mcpcode's state out
// of git but for the manifest, and node_modules/ too: `npm i -D
// typescript@7`, the install `check` asks for, creates it in the
// workspace. git itself says what is ignored. A workspace's own
// .gitignore is kept as it is.
func TestInitGitignore(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	ws := t.TempDir()
	if _, err := (&App{}).Init(InitOptions{Dir: ws}); err != nil {
		t.Fatal(err)
	}
	gitIn(t, ws, "init", "-q")
	for path, ignored := range map[string]bool{
		"node_modules/.bin/tsc":                     true,
		"node_modules/typescript/package.json":      true,
		".mcpcode/check/cache.json":                 true,
		".mcpcode/audit/2026-12-01.jsonl":           true,
		".mcpcode/manifest.json":                    false,
		"mcp.json":                                  false,
		"package.json":                              false,
		"servers/google-drive/getSheet.ts":          false,
		"skills/pending-orders/SKILL.md":            false,
		".github/workflows/mcpcode-skills.yml":      false,
		"programs/node_modules_are_not_a_prefix.ts": false,
	} {
		cmd := exec.Command("git", "check-ignore", "-q", "--no-index", path)
		cmd.Dir = ws
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatal(err)
		}
		if got := err == nil; got != ignored {
			t.Errorf("%s: ignored %v, want %v", path, got, ignored)
		}
	}
	// An existing .gitignore is not touched.
	own := t.TempDir()
	writeFile(t, filepath.Join(own, ".gitignore"), "*.log\n")
	rep, err := (&App{}).Init(InitOptions{Dir: own})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(own, ".gitignore")); string(data) != "*.log\n" || !strings.Contains(strings.Join(rep.Kept, ","), ".gitignore") {
		t.Errorf("an existing .gitignore became %q (kept: %v)", data, rep.Kept)
	}
}
