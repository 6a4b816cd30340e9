package app

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOpen covers how a workspace is found: from a subdirectory by walking
// up to mcp.json, by --dir exactly, by --config, and the errors.
func TestOpen(t *testing.T) {
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	writeFile(t, filepath.Join(root, "mcp.json"), `{"mcpServers": {"a": {"command": "x"}}}`)
	sub := filepath.Join(root, "programs", "deep")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	bare := t.TempDir()
	bare, _ = filepath.EvalSymlinks(bare)
	alt := t.TempDir()
	alt, _ = filepath.EvalSymlinks(alt)
	writeFile(t, filepath.Join(alt, ".mcp.json"), `{"mcpServers": {"b": {"command": "y"}}}`)

	tests := []struct {
		name     string
		cwd      string
		opts     OpenOptions
		root     string
		servers  []string
		noConfig bool
		err      string
	}{
		{name: "from a subdirectory, walking up", cwd: sub, root: root, servers: []string{"a"}},
		{name: "at the root", cwd: root, root: root, servers: []string{"a"}},
		{name: ".mcp.json", cwd: alt, root: alt, servers: []string{"b"}},
		{name: "--dir is exact: no walking up", cwd: bare, opts: OpenOptions{Dir: sub}, root: sub, noConfig: true},
		{name: "--dir with a config", cwd: bare, opts: OpenOptions{Dir: root}, root: root, servers: []string{"a"}},
		{name: "--config sets the root", cwd: bare, opts: OpenOptions{Config: filepath.Join(alt, ".mcp.json")}, root: alt, servers: []string{"b"}},
		{name: "--dir and --config", cwd: bare, opts: OpenOptions{Dir: bare, Config: filepath.Join(root, "mcp.json")}, root: bare, servers: []string{"a"}},
		{name: "no config anywhere is fine for runs", cwd: bare, root: bare, noConfig: true},
		{name: "no config when one is required", cwd: bare, opts: OpenOptions{RequireConfig: true}, err: "no mcp.json or .mcp.json in " + bare + " or its parent directories: create one"},
		{name: "no config in --dir when one is required", cwd: root, opts: OpenOptions{Dir: sub, RequireConfig: true}, err: "no mcp.json or .mcp.json in " + sub + ": create one"},
		{name: "--dir not a directory", cwd: root, opts: OpenOptions{Dir: filepath.Join(root, "mcp.json")}, err: "is not a directory"},
		{name: "missing --config", cwd: root, opts: OpenOptions{Config: filepath.Join(bare, "nope.json")}, err: "reading config"},
	}
	a := &App{}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(tt.cwd)
			w, err := a.Open(tt.opts)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !IsUsage(err) {
					t.Fatalf("error = %v, want a usage error containing %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if w.Root != tt.root {
				t.Errorf("root = %s, want %s", w.Root, tt.root)
			}
			if w.HasConfig == tt.noConfig {
				t.Errorf("HasConfig = %v", w.HasConfig)
			}
			if !tt.noConfig && !reflect.DeepEqual(w.Config.Names(), tt.servers) {
				t.Errorf("servers = %v, want %v", w.Config.Names(), tt.servers)
			}
			if w.Files() != filepath.Join(tt.root, "workspace") || w.Manifest() != filepath.Join(tt.root, ".mcpcode", "manifest.json") {
				t.Errorf("layout paths: files %s, manifest %s", w.Files(), w.Manifest())
			}
		})
	}
}

func TestBaseEnvKeepsOnlyWhatServersNeed(t *testing.T) {
	t.Parallel()
	got := BaseEnv([]string{"PATH=/bin", "GITHUB_TOKEN=secret", "HOME=/h", "LC_ALL=C", "AWS_SECRET_ACCESS_KEY=x", "XDG_CONFIG_HOME=/c", "NOEQUALS"})
	want := []string{"HOME=/h", "LC_ALL=C", "PATH=/bin", "XDG_CONFIG_HOME=/c"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("BaseEnv = %v, want %v", got, want)
	}
}

func TestConfigVariablesComeFromTheAppEnvironment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mcp.json"), `{"mcpServers": {"a": {"command": "${CMD}", "env": {"T": "${TOKEN:-none}"}}}}`)
	a := &App{Environ: []string{"CMD=first", "CMD=server-bin"}}
	w, err := a.Open(OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := w.Config.Server("a")
	if s.Command != "server-bin" || s.Env["T"] != "none" {
		t.Errorf("expanded %q and %q, want the last CMD and the default", s.Command, s.Env["T"])
	}
	// Without CMD only that server is broken: the workspace opens, and the
	// server carries the error that names the variable.
	w, err = (&App{}).Open(OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatalf("an unset variable of one server broke the workspace: %v", err)
	}
	if s, _ := w.Config.Server("a"); s.Err == nil || !strings.Contains(s.Err.Error(), "CMD") {
		t.Errorf("unset variable: server a has error %v", s.Err)
	}
}
