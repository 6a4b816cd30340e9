package generator

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// Server is one upstream server's catalog, as listed.
type Server struct {
	Name         string            // key in mcp.json, e.g. "google-drive" (becomes the directory and the first argument of callMCPTool)
	Info         ServerInfo        // from initialize: serverInfo name/title/version
	Instructions string            // from initialize
	Tools        []json.RawMessage // each element: one tool object exactly as the server sent it in tools/list (all pages, server order)
	// Parsed, when it has one element per element of Tools, are the
	// caller's reads of them by mcptool.Parse (a listing parses the tools
	// it lists), which Generate uses instead of parsing them again: each
	// one whose Tool.Raw is the element of Tools itself (not a copy).
	Parsed []ParsedTool
}

// ParsedTool is a tool definition as mcptool.Parse read it: the tool (its
// Raw the definition) and the warnings.
type ParsedTool struct {
	Tool     mcptool.Tool
	Warnings []string
}

// ServerInfo is the serverInfo an upstream server sent in initialize.
type ServerInfo struct {
	Name        string `json:"name,omitempty"`
	Title       string `json:"title,omitempty"`
	Version     string `json:"version,omitempty"`
	Description string `json:"description,omitempty"` // serverInfo.description (MCP 2025-11-25)
}

// File is one generated file. Path is slash-separated and relative to the
// out dir.
type File struct {
	Path    string
	Content []byte
}

// Warning is a problem with a server's input that generation worked around
// (a tool skipped, part of a schema typed as unknown). Tool is the original
// tool name, "" for the server as a whole.
type Warning struct {
	Server, Tool, Message string
}

func (w Warning) String() string {
	if w.Tool == "" {
		return fmt.Sprintf("%s: %s", w.Server, w.Message)
	}
	return fmt.Sprintf("%s: tool %s: %s", w.Server, strconv.Quote(w.Tool), w.Message)
}

// Plan is the result of [Generate]: the files to write (sorted by path),
// the warnings, the metadata lint's findings, and the manifest describing
// the whole tree, kept servers included. Apply it with [Write].
type Plan struct {
	Files    []File
	Warnings []Warning
	// Findings are the metadata lint's findings (see [Lint]) on the
	// servers generated now, sorted by server and tool. Each server's are
	// also in its manifest entry (ServerEntry.Findings), which kept servers
	// carry over, and in its README.md line and tool doc comments.
	Findings []Finding
	Manifest Manifest
	Kept     []string // names of the servers kept as they were (Options.Kept), sorted
	// Renamed are the tools of the servers generated now that got a name
	// other than their plain one because another tool had it before (see
	// [Options.Previous]), sorted by server and tool.
	Renamed []Renamed
}

// Renamed is a tool generated under another name than its plain one,
// because that name belongs to another tool since an earlier gen.
type Renamed struct {
	Server   string `json:"server"`
	Tool     string `json:"tool"`     // the tool's name
	Function string `json:"function"` // the function it is generated as
	Wanted   string `json:"wanted"`   // the plain name, which stays the holder's
	Holder   string `json:"holder"`   // the tool that keeps it
}

// ServersWithFindings returns the names of the servers generated now that
// have metadata lint findings of SeverityWarning (or, with notices, of any
// severity), sorted. `gen --strict-metadata` refuses the servers
// ServersWithFindings(false) returns.
func (p *Plan) ServersWithFindings(notices bool) []string {
	var out []string
	for _, f := range p.Findings {
		if (notices || f.Severity == SeverityWarning) && (len(out) == 0 || out[len(out)-1] != f.Server) {
			out = append(out, f.Server)
		}
	}
	return out
}

// Options tune [Generate].
type Options struct {
	// Kept are servers whose files stay exactly as they are, from the
	// previous manifest (see [Manifest.Keep]): servers that failed to
	// connect or list this time, or that were not selected for
	// regeneration. They keep their directory and entry and are still
	// listed in README.md.
	Kept []ServerEntry
	// Previous is the manifest of the last gen (nil: none). A tool listed
	// in it keeps its function name, and no other tool of its server ever
	// takes that name: a newcomer whose plain name is taken gets a
	// numbered one, reported in Plan.Renamed. So an approved skill calling
	// a generated function keeps calling the same upstream tool.
	Previous *Manifest
}

// Generate turns the listed servers into the files of the tree. It never
// fails because of what servers sent (bad tools are skipped or degraded,
// with warnings); it fails only when the arguments contradict each other:
// two servers with the same name, or a kept entry that is not safe.
func Generate(servers []Server, opts Options) (*Plan, error) {
	taken := map[string]bool{}
	names := map[string]bool{}
	for _, k := range opts.Kept {
		if err := checkKept(&k); err != nil {
			return nil, err
		}
		if names[k.Name] {
			return nil, fmt.Errorf("server %q is kept twice: pass each server once", k.Name)
		}
		if taken[strings.ToLower(k.Directory)] {
			return nil, fmt.Errorf("kept servers share the directory %q: regenerate one of them", k.Directory)
		}
		names[k.Name] = true
		taken[strings.ToLower(k.Directory)] = true
	}
	for _, s := range servers {
		if names[s.Name] {
			return nil, fmt.Errorf("server %q is given twice (listed or kept): pass each server once", s.Name)
		}
		names[s.Name] = true
	}

	order := make([]int, len(servers))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return servers[order[a]].Name < servers[order[b]].Name })

	plan := &Plan{Manifest: Manifest{Version: ManifestVersion}}
	entries := append([]ServerEntry(nil), opts.Kept...)
	parsed := make([][]*parsedTool, len(servers))
	parseWarnings := make([][]Warning, len(servers))
	for i := range servers {
		parsed[i], parseWarnings[i] = parseServerTools(&servers[i])
	}
	plan.Findings = lintParsed(servers, parsed, opts.Kept)
	for _, i := range order {
		dir := uniqueDir(dirName(servers[i].Name), taken)
		var findings []Finding
		for _, f := range plan.Findings {
			if f.Server == servers[i].Name {
				findings = append(findings, f)
			}
		}
		var previous map[string]string
		if opts.Previous != nil {
			if e, ok := opts.Previous.Server(servers[i].Name); ok {
				previous = map[string]string{}
				for _, t := range e.Tools {
					previous[t.Name] = t.Function
				}
			}
		}
		files, entry, renamed, warnings := generateServer(&servers[i], dir, parsed[i], findings, previous)
		plan.Renamed = append(plan.Renamed, renamed...)
		plan.Files = append(plan.Files, files...)
		plan.Warnings = append(plan.Warnings, parseWarnings[i]...)
		plan.Warnings = append(plan.Warnings, warnings...)
		entries = append(entries, entry)
	}
	sort.Slice(entries, func(a, b int) bool { return entries[a].Name < entries[b].Name })

	plan.Files = append(plan.Files,
		File{readmeFile, renderReadme(entries)},
		File{declFile, append([]byte(nil), runtimeDeclarations...)},
		File{tsconfigFile, []byte(tsconfigJSON)},
	)
	sort.Slice(plan.Files, func(a, b int) bool { return plan.Files[a].Path < plan.Files[b].Path })
	plan.Manifest.Files = []string{readmeFile, declFile, tsconfigFile}
	sort.Strings(plan.Manifest.Files)
	plan.Manifest.Servers = entries
	for _, k := range opts.Kept {
		plan.Kept = append(plan.Kept, k.Name)
	}
	sort.Strings(plan.Kept)
	return plan, nil
}

// checkKept rejects a kept entry whose paths gen could not have written, so a
// hand-edited manifest cannot make the writer touch other files.
func checkKept(k *ServerEntry) error {
	if !safeSegment(k.Directory) || reservedRootNames[strings.ToLower(k.Directory)] {
		return fmt.Errorf("kept server %q has an unsafe directory %q in the manifest: regenerate it", k.Name, k.Directory)
	}
	for _, f := range k.Files {
		if !safeRelPath(f) || !strings.HasPrefix(f, k.Directory+"/") {
			return fmt.Errorf("kept server %q lists the unsafe file %q in the manifest: regenerate it", k.Name, f)
		}
	}
	return nil
}

// uniqueDir returns dir, or dir-2, dir-3, … when another server already has
// that directory (compared case-insensitively), and marks it taken.
func uniqueDir(dir string, taken map[string]bool) string {
	candidate := dir
	for n := 2; taken[strings.ToLower(candidate)]; n++ {
		suffix := "-" + strconv.Itoa(n)
		base := dir
		if len(base)+len(suffix) > maxNameLen {
			base = base[:maxNameLen-len(suffix)]
		}
		candidate = base + suffix
	}
	taken[strings.ToLower(candidate)] = true
	return candidate
}

// parseServerTools parses a server's raw tools, skipping (with a warning)
// the ones that cannot be generated and repeats of a name.
func parseServerTools(s *Server) ([]*parsedTool, []Warning) {
	var warnings []Warning
	warn := func(tool string, msgs ...string) {
		for _, m := range msgs {
			warnings = append(warnings, Warning{Server: s.Name, Tool: tool, Message: m})
		}
	}
	type parseResult struct {
		tool parsedTool
		msgs []string
		ok   bool
	}
	results := make([]parseResult, len(s.Tools))
	forEach(len(s.Tools), func(i int) {
		r := &results[i]
		var pre *ParsedTool
		if len(s.Parsed) == len(s.Tools) {
			pre = &s.Parsed[i]
		}
		r.tool, r.msgs, r.ok = parseTool(s.Tools[i], pre)
	})
	var tools []*parsedTool
	seen := map[string]bool{}
	for i := range results {
		t, msgs, ok := &results[i].tool, results[i].msgs, results[i].ok
		if !ok {
			warn("", prefixAll(fmt.Sprintf("tools[%d]: ", i), msgs)...)
			continue
		}
		if seen[t.Name] {
			warn(t.Name, "listed more than once; only the first is generated")
			continue
		}
		seen[t.Name] = true
		warn(t.Name, msgs...)
		tools = append(tools, t)
	}
	return tools, warnings
}

// generateServer renders one server's directory from its parsed tools and
// its lint findings; previous are its tools' function names in the last
// manifest.
func generateServer(s *Server, dir string, tools []*parsedTool, findings []Finding, previous map[string]string) ([]File, ServerEntry, []Renamed, []Warning) {
	var warnings []Warning
	warn := func(tool string, msgs ...string) {
		for _, m := range msgs {
			warnings = append(warnings, Warning{Server: s.Name, Tool: tool, Message: m})
		}
	}
	tools = append([]*parsedTool(nil), tools...)
	byTool := map[string][]Finding{}
	for _, f := range findings {
		byTool[f.Tool] = append(byTool[f.Tool], f)
	}

	toolNames := make([]string, len(tools))
	for i, t := range tools {
		toolNames[i] = t.Name
	}
	assigned := assignToolNames(toolNames, previous)
	sort.Slice(tools, func(a, b int) bool { return assigned[tools[a].Name].Function < assigned[tools[b].Name].Function })
	var renamed []Renamed
	for _, t := range tools {
		if n := assigned[t.Name]; n.Held != "" {
			renamed = append(renamed, Renamed{Server: s.Name, Tool: t.Name, Function: n.Function, Wanted: assigned[n.Held].Function, Holder: n.Held})
		}
	}
	sort.Slice(renamed, func(a, b int) bool { return renamed[a].Tool < renamed[b].Tool })

	entry := ServerEntry{
		Name:         s.Name,
		Directory:    dir,
		Info:         s.Info,
		Instructions: s.Instructions,
		ToolCount:    len(tools),
		Tools:        []ToolEntry{},
		Findings:     findings,
	}
	type rendered struct {
		content []byte
		msgs    []string
	}
	out := make([]rendered, len(tools))
	forEach(len(tools), func(i int) {
		t := tools[i]
		out[i].content, out[i].msgs = renderTool(s, t, assigned[t.Name], byTool[t.Name])
		// Its schemas are not needed any more: the memory of 10,000 of
		// them is the next tools' (a heap that grows less).
		t.input, t.output = nil, nil
	})
	files := make([]File, 0, len(tools)+1)
	index := make([]indexEntry, 0, len(tools))
	entry.Tools = make([]ToolEntry, 0, len(tools))
	for i, t := range tools {
		n := assigned[t.Name]
		warn(t.Name, out[i].msgs...)
		path := dir + "/" + n.Function + ".ts"
		files = append(files, File{path, out[i].content})
		entry.Tools = append(entry.Tools, ToolEntry{
			Name:            t.Name,
			Function:        n.Function,
			File:            path,
			SHA256:          t.hash,
			Title:           t.Title,
			Hints:           t.Hints,
			HasOutputSchema: t.hasOutput,
		})
		index = append(index, indexEntry{function: n.Function, typ: n.Type, summary: toolSummary(t), hasOutput: t.hasOutput, lint: warningKinds(byTool[t.Name]), unusable: unusableReason(t)})
	}
	files = append(files, File{dir + "/index.ts", renderIndex(s, index)})
	for _, f := range files {
		entry.Files = append(entry.Files, f.Path)
	}
	sort.Strings(entry.Files)
	return files, entry, renamed, warnings
}

func prefixAll(prefix string, msgs []string) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = prefix + m
	}
	return out
}
