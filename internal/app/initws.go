package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strings"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/internal/lazyregexp"
)

// Hosts whose MCP configuration init can import, and that it can print the
// serve snippet for.
const (
	HostClaudeDesktop = "claude-desktop"
	HostCursor        = "cursor"
	HostClaudeCode    = "claude-code"
	HostVSCode        = "vscode"
)

// InitOptions say where to make a workspace and what to import.
type InitOptions struct {
	// Dir is the workspace to create or complete (default: the current
	// directory).
	Dir string
	// From is a host (Host*) whose configuration to import, or a file in
	// the mcpServers (or VS Code servers) format; "" writes an empty
	// mcp.json unless one exists.
	From string
	// Home is the user's home directory (host configs live under it).
	Home string
	// Binary is the mcpcode binary the host should start.
	Binary string
	// CI, when set (CIGitHub, CIGitLab), writes that code host's workflow
	// into the repository: verify the skills and show the review cards of
	// a pull request. MCPCodeVersion is the module version it installs.
	CI             string
	MCPCodeVersion string
}

// InitReport says what init did.
type InitReport struct {
	Root string `json:"root"`
	// Source is the host config that was imported, if any.
	Source string `json:"source,omitempty"`
	// Imported are the servers copied into mcp.json.
	Imported []string `json:"imported"`
	// Written and Kept list the files init wrote, and the ones that existed
	// and were left alone.
	Written []string `json:"written"`
	Kept    []string `json:"kept"`
	// Notes are things the person should know (a literal secret, a VS Code
	// input turned into a variable).
	Notes []string `json:"notes,omitempty"`
	// Host and Snippet: the configuration that adds `mcpcode serve` to the
	// host, and the host it is for.
	Host    string `json:"host"`
	Snippet string `json:"snippet"`
}

// HostConfigPath is where a host keeps its MCP servers.
func HostConfigPath(host, home, cwd string) (string, error) {
	switch host {
	case HostClaudeDesktop:
		switch goruntime.GOOS {
		case "darwin":
			return filepath.Join(home, "Library", "Application Support", "Claude", "claude_desktop_config.json"), nil
		case "windows":
			return filepath.Join(home, "AppData", "Roaming", "Claude", "claude_desktop_config.json"), nil
		}
		return filepath.Join(home, ".config", "Claude", "claude_desktop_config.json"), nil
	case HostCursor:
		if p := filepath.Join(cwd, ".cursor", "mcp.json"); fileExists(p) {
			return p, nil
		}
		return filepath.Join(home, ".cursor", "mcp.json"), nil
	case HostClaudeCode:
		if p := filepath.Join(cwd, layout.AltConfigFile); fileExists(p) {
			return p, nil
		}
		return filepath.Join(home, ".claude.json"), nil
	case HostVSCode:
		return filepath.Join(cwd, ".vscode", "mcp.json"), nil
	}
	return "", fmt.Errorf("unknown host %q: use %s, %s, %s, %s or a file", host, HostClaudeDesktop, HostCursor, HostClaudeCode, HostVSCode)
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// Init creates or completes a workspace: mcp.json (imported from a host's
// configuration when asked, each server entry unchanged in meaning:
// variables stay ${VAR}), AGENTS.md, a CLAUDE.md that points to it, and a
// .gitignore for .mcpcode/ and node_modules/. Files that exist are kept, except that an
// import into an existing mcp.json adds the servers it does not have yet.
func (a *App) Init(o InitOptions) (*InitReport, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	root := cwd
	if o.Dir != "" {
		if root, err = filepath.Abs(o.Dir); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("creating the workspace: %w", err)
	}
	rep := &InitReport{Root: root, Imported: []string{}, Written: []string{}, Kept: []string{}, Host: HostClaudeDesktop}
	imported := map[string]json.RawMessage{}
	if o.From != "" {
		src := o.From
		if !strings.ContainsAny(o.From, `/\.`) {
			if src, err = HostConfigPath(o.From, o.Home, cwd); err != nil {
				return nil, usageErrorf(err)
			}
			rep.Host = o.From
		}
		rep.Source = src
		imported, rep.Notes, err = importServers(src)
		if err != nil {
			return nil, usageErrorf(err)
		}
	}
	cfgPath := filepath.Join(root, layout.ConfigFile)
	existing := map[string]json.RawMessage{}
	var top map[string]json.RawMessage
	if data, err := os.ReadFile(cfgPath); err == nil {
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, usageErrorf(fmt.Errorf("%s exists but is not a JSON object (%v): fix it or move it away", cfgPath, err))
		}
		if raw, ok := top["mcpServers"]; ok {
			_ = json.Unmarshal(raw, &existing)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	names := make([]string, 0, len(imported))
	for n := range imported {
		if _, ok := existing[n]; ok {
			rep.Notes = append(rep.Notes, fmt.Sprintf("server %q is already in mcp.json: kept as it was", n))
			continue
		}
		existing[n] = imported[n]
		names = append(names, n)
	}
	sort.Strings(names)
	rep.Imported = names
	if top == nil || len(names) > 0 {
		if top == nil {
			top = map[string]json.RawMessage{}
		}
		servers, _ := json.Marshal(existing)
		top["mcpServers"] = servers
		var out bytes.Buffer
		data, _ := json.Marshal(top)
		_ = json.Indent(&out, data, "", "  ")
		out.WriteByte('\n')
		if err := atomicfile.Write(cfgPath, out.Bytes(), 0o644); err != nil {
			return nil, err
		}
		rep.Written = append(rep.Written, layout.ConfigFile)
	} else {
		rep.Kept = append(rep.Kept, layout.ConfigFile)
	}
	for _, f := range []struct{ name, content string }{
		{"AGENTS.md", agentsMD},
		{"CLAUDE.md", "See AGENTS.md: how to use this workspace's tools through code with mcpcode.\n"},
		{".gitignore", gitignore},
	} {
		p := filepath.Join(root, f.name)
		if fileExists(p) {
			rep.Kept = append(rep.Kept, f.name)
			continue
		}
		if err := atomicfile.Write(p, []byte(f.content), 0o644); err != nil {
			return nil, err
		}
		rep.Written = append(rep.Written, f.name)
	}
	if o.CI != "" {
		if err := writeCI(rep, root, o.CI, o.MCPCodeVersion); err != nil {
			return nil, err
		}
	}
	rep.Snippet = ServeSnippet(rep.Host, o.Binary, root)
	return rep, nil
}

// gitignore keeps mcpcode's state out of git, but for the generator's
// manifest: it says which tools exist and which are read-only, and
// `skills verify` needs it wherever the repository is checked out (CI).
// It keeps out node_modules/ too, which `npm i -D typescript@7` (the
// compiler `mcpcode check` asks for) creates in the workspace; the
// package.json and lock file that pin the compiler are committed.
const gitignore = "/" + layout.StateDir + "/*\n!/" + layout.StateDir + "/" + layout.ManifestFile + "\nnode_modules/\n"

// importServers reads the servers of a host configuration: "mcpServers"
// (Claude Desktop, Cursor, Claude Code) or "servers" (VS Code). VS Code's
// ${env:VAR} becomes ${VAR}, and its ${input:id} becomes ${ID} with a note
// saying to set that variable, since mcpcode has no prompts of its own.
func importServers(path string) (map[string]json.RawMessage, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the host configuration: %w", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, nil, fmt.Errorf("%s is not a JSON object: %v", path, err)
	}
	raw, ok := top["mcpServers"]
	vscode := false
	if !ok {
		raw, vscode = top["servers"]
	}
	if raw == nil {
		return nil, nil, fmt.Errorf(`%s has no "mcpServers" (or VS Code "servers") object to import`, path)
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, nil, fmt.Errorf("%s: the servers are not an object: %v", path, err)
	}
	var notes []string
	out := map[string]json.RawMessage{}
	for name, e := range entries {
		text := string(e)
		if vscode {
			text = envRef.ReplaceAllString(text, `$${$1}`)
			text = inputRef.ReplaceAllStringFunc(text, func(m string) string {
				id := inputRef.FindStringSubmatch(m)[1]
				v := strings.ToUpper(nonWord.ReplaceAllString(id, "_"))
				notes = append(notes, fmt.Sprintf("server %q: VS Code asked for input %q; set the environment variable %s instead", name, id, v))
				return "${" + v + "}"
			})
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal([]byte(text), &fields) == nil {
			for _, key := range []string{"env", "headers"} {
				var m map[string]string
				if json.Unmarshal(fields[key], &m) == nil {
					for k, v := range m {
						if v != "" && !strings.Contains(v, "${") && looksSecret(k) {
							notes = append(notes, fmt.Sprintf("server %q: %s %s holds a literal value; consider \"${%s}\" so the secret stays out of mcp.json", name, key, k, strings.ToUpper(nonWord.ReplaceAllString(k, "_"))))
						}
					}
				}
			}
		}
		out[name] = json.RawMessage(text)
	}
	sort.Strings(notes)
	return out, notes, nil
}

var (
	envRef   = lazyregexp.New(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)
	inputRef = lazyregexp.New(`\$\{input:([^}]+)\}`)
	nonWord  = lazyregexp.New(`[^A-Za-z0-9_]+`)
)

func looksSecret(key string) bool {
	k := strings.ToLower(key)
	for _, w := range []string{"token", "key", "secret", "password", "authorization", "auth"} {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// ServeSnippet is the configuration that adds `mcpcode serve` for the
// workspace to a host.
func ServeSnippet(host, binary, root string) string {
	if binary == "" {
		binary = "mcpcode"
	}
	args, _ := json.Marshal([]string{"serve", "--dir", root})
	cmd, _ := json.Marshal(binary)
	switch host {
	case HostVSCode:
		return fmt.Sprintf("Add to .vscode/mcp.json (and remove the servers mcpcode now serves):\n{\n  \"servers\": {\n    \"mcpcode\": { \"type\": \"stdio\", \"command\": %s, \"args\": %s }\n  }\n}\n", cmd, args)
	case HostClaudeCode:
		return fmt.Sprintf("Run:\n  claude mcp add mcpcode -- %s serve --dir %s\n", shellQuote(binary), shellQuote(root))
	case HostCursor:
		return fmt.Sprintf("Add to ~/.cursor/mcp.json (and remove the servers mcpcode now serves):\n{\n  \"mcpServers\": {\n    \"mcpcode\": { \"command\": %s, \"args\": %s }\n  }\n}\n", cmd, args)
	}
	return fmt.Sprintf("Add to claude_desktop_config.json (and remove the servers mcpcode now serves):\n{\n  \"mcpServers\": {\n    \"mcpcode\": { \"command\": %s, \"args\": %s }\n  }\n}\n", cmd, args)
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?&;|<>()[]{}#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// agentsMD teaches an agent the workspace.
const agentsMD = `# Working in this workspace

This workspace's MCP tools are a typed TypeScript API, generated by mcpcode.
Use them through code instead of calling tools one by one:

1. Find tools: read servers/README.md (one line per server), then
   servers/<server>/index.ts (one line per tool); or search:
   ` + "`mcpcode tools --search \"what you need\"`" + `.
2. Read the one or two tool files you need (servers/<server>/<tool>.ts) for
   their input and output types.
3. Write a short program that imports them, filters and joins data in code,
   and logs or returns only what you need; run it with
   ` + "`mcpcode run --check prog.ts`" + `: it is type-checked against the tools'
   types first (with TypeScript installed: ` + "`npm i -D typescript@7`" + `), so a
   mistake is reported before any tool is called. Large results stay in the
   program.
4. Files that should outlive a run go to workspace/ (import from
   "mcpcode:fs").
5. When a program is worth keeping, propose it as a skill:
   ` + "`mcpcode skills propose --name NAME --description TEXT --rationale TEXT prog.ts`" + `.
   A person reviews and approves it; approved skills live in skills/ and are
   imported as "skills/<name>".

Through an MCP host, the same steps are the tools of ` + "`mcpcode serve`" + `:
search_tools, read, execute and propose_skill.
`
