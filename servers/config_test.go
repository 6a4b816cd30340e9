package servers

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func envOf(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func TestParseConfigErrors(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"EMPTY": ""})
	tests := []struct {
		name, json, want string
	}{
		{"malformed JSON: missing value", "{\n  \"mcpServers\": {\n    \"a\": { \"command\": }\n  }\n}", `mcp.json:3:23: invalid JSON: invalid character '}' looking for beginning of value`},
		{"malformed JSON: trailing comma", "{\"mcpServers\": {\"a\": {\"command\": \"x\"},}}", `mcp.json:1:39: invalid JSON: invalid character '}' looking for beginning of object key string`},
		{"malformed JSON: truncated", "{\"mcpServers\": {", `mcp.json:1:17: invalid JSON: unexpected end of JSON input`},
		{"malformed JSON: unicode column", "{\"mcpServers\": {\"é\": x}}", `mcp.json:1:22: invalid JSON: invalid character 'x' looking for beginning of value`},
		{"malformed JSON: last character", "{\"mcpServers\": x", `mcp.json:1:16: invalid JSON: invalid character 'x' looking for beginning of value`},
		{"top level not an object", `[1]`, `mcp.json:1:1: the top level must be an object, not array`},
		{"no servers key", `{"other": {}}`, `mcp.json: no "mcpServers" key: write {"mcpServers": {"name": {"command": "..."}}}`},
		{"both keys", `{"mcpServers": {}, "servers": {}}`, `mcp.json: has both "mcpServers" and "servers"; keep one of them`},
		{"servers not an object", `{"mcpServers": []}`, `mcp.json: "mcpServers" must be an object mapping server names to server entries`},
		{"unset variable", `{"mcpServers": {"crm": {"type": "http", "url": "https://x.test/mcp", "headers": {"Authorization": "Bearer ${CRM_TOKEN}"}}}}`,
			`mcp.json: server "crm": environment variable CRM_TOKEN is not set (used in headers.Authorization); set it, or write ${CRM_TOKEN:-default}`},
		{"unset variable in args", `{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "${PKG}"]}}}`,
			`mcp.json: server "fs": environment variable PKG is not set (used in args[1]); set it, or write ${PKG:-default}`},
		{"unclosed reference", `{"mcpServers": {"fs": {"command": "run-${X"}}}`, `mcp.json: server "fs": command has an unclosed "${"; write ${NAME}`},
		{"invalid reference", `{"mcpServers": {"fs": {"command": "${1X}"}}}`, `mcp.json: server "fs": command has an invalid variable reference "${1X}"; write ${NAME} or ${NAME:-default}`},
		{"unknown transport", `{"mcpServers": {"ws": {"type": "websocket", "url": "ws://x"}}}`, `mcp.json: server "ws": unknown transport "websocket"; use "stdio", "http" (streamable HTTP) or "sse"`},
		{"neither command nor url", `{"mcpServers": {"x": {"args": ["a"]}}}`, `mcp.json: server "x": needs "command" (a stdio server) or "url" (an http or sse server)`},
		{"sse without url", `{"mcpServers": {"x": {"type": "sse"}}}`, `mcp.json: server "x": type "sse" needs "url"`},
		{"bad url scheme", `{"mcpServers": {"x": {"url": "ftp://x"}}}`, `mcp.json: server "x": url "ftp://x" must start with http:// or https://`},
		{"args not strings", `{"mcpServers": {"x": {"command": "a", "args": "b"}}}`, `mcp.json: server "x": field "args" must be an array of strings`},
		{"entry not an object", `{"mcpServers": {"x": "npx"}}`, `mcp.json: server "x": the entry must be an object with "command" or "url"`},
		{"empty name", `{"mcpServers": {"": {"command": "a"}}}`, `mcp.json: a server has an empty name; give it a name`},
		{"empty command after expansion", `{"mcpServers": {"x": {"command": "${EMPTY}"}}}`, `mcp.json: server "x": "command" is empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := firstError(ParseConfig([]byte(tt.json), "/ws/mcp.json", env))
			if err == nil {
				t.Fatalf("no error; want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("error:\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

// firstError is the error of ParseConfig, else the first server's
// configuration error.
func firstError(cfg *Config, err error) error {
	if err != nil {
		return err
	}
	for _, s := range cfg.Servers {
		if s.Err != nil {
			return s.Err
		}
	}
	return nil
}

// TestConfigErrorIsPerServer: a problem in one entry (an unset variable)
// makes only that server unusable; the config loads and the other servers
// are intact.
func TestConfigErrorIsPerServer(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]byte(`{"mcpServers": {
  "crm": {"type": "http", "url": "https://x.test/mcp", "headers": {"Authorization": "Bearer ${CRM_TOKEN}"}},
  "fs": {"command": "fs-server", "args": ["${HOME_DIR}"]},
  "ok": {"command": "ok-server"}}}`), "/ws/mcp.json", envOf(map[string]string{"HOME_DIR": "/home/me"}))
	if err != nil {
		t.Fatalf("one broken entry failed the whole config: %v", err)
	}
	if got := cfg.Names(); !reflect.DeepEqual(got, []string{"crm", "fs", "ok"}) {
		t.Errorf("names %v: a broken server must still be listed", got)
	}
	crm, _ := cfg.Server("crm")
	want := `mcp.json: server "crm": environment variable CRM_TOKEN is not set (used in headers.Authorization); set it, or write ${CRM_TOKEN:-default}`
	if crm.Err == nil || crm.Err.Error() != want || crm.Transport != TransportHTTP {
		t.Errorf("crm: %+v, err %v; want the error %q", crm, crm.Err, want)
	}
	for _, n := range []string{"fs", "ok"} {
		if s, _ := cfg.Server(n); s.Err != nil || s.Command == "" {
			t.Errorf("%s: %+v, err %v", n, s, s.Err)
		}
	}
}

func TestParseConfigOAuthAndRoots(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"SECRET": "s3cret", "HOME_DIR": "/home/me"})
	cfg, err := ParseConfig([]byte(`{"mcpServers": {
  "crm": {"url": "https://x.test/mcp", "oauth": {"clientId": "abc", "clientSecret": "${SECRET}", "scopes": ["read", "write"]}},
  "m2m": {"url": "https://x.test/mcp", "oauth": {"clientId": "abc", "clientSecret": "${SECRET}", "grant": "client_credentials"}},
  "bad-grant": {"url": "https://x.test/mcp", "oauth": {"grant": "password"}},
  "cc-no-secret": {"url": "https://x.test/mcp", "oauth": {"clientId": "abc", "grant": "client_credentials"}},
  "unset": {"url": "https://x.test/mcp", "oauth": {"clientId": "abc", "clientSecret": "${NOPE}"}},
  "fs": {"command": "fs", "roots": ["data", "${HOME_DIR}/notes", "file:///srv/x"]},
  "none": {"command": "fs", "roots": []}}}`), "/ws/mcp.json", env)
	if err != nil {
		t.Fatal(err)
	}
	crm, _ := cfg.Server("crm")
	if crm.Err != nil || crm.OAuth == nil || crm.OAuth.ClientID != "abc" || crm.OAuth.ClientSecret != "s3cret" ||
		crm.OAuth.Grant != "" || !reflect.DeepEqual(crm.OAuth.Scopes, []string{"read", "write"}) {
		t.Errorf("crm: %+v %+v", crm, crm.OAuth)
	}
	if m, _ := cfg.Server("m2m"); m.Err != nil || m.OAuth.Grant != GrantClientCredentials {
		t.Errorf("m2m: %+v", m)
	}
	wantErrs := map[string]string{
		"bad-grant":    `mcp.json: server "bad-grant": oauth.grant "password": use "authorization_code" (a person logs in) or "client_credentials" (a machine)`,
		"cc-no-secret": `mcp.json: server "cc-no-secret": oauth.grant "client_credentials" needs oauth.clientId and oauth.clientSecret (write the secret as ${VAR})`,
		"unset":        `mcp.json: server "unset": environment variable NOPE is not set (used in oauth.clientSecret); set it, or write ${NOPE:-default}`,
	}
	for name, want := range wantErrs {
		if s, _ := cfg.Server(name); s.Err == nil || s.Err.Error() != want {
			t.Errorf("%s: error %v, want %s", name, s.Err, want)
		}
	}
	fs, _ := cfg.Server("fs")
	if want := []string{"/ws/data", "/home/me/notes", "/srv/x"}; !reflect.DeepEqual(fs.Roots, want) {
		t.Errorf("roots %q, want %q", fs.Roots, want)
	}
	if n, _ := cfg.Server("none"); n.Roots == nil || len(n.Roots) != 0 {
		t.Errorf(`"roots": [] must mean no roots (empty, not nil): %#v`, n.Roots)
	}
	if plain, _ := cfg.Server("crm"); plain.Roots != nil {
		t.Errorf("no roots field must mean the default (nil): %#v", plain.Roots)
	}
	// The secret never shows in what is printed of a server.
	b, _ := json.Marshal(crm)
	if strings.Contains(string(b), "s3cret") {
		t.Errorf("the encoded server config shows the client secret: %s", b)
	}
}

func TestParseConfigErrorsHideVariableValues(t *testing.T) {
	t.Parallel()
	const secret = "s3cret-token"
	env := envOf(map[string]string{"TOKEN": secret})
	err := firstError(ParseConfig([]byte(`{"mcpServers": {"crm": {"type": "http", "url": "${TOKEN}"}}}`), "/ws/mcp.json", env))
	want := `mcp.json: server "crm": url "${TOKEN}" must start with http:// or https:// once its variables are expanded; check their values`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
	if err != nil && strings.Contains(err.Error(), secret) {
		t.Errorf("error %q shows the value of ${TOKEN}", err)
	}
}

func TestParseConfig(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"TOKEN": "s3cret", "HOST": "example.test", "EMPTY": ""})
	data := `{
  "mcpServers": {
    "google-drive": {"command": "npx", "args": ["-y", "gdrive", "--host=${HOST}"], "env": {"TOKEN": "${TOKEN}", "MODE": "${MODE:-fast}", "E": "${EMPTY:-dflt}"}, "cwd": "sub"},
    "crm": {"type": "http", "url": "https://${HOST}/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}, "autoApprove": []},
    "legacy": {"type": "sse", "url": "http://127.0.0.1:9000/sse"},
    "plain-url": {"url": "http://127.0.0.1:9/mcp"},
    "off": {"command": "nope", "disabled": true},
    "price$": {"command": "a$b"}
  },
  "inputs": []
}`
	cfg, err := ParseConfig([]byte(data), "/ws/mcp.json", env)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Names(), []string{"crm", "google-drive", "legacy", "plain-url", "price$"}; !reflect.DeepEqual(got, want) {
		t.Errorf("names %v, want %v", got, want)
	}
	if !reflect.DeepEqual(cfg.Disabled, []string{"off"}) {
		t.Errorf("disabled %v", cfg.Disabled)
	}
	gd, _ := cfg.Server("google-drive")
	wantGD := ServerConfig{Name: "google-drive", Transport: TransportStdio, Command: "npx",
		Args: []string{"-y", "gdrive", "--host=example.test"},
		Env:  map[string]string{"TOKEN": "s3cret", "MODE": "fast", "E": "dflt"}, Cwd: filepath.Join("/ws", "sub")}
	if !reflect.DeepEqual(gd, wantGD) {
		t.Errorf("google-drive:\n got %+v\nwant %+v", gd, wantGD)
	}
	crm, _ := cfg.Server("crm")
	if crm.Transport != TransportHTTP || crm.URL != "https://example.test/mcp" || crm.Headers["Authorization"] != "Bearer s3cret" {
		t.Errorf("crm: %+v", crm)
	}
	if l, _ := cfg.Server("legacy"); l.Transport != TransportSSE {
		t.Errorf("legacy transport %q", l.Transport)
	}
	if p, _ := cfg.Server("plain-url"); p.Transport != TransportHTTP {
		t.Errorf("a url without type should be streamable http, got %q", p.Transport)
	}
	if p, _ := cfg.Server("price$"); p.Command != "a$b" {
		t.Errorf("a lone $ must stay literal, got %q", p.Command)
	}
	wantWarnings := []string{
		`mcp.json: server "crm": unknown field "autoApprove" ignored`,
		`mcp.json: unknown top-level field "inputs" ignored`,
	}
	if !reflect.DeepEqual(cfg.Warnings, wantWarnings) {
		t.Errorf("warnings:\n got %q\nwant %q", cfg.Warnings, wantWarnings)
	}
}

func TestParseConfigVSCodeKey(t *testing.T) {
	t.Parallel()
	cfg, err := ParseConfig([]byte(`{"servers": {"a": {"type": "stdio", "command": "x"}}}`), "settings.json", envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Names(); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("names %v", got)
	}
}

func TestFindConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if _, err := FindConfig(dir); err == nil || !strings.Contains(err.Error(), "no mcp.json or .mcp.json in") {
		t.Errorf("empty dir: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := FindConfig(dir); err != nil || filepath.Base(p) != ".mcp.json" {
		t.Errorf("got %q, %v; want .mcp.json", p, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err := FindConfig(dir); err != nil || filepath.Base(p) != "mcp.json" {
		t.Errorf("got %q, %v; want mcp.json first", p, err)
	}
}

// TestHeadersNullOrEmpty: a configured header written as null or empty
// (also after expansion) is left out at load time with a warning; one that
// no HTTP request can carry is an error of its entry; other types are
// errors as for every field.
func TestHeadersNullOrEmpty(t *testing.T) {
	t.Parallel()
	env := envOf(map[string]string{"EMPTY": "", "TOKEN": "s3cret"})
	cfg, err := ParseConfig([]byte(`{"mcpServers": {"crm": {"type": "http", "url": "https://x.test/mcp",
		"headers": {"Authorization": "Bearer ${TOKEN}", "X-Null": null, "X-Empty": "", "X-Unset": "${EMPTY}", "X-Blank": "  "}}}}`), "/ws/mcp.json", env)
	if err != nil {
		t.Fatal(err)
	}
	crm, ok := cfg.Server("crm")
	if !ok || crm.Err != nil {
		t.Fatalf("crm: %+v", crm)
	}
	if want := map[string]string{"Authorization": "Bearer s3cret"}; !reflect.DeepEqual(crm.Headers, want) {
		t.Errorf("headers %q, want %q", crm.Headers, want)
	}
	want := []string{
		`mcp.json: server "crm": headers.X-Blank is empty; it is not sent`,
		`mcp.json: server "crm": headers.X-Empty is empty; it is not sent`,
		`mcp.json: server "crm": headers.X-Null is null; it is not sent`,
		`mcp.json: server "crm": headers.X-Unset is empty; it is not sent`,
	}
	if !reflect.DeepEqual(cfg.Warnings, want) {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(cfg.Warnings, "\n"), strings.Join(want, "\n"))
	}
	for _, tc := range []struct{ headers, want string }{
		{`{"Bad Name": "v"}`, `mcp.json: server "crm": headers: "Bad Name" is not an HTTP header name (letters, digits and !#$%&'*+-.^_` + "`" + `|~ only)`},
		{`{"X-Line": "a\nb"}`, `mcp.json: server "crm": headers.X-Line holds a line break or another control character, which an HTTP header cannot carry`},
		{`{"X-Number": 1}`, `mcp.json: server "crm": field "headers" must be an object of strings`},
		{`[]`, `mcp.json: server "crm": field "headers" must be an object of strings`},
	} {
		cfg, err := ParseConfig([]byte(`{"mcpServers": {"crm": {"type": "http", "url": "https://x.test/mcp", "headers": `+tc.headers+`}}}`), "/ws/mcp.json", env)
		if err != nil {
			t.Fatal(err)
		}
		crm, _ := cfg.Server("crm")
		if crm.Err == nil || crm.Err.Error() != tc.want {
			t.Errorf("headers %s: error %v, want %s", tc.headers, crm.Err, tc.want)
		}
	}
}

// TestEntryDigestCoversEveryField: a workspace session is used only when
// its entries' digests are the run's (OtherEntries), so every field of an
// entry, those never printed (Env, Headers, the client secret, Err)
// included, must change the digest, as each makes sameEntry restart the
// server. A field added to ServerConfig or OAuthConfig is covered here
// without a new case.
func TestEntryDigestCoversEveryField(t *testing.T) {
	t.Parallel()
	base := ServerConfig{Name: "s", OAuth: &OAuthConfig{}}
	differs := func(what string, changed ServerConfig) {
		t.Helper()
		if sameEntry(base, changed) {
			t.Fatalf("%s: the change made no difference to sameEntry either", what)
		}
		if changed.digest() == base.digest() {
			t.Errorf("%s changes the entry (sameEntry) but not its digest", what)
		}
		if changed.Err != nil {
			return // the run cannot use it anyway: OtherEntries leaves it out
		}
		if got := (&Config{Servers: []ServerConfig{changed}}).OtherEntries((&Config{Servers: []ServerConfig{base}}).EntryDigests()); !reflect.DeepEqual(got, []string{"s"}) {
			t.Errorf("%s: OtherEntries %q, want [s]", what, got)
		}
	}
	set := func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			v.SetString("x")
		case reflect.Slice:
			v.Set(reflect.ValueOf([]string{"x"}))
		case reflect.Map:
			v.Set(reflect.ValueOf(map[string]string{"K": "x"}))
		case reflect.Interface:
			v.Set(reflect.ValueOf(errors.New("x")))
		case reflect.Pointer:
			v.Set(reflect.Zero(v.Type()))
		default:
			t.Fatalf("a field of kind %s: teach this test to change it", v.Kind())
		}
	}
	st := reflect.TypeFor[ServerConfig]()
	for i := range st.NumField() {
		if st.Field(i).Name == "Name" {
			continue // another server, not another entry
		}
		c := base
		c.OAuth = &OAuthConfig{}
		set(reflect.ValueOf(&c).Elem().Field(i))
		differs("ServerConfig."+st.Field(i).Name, c)
	}
	ot := reflect.TypeFor[OAuthConfig]()
	for i := range ot.NumField() {
		o := OAuthConfig{}
		set(reflect.ValueOf(&o).Elem().Field(i))
		c := base
		c.OAuth = &o
		differs("OAuthConfig."+ot.Field(i).Name, c)
	}
}
