package servers

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fuzzSecret is the value of ${TOKEN} in FuzzLoadConfig: no message may
// show it, whatever the config does with it.
const fuzzSecret = "s3cr3t-7f1a9c"

// FuzzLoadConfig feeds the mcp.json parser arbitrary bytes (and an
// arbitrary value for one variable). It must never panic; an error must
// name the file and never show a variable's value (it may be a secret); an
// accepted config holds only servers with a valid transport and the fields
// that transport needs. Plain `go test` runs only the seeds (f.Add below
// and testdata/fuzz/FuzzLoadConfig); `go test -fuzz=FuzzLoadConfig`
// explores.
func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"google-drive": {"command": "npx", "args": ["-y", "gdrive"], "env": {"TOKEN": "${TOKEN}"}, "cwd": "sub"}}}`,
		`{"mcpServers": {"crm": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}, "legacy": {"type": "sse", "url": "http://127.0.0.1:9000/sse"}}}`,
		`{"servers": {"a": {"type": "stdio", "command": "x", "disabled": false}, "b": {"url": "http://x", "disabled": true}}, "inputs": []}`,
		`{"mcpServers": {"crm": {"type": "http", "url": "${TOKEN}"}}}`,
		`{"mcpServers": {"x": {"type": "sse", "url": "${V:-ftp://x}"}}}`,
		`{"mcpServers": {"x": {"command": "${EMPTY:-}", "cwd": "${V}"}}}`,
		`{"mcpServers": {"x": {"type": "Streamable-HTTP", "url": "https://x", "command": "ignored"}}}`,
		`{"mcpServers": {"ws": {"type": "websocket", "url": "http://x"}}}`,
		`{"mcpServers": {"x": {"command": "a", "args": "b"}}}`,
		`{"mcpServers": {"x": {"command": "run-${X"}}}`,
		`{"mcpServers": {" ": {"command": "a"}}}`,
		`{"mcpServers": {}, "servers": {}}`,
		`{"mcpServers": x`,
		"{\"mcpServers\": {\"\xff\": \u2028}}",
		`[1]`,
		`null`,
		``,
	} {
		f.Add([]byte(seed), "value")
	}
	f.Add([]byte(`{"mcpServers": {"x": {"type": "http", "url": "${V}"}}}`), "https://ok.test/mcp")
	f.Fuzz(func(t *testing.T, data []byte, v string) {
		env := envOf(map[string]string{"TOKEN": fuzzSecret, "HOST": "example.test", "EMPTY": "", "V": v})
		const name = "/ws/mcp.json"
		cfg, err := ParseConfig(data, name, env)
		if err != nil {
			if cfg != nil {
				t.Errorf("ParseConfig returned a config with the error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "mcp.json") {
				t.Errorf("error %q does not start by naming the file mcp.json", err)
			}
			if strings.Contains(err.Error(), fuzzSecret) {
				t.Errorf("error %q shows the value of ${TOKEN}", err)
			}
			return
		}
		checkConfig(t, cfg, name)
		again, err := ParseConfig(data, name, env)
		if err != nil || !reflect.DeepEqual(cfg, again) {
			t.Errorf("a second parse of the same bytes differs: %+v, %v", again, err)
		}
	})
}

// checkConfig fails the test unless cfg is one ParseConfig may accept.
func checkConfig(t *testing.T, cfg *Config, name string) {
	t.Helper()
	if cfg.Path != name {
		t.Errorf("Path %q, want %q", cfg.Path, name)
	}
	names := cfg.Names()
	if !slices.IsSorted(names) || !slices.IsSorted(cfg.Disabled) || !slices.IsSorted(cfg.Warnings) {
		t.Errorf("names %q, disabled %q or warnings %q are not sorted", names, cfg.Disabled, cfg.Warnings)
	}
	seen := map[string]bool{}
	for _, n := range append(slices.Clone(names), cfg.Disabled...) {
		if strings.TrimSpace(n) == "" || seen[n] {
			t.Errorf("server name %q is empty or listed twice among %q and disabled %q", n, names, cfg.Disabled)
		}
		seen[n] = true
	}
	for _, w := range cfg.Warnings {
		if !strings.HasPrefix(w, "mcp.json") || strings.Contains(w, fuzzSecret) {
			t.Errorf("warning %q does not name the file or shows the value of ${TOKEN}", w)
		}
	}
	for _, s := range cfg.Servers {
		if s.Err != nil {
			if msg := s.Err.Error(); !strings.HasPrefix(msg, "mcp.json") || strings.Contains(msg, fuzzSecret) {
				t.Errorf("server %q: error %q does not name the file or shows the value of ${TOKEN}", s.Name, msg)
			}
			if s.Command != "" || s.URL != "" || s.Env != nil || s.Headers != nil || s.OAuth != nil {
				t.Errorf("broken server %q keeps values that were not checked: %+v", s.Name, s)
			}
			continue
		}
		switch s.Transport {
		case TransportStdio:
			if strings.TrimSpace(s.Command) == "" || s.URL != "" || s.Headers != nil {
				t.Errorf("stdio server %+v: want a command and no url or headers", s)
			}
			if s.Cwd != "" && !filepath.IsAbs(s.Cwd) {
				t.Errorf("stdio server %q: cwd %q is not absolute (relative ones are taken from the config's directory)", s.Name, s.Cwd)
			}
		case TransportHTTP, TransportSSE:
			if !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://") {
				t.Errorf("%s server %q: url %q is not http(s)", s.Transport, s.Name, s.URL)
			}
			if s.Command != "" || s.Args != nil || s.Env != nil || s.Cwd != "" {
				t.Errorf("%s server %+v: want no command, args, env or cwd", s.Transport, s)
			}
		default:
			t.Errorf("server %q has the transport %q; want stdio, http or sse", s.Name, s.Transport)
		}
	}
}
