// Package servers speaks MCP to the user's upstream servers: it reads the
// workspace's mcp.json, connects over stdio, streamable HTTP or SSE, and keeps
// a pool of sessions that performs tool calls.
package servers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mcpcode/mcpcode/internal/layout"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Transport names as written in mcp.json.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
	TransportSSE   = "sse"
)

// ConfigFileNames are the names looked for in a workspace, in order.
var ConfigFileNames = layout.ConfigFiles

// Config is a parsed mcp.json.
type Config struct {
	// Path is the file the config was read from.
	Path string
	// Servers are the enabled servers, sorted by name, including those
	// whose entry has a problem (ServerConfig.Err).
	Servers []ServerConfig
	// Disabled names the servers marked "disabled": true, sorted.
	Disabled []string
	// Warnings are problems that did not stop loading (unknown fields).
	Warnings []string
	// Privacy is the "privacy" object; nil when mcp.json has none.
	Privacy *PrivacyConfig
	// TypeCheck is the "typecheck" object; nil when mcp.json has none.
	TypeCheck *TypeCheckConfig
}

// TypeCheckConfig is the "typecheck" object of mcp.json:
//
//	"typecheck": {"tsc": "./tools/node_modules/.bin/tsc"}
type TypeCheckConfig struct {
	// TSC is the TypeScript compiler to check programs with (absolute; a
	// relative path in mcp.json is taken relative to its directory). ""
	// looks in the workspace's node_modules, then on PATH.
	TSC string `json:"tsc,omitempty"`
}

// typeCheckKey is the top-level key of mcp.json that configures the type
// check of programs.
const typeCheckKey = "typecheck"

// ServerConfig is one upstream server, with every ${VAR} already expanded.
type ServerConfig struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"` // TransportStdio, TransportHTTP or TransportSSE
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"-"` // never printed: it may hold secrets
	Cwd       string            `json:"cwd,omitempty"`
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"-"` // never printed: it may hold secrets
	// OAuth configures authorization for an http or sse server; nil when
	// mcp.json has no "oauth" object (a server that asks for a login is
	// still handled, with dynamic registration).
	OAuth *OAuthConfig `json:"oauth,omitempty"`
	// Roots are the directories (absolute paths) offered to the server as
	// roots; nil means the default (the workspace's files folder), empty
	// means none.
	Roots []string `json:"roots,omitempty"`
	// Err is a problem in this server's entry (an unset ${VAR}, a missing
	// "command"): the server cannot be used until it is fixed, and every use
	// of it fails with this error; the other servers are not affected.
	Err error `json:"-"`
}

// OAuthConfig is the "oauth" object of a server entry.
type OAuthConfig struct {
	// ClientID and ClientSecret are a client registered in advance with the
	// authorization server; without them mcpcode registers itself (Client
	// ID Metadata Document, then dynamic registration).
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"-"` // never printed: a secret
	// ClientMetadataURL is an https URL where mcpcode's client metadata
	// document is published (Client ID Metadata Documents).
	ClientMetadataURL string `json:"clientMetadataUrl,omitempty"`
	// Scopes are requested instead of the ones the server advertises.
	Scopes []string `json:"scopes,omitempty"`
	// Issuer pins the authorization server (its issuer URL): mcpcode logs
	// in only there, whatever the server's metadata names (oauth_pin.go).
	Issuer string `json:"issuer,omitempty"`
	// Grant is GrantAuthorizationCode (a person logs in with `mcpcode
	// auth`) or GrantClientCredentials (a machine: no person, no browser);
	// "" chooses: client credentials when a client secret is configured
	// and the authorization server offers no authorization code grant,
	// else the authorization code.
	Grant string `json:"grant,omitempty"`
}

// OAuth grants.
const (
	GrantAuthorizationCode = "authorization_code"
	GrantClientCredentials = "client_credentials"
)

// Server returns the enabled server of that name.
func (c *Config) Server(name string) (ServerConfig, bool) {
	for _, s := range c.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return ServerConfig{}, false
}

// EntryDigests identify each enabled server's entry as expanded (every
// ${VAR} replaced, secrets included), by name: the same digest, the same
// server started the same way. A workspace session reports its own, so
// that a run whose environment expands mcp.json otherwise does not use the
// session's servers (OtherEntries).
func (c *Config) EntryDigests() map[string]string {
	out := make(map[string]string, len(c.Servers))
	for _, s := range c.Servers {
		out[s.Name] = s.digest()
	}
	return out
}

// OtherEntries names, sorted, the servers for which digests (another
// reading's EntryDigests) stand for another entry than c's, or for a
// server c does not have, or lack one c has. A server whose entry c
// cannot use (an unset ${VAR}: ServerConfig.Err) is not compared: its
// reading in digests is the only usable one.
func (c *Config) OtherEntries(digests map[string]string) []string {
	var out []string
	for _, s := range c.Servers {
		if d, ok := digests[s.Name]; s.Err == nil && (!ok || d != s.digest()) {
			out = append(out, s.Name)
		}
	}
	for name := range digests {
		if _, ok := c.Server(name); !ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// digest is a hash of the whole entry, the fields never printed included.
func (s ServerConfig) digest() string {
	full := struct {
		ServerConfig
		Env, Headers map[string]string
		ClientSecret string
		Err          string
	}{ServerConfig: s, Env: s.Env, Headers: s.Headers}
	if s.OAuth != nil {
		full.ClientSecret = s.OAuth.ClientSecret
	}
	if s.Err != nil {
		full.Err = s.Err.Error()
	}
	data, _ := json.Marshal(full)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// Names returns the names of the enabled servers, sorted.
func (c *Config) Names() []string {
	names := make([]string, len(c.Servers))
	for i, s := range c.Servers {
		names[i] = s.Name
	}
	return names
}

// FindConfig returns the path of the workspace config in dir: mcp.json, then
// .mcp.json.
func FindConfig(dir string) (string, error) {
	for _, name := range ConfigFileNames {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	abs, _ := filepath.Abs(dir)
	return "", fmt.Errorf("no mcp.json or .mcp.json in %s: create one (see README: Configuration) or pass --config FILE", abs)
}

// LoadConfig reads and parses a config file. lookupEnv resolves ${VAR}
// references (os.LookupEnv at the edge, a map in tests).
func LoadConfig(path string, lookupEnv func(string) (string, bool)) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	cfg, err := ParseConfig(data, path, lookupEnv)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// rawEntry is one server entry as written; every field is optional here so
// that errors can say exactly what is missing.
type rawEntry struct {
	Type     string             `json:"type"`
	Command  string             `json:"command"`
	Args     []string           `json:"args"`
	Env      map[string]string  `json:"env"`
	Cwd      string             `json:"cwd"`
	URL      string             `json:"url"`
	Headers  map[string]*string `json:"headers"` // nil: written as null
	Disabled bool               `json:"disabled"`
	OAuth    *rawOAuth          `json:"oauth"`
	Roots    *[]string          `json:"roots"`
}

// rawOAuth is the "oauth" object as written.
type rawOAuth struct {
	ClientID          string   `json:"clientId"`
	ClientSecret      string   `json:"clientSecret"`
	ClientMetadataURL string   `json:"clientMetadataUrl"`
	Scopes            []string `json:"scopes"`
	Grant             string   `json:"grant"`
	Issuer            string   `json:"issuer"`
}

// knownEntryFields are the entry fields mcpcode reads; others (such as
// "autoApprove" or "timeout" from other hosts) only give a warning.
var knownEntryFields = map[string]bool{
	"type": true, "command": true, "args": true, "env": true, "cwd": true,
	"url": true, "headers": true, "disabled": true, "oauth": true, "roots": true,
}

// ParseConfig parses config data; name is used in messages (usually the path).
// Relative "cwd" values are taken relative to the config file's directory.
func ParseConfig(data []byte, name string, lookupEnv func(string) (string, bool)) (*Config, error) {
	display := filepath.Base(name)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, jsonError(display, data, err)
	}
	if top == nil {
		return nil, fmt.Errorf(`%s: the top level must be an object with an "mcpServers" (or "servers") key`, display)
	}
	cfg := &Config{Path: name}
	key, rawServers, err := serversKey(display, top)
	if err != nil {
		return nil, err
	}
	for k := range top {
		if k != key && k != privacyKey && k != typeCheckKey {
			cfg.Warnings = append(cfg.Warnings, fmt.Sprintf("%s: unknown top-level field %q ignored", display, k))
		}
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(rawServers, &entries); err != nil || entries == nil {
		return nil, fmt.Errorf("%s: %q must be an object mapping server names to server entries", display, key)
	}
	baseDir := filepath.Dir(name)
	for _, srvName := range sortedKeys(entries) {
		if strings.TrimSpace(srvName) == "" {
			return nil, fmt.Errorf("%s: a server has an empty name; give it a name", display)
		}
		srv, disabled, warnings, err := parseEntry(display, srvName, entries[srvName], baseDir, lookupEnv)
		cfg.Warnings = append(cfg.Warnings, warnings...)
		if err != nil {
			// Only this server is broken: the others stay usable, and every
			// use of this one reports the problem.
			cfg.Servers = append(cfg.Servers, ServerConfig{Name: srvName, Transport: srv.Transport, Err: err})
			continue
		}
		if disabled {
			cfg.Disabled = append(cfg.Disabled, srvName)
			continue
		}
		cfg.Servers = append(cfg.Servers, srv)
	}
	if raw, ok := top[privacyKey]; ok {
		p, warnings, err := parsePrivacy(display, raw, cfg.Names())
		cfg.Warnings = append(cfg.Warnings, warnings...)
		if err != nil {
			return nil, err
		}
		cfg.Privacy = p
	}
	if raw, ok := top[typeCheckKey]; ok {
		tc, warnings, err := parseTypeCheck(display, raw, baseDir)
		cfg.Warnings = append(cfg.Warnings, warnings...)
		if err != nil {
			return nil, err
		}
		cfg.TypeCheck = tc
	}
	sort.Strings(cfg.Warnings)
	return cfg, nil
}

// parseTypeCheck parses the "typecheck" object; a relative "tsc" is taken
// relative to baseDir, the config file's directory.
func parseTypeCheck(display string, raw json.RawMessage, baseDir string) (*TypeCheckConfig, []string, error) {
	where := display + `: "typecheck"`
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, nil, fmt.Errorf(`%s must be an object such as {"tsc": "node_modules/.bin/tsc"}`, where)
	}
	var warnings []string
	for _, f := range sortedKeys(fields) {
		if f != "tsc" {
			warnings = append(warnings, fmt.Sprintf("%s: unknown field %q ignored", where, f))
		}
	}
	tc := &TypeCheckConfig{}
	if r, ok := fields["tsc"]; ok {
		if err := json.Unmarshal(r, &tc.TSC); err != nil || strings.TrimSpace(tc.TSC) == "" {
			return nil, warnings, fmt.Errorf(`%s: "tsc" must be the path of a TypeScript compiler, such as "node_modules/.bin/tsc"`, where)
		}
		if !filepath.IsAbs(tc.TSC) {
			tc.TSC = filepath.Join(baseDir, tc.TSC)
		}
		tc.TSC = filepath.Clean(tc.TSC)
	}
	return tc, warnings, nil
}

// serversKey picks the key holding the servers: "mcpServers" (Claude
// Desktop, Cursor, Claude Code) or "servers" (VS Code).
func serversKey(display string, top map[string]json.RawMessage) (string, json.RawMessage, error) {
	a, hasA := top["mcpServers"]
	b, hasB := top["servers"]
	switch {
	case hasA && hasB:
		return "", nil, fmt.Errorf(`%s: has both "mcpServers" and "servers"; keep one of them`, display)
	case hasA:
		return "mcpServers", a, nil
	case hasB:
		return "servers", b, nil
	}
	return "", nil, fmt.Errorf(`%s: no "mcpServers" key: write {"mcpServers": {"name": {"command": "..."}}}`, display)
}

func parseEntry(display, name string, raw json.RawMessage, baseDir string, lookupEnv func(string) (string, bool)) (ServerConfig, bool, []string, error) {
	where := fmt.Sprintf("%s: server %q", display, name)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return ServerConfig{}, false, nil, fmt.Errorf("%s: the entry must be an object with \"command\" or \"url\"", where)
	}
	var warnings []string
	for _, f := range sortedKeys(fields) {
		if !knownEntryFields[f] {
			warnings = append(warnings, fmt.Sprintf("%s: unknown field %q ignored", where, f))
		}
	}
	var e rawEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			want := jsonTypeName(te.Type.Kind().String())
			if te.Field == "env" || te.Field == "headers" {
				want = jsonTypeName("map") // a value of the map is what is wrong
			}
			return ServerConfig{}, false, warnings, fmt.Errorf("%s: field %q must be %s", where, te.Field, want)
		}
		return ServerConfig{}, false, warnings, fmt.Errorf("%s: %v", where, err)
	}
	if e.Disabled {
		return ServerConfig{}, true, warnings, nil
	}
	transport, err := transportOf(where, e)
	if err != nil {
		return ServerConfig{}, false, warnings, err
	}
	x := expander{where: where, lookup: lookupEnv}
	srv := ServerConfig{Name: name, Transport: transport}
	if e.Roots != nil {
		srv.Roots = []string{}
		for i, r := range *e.Roots {
			root := x.expand(fmt.Sprintf("roots[%d]", i), r)
			root = strings.TrimPrefix(root, "file://")
			if root == "" && x.err == nil {
				x.fail(fmt.Errorf("%s: roots[%d] is empty; give a directory", where, i))
			}
			if !filepath.IsAbs(root) {
				root = filepath.Join(baseDir, root)
			}
			srv.Roots = append(srv.Roots, filepath.Clean(root))
		}
	}
	switch transport {
	case TransportStdio:
		srv.Command = x.expand("command", e.Command)
		for i, a := range e.Args {
			srv.Args = append(srv.Args, x.expand(fmt.Sprintf("args[%d]", i), a))
		}
		srv.Env = x.expandMap("env", e.Env)
		if e.Cwd != "" {
			srv.Cwd = x.expand("cwd", e.Cwd)
			if !filepath.IsAbs(srv.Cwd) {
				srv.Cwd = filepath.Join(baseDir, srv.Cwd)
			}
		}
		if e.URL != "" || len(e.Headers) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: \"url\" and \"headers\" are ignored for a stdio server", where))
		}
	default:
		srv.URL = x.expand("url", e.URL)
		headers, hw, err := headersOf(where, &x, e.Headers)
		warnings = append(warnings, hw...)
		if err != nil {
			return ServerConfig{Transport: transport}, false, warnings, err
		}
		srv.Headers = headers
		if e.Command != "" || len(e.Args) > 0 || len(e.Env) > 0 {
			warnings = append(warnings, fmt.Sprintf("%s: \"command\", \"args\" and \"env\" are ignored for a %s server", where, transport))
		}
		if e.OAuth != nil {
			o, err := parseOAuth(where, e.OAuth, &x)
			if err != nil {
				return ServerConfig{Transport: transport}, false, warnings, err
			}
			srv.OAuth = o
		}
	}
	if transport == TransportStdio && e.OAuth != nil {
		warnings = append(warnings, fmt.Sprintf("%s: \"oauth\" is ignored for a stdio server", where))
	}
	if x.err != nil {
		return ServerConfig{Transport: transport}, false, warnings, x.err
	}
	if transport == TransportStdio && strings.TrimSpace(srv.Command) == "" {
		return ServerConfig{Transport: transport}, false, warnings, fmt.Errorf("%s: \"command\" is empty", where)
	}
	if transport != TransportStdio {
		if err := checkURL(where, e.URL, srv.URL); err != nil {
			return ServerConfig{Transport: transport}, false, warnings, err
		}
	}
	return srv, false, warnings, nil
}

// parseOAuth checks and expands an "oauth" object.
func parseOAuth(where string, r *rawOAuth, x *expander) (o *OAuthConfig, err error) {
	o = &OAuthConfig{
		ClientID:          x.expand("oauth.clientId", r.ClientID),
		ClientSecret:      x.expand("oauth.clientSecret", r.ClientSecret),
		ClientMetadataURL: x.expand("oauth.clientMetadataUrl", r.ClientMetadataURL),
		Grant:             r.Grant,
	}
	for i, s := range r.Scopes {
		o.Scopes = append(o.Scopes, x.expand(fmt.Sprintf("oauth.scopes[%d]", i), s))
	}
	if x.err != nil {
		return nil, x.err
	}
	switch o.Grant {
	case "", GrantAuthorizationCode, GrantClientCredentials:
	default:
		return nil, fmt.Errorf("%s: oauth.grant %q: use %q (a person logs in) or %q (a machine)", where, r.Grant, GrantAuthorizationCode, GrantClientCredentials)
	}
	if o.Grant == GrantClientCredentials && (o.ClientID == "" || o.ClientSecret == "") {
		return nil, fmt.Errorf("%s: oauth.grant %q needs oauth.clientId and oauth.clientSecret (write the secret as ${VAR})", where, GrantClientCredentials)
	}
	if o.ClientSecret != "" && o.ClientID == "" {
		return nil, fmt.Errorf("%s: oauth.clientSecret is set but oauth.clientId is not; set both", where)
	}
	if m := o.ClientMetadataURL; m != "" && !strings.HasPrefix(m, "https://") {
		return nil, fmt.Errorf("%s: oauth.clientMetadataUrl %q must be an https URL with a path", where, r.ClientMetadataURL)
	}
	if o.Issuer, err = parseIssuer(where, r.Issuer, x); err != nil {
		return nil, err
	}
	return o, nil
}

// transportOf decides the transport: an explicit "type", else stdio when a
// command is given, else streamable HTTP when a url is given.
func transportOf(where string, e rawEntry) (string, error) {
	switch strings.ToLower(e.Type) {
	case "":
		switch {
		case e.Command != "":
			return TransportStdio, nil
		case e.URL != "":
			return TransportHTTP, nil
		}
		return "", fmt.Errorf("%s: needs \"command\" (a stdio server) or \"url\" (an http or sse server)", where)
	case "stdio":
		if e.Command == "" {
			return "", fmt.Errorf("%s: type \"stdio\" needs \"command\"", where)
		}
		return TransportStdio, nil
	case "http", "streamable-http", "streamablehttp":
		if e.URL == "" {
			return "", fmt.Errorf("%s: type %q needs \"url\"", where, e.Type)
		}
		return TransportHTTP, nil
	case "sse":
		if e.URL == "" {
			return "", fmt.Errorf("%s: type \"sse\" needs \"url\"", where)
		}
		return TransportSSE, nil
	}
	return "", fmt.Errorf("%s: unknown transport %q; use \"stdio\", \"http\" (streamable HTTP) or \"sse\"", where, e.Type)
}

// checkURL checks the expanded url. Its message shows the url as written:
// the value of a variable in it may be a secret.
func checkURL(where, written, expanded string) error {
	switch {
	case strings.HasPrefix(expanded, "http://") || strings.HasPrefix(expanded, "https://"):
		return nil
	case written != expanded:
		return fmt.Errorf("%s: url %q must start with http:// or https:// once its variables are expanded; check their values", where, written)
	}
	return fmt.Errorf("%s: url %q must start with http:// or https://", where, written)
}

// jsonError turns a decoding error into "file:line:col: message".
func jsonError(display string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		offset := se.Offset
		if strings.HasPrefix(se.Error(), "unexpected end") {
			offset = int64(len(data)) + 1 // the end of the input itself is the problem
		}
		line, col := position(data, offset)
		return fmt.Errorf("%s:%d:%d: invalid JSON: %v", display, line, col, se)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := position(data, te.Offset)
		return fmt.Errorf("%s:%d:%d: the top level must be an object, not %s", display, line, col, te.Value)
	}
	return fmt.Errorf("%s: invalid JSON: %v", display, err)
}

// position converts the decoder's offset (the number of bytes read when the
// error was found, so the offending byte is the one before it) into a 1-based
// line and column; the column counts characters, as editors do.
func position(data []byte, offset int64) (line, col int) {
	at := offset - 1
	if at > int64(len(data)) {
		at = int64(len(data))
	}
	if at < 0 {
		at = 0
	}
	before := data[:at]
	line = bytes.Count(before, []byte("\n")) + 1
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	col = len([]rune(string(before[lineStart:]))) + 1
	return line, col
}

// headersOf expands an entry's "headers". A header written as null, or
// empty (after expansion), is left out with a warning: an empty header is
// never what was meant, and some servers refuse a request for it. A name
// that is not an HTTP field name, or a value holding a line break or
// another control character, is an error of the entry, not a refused
// request at the first call.
func headersOf(where string, x *expander, raw map[string]*string) (map[string]string, []string, error) {
	if raw == nil {
		return nil, nil, nil
	}
	out := map[string]string{}
	var warnings []string
	for _, name := range sortedKeys(raw) {
		if name == "" || strings.IndexFunc(name, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
			return nil, warnings, fmt.Errorf("%s: headers: %q is not an HTTP header name (letters, digits and !#$%%&'*+-.^_`|~ only)", where, name)
		}
		if raw[name] == nil {
			warnings = append(warnings, fmt.Sprintf("%s: headers.%s is null; it is not sent", where, name))
			continue
		}
		value := x.expand("headers."+name, *raw[name])
		if x.err != nil {
			return nil, warnings, x.err
		}
		if strings.TrimSpace(value) == "" {
			warnings = append(warnings, fmt.Sprintf("%s: headers.%s is empty; it is not sent", where, name))
			continue
		}
		if strings.IndexFunc(value, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) >= 0 {
			return nil, warnings, fmt.Errorf("%s: headers.%s holds a line break or another control character, which an HTTP header cannot carry", where, name)
		}
		out[name] = value
	}
	return out, warnings, nil
}

func jsonTypeName(kind string) string {
	switch kind {
	case "slice":
		return "an array of strings"
	case "map":
		return "an object of strings"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "struct":
		return "an object"
	}
	return kind
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
