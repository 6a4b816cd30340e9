package skills

import (
	"context"
	"sort"

	"github.com/mcpcode/mcpcode/internal/lazyregexp"
	"github.com/mcpcode/mcpcode/runtime"
)

// ToolUse is one tool a skill's program calls, as a reviewer sees it.
type ToolUse struct {
	Server string `json:"server"`
	Tool   string `json:"tool"`
	// Via names the approved skill whose code makes the call, when it is not
	// the program itself.
	Via string `json:"via,omitempty"`
	// Known is whether the tool exists in the generated tree.
	Known bool `json:"known"`
	// ReadOnly is the server's readOnlyHint, as recorded by gen.
	ReadOnly bool `json:"readOnly"`
}

func (t ToolUse) String() string { return t.Server + "." + t.Tool }

// accessNote is the short note a reviewer reads next to the tool.
func (t ToolUse) accessNote() string {
	switch {
	case !t.Known:
		return " (unknown: not in servers/; run mcpcode gen?)"
	case t.ReadOnly:
		return " (read-only)"
	}
	return " (NOT read-only: may write)"
}

// analysis is what bundling a program without running it tells.
type analysis struct {
	tools   []ToolUse
	dynamic []string // call sites that cannot be verified statically
	skills  []string // approved skills it imports
}

// writes returns the known tools that are not read-only.
func (a *analysis) writes() []ToolUse {
	var out []ToolUse
	for _, t := range a.tools {
		if t.Known && !t.ReadOnly {
			out = append(out, t)
		}
	}
	return out
}

// unknown returns the tools that do not exist in the generated tree.
func (a *analysis) unknown() []ToolUse {
	var out []ToolUse
	for _, t := range a.tools {
		if !t.Known {
			out = append(out, t)
		}
	}
	return out
}

// analyze bundles a skill's program (source, at entry: a path inside the
// workspace) with w.Bundle, as the code of skill (its imports confined to
// the tree, approved skills and its own folder), and reports the tools it
// calls, through the skills it imports too. Nothing is executed: esbuild
// only parses and links, and the analysis walks the bundles' syntax trees.
func (w Workspace) analyze(ctx context.Context, entry string, source []byte, skill string) (*analysis, error) {
	opts := runtime.BundleOptions{Workspace: w.Root, Entry: entry, Source: source, Skills: w.Policy(), Skill: skill}
	var prog *runtime.Program
	var err error
	if w.Bundle != nil {
		prog, err = w.Bundle(ctx, opts)
	} else {
		prog, err = runtime.Bundle(opts)
	}
	if err != nil {
		return nil, err
	}
	m, err := w.manifest()
	if err != nil {
		return nil, err
	}
	a := &analysis{dynamic: prog.Unverifiable, skills: prog.Skills}
	seen := map[string]bool{}
	for _, c := range prog.Calls {
		key := c.Server + "\x00" + c.Tool + "\x00" + c.Skill
		if seen[key] {
			continue
		}
		seen[key] = true
		use := ToolUse{Server: c.Server, Tool: c.Tool, Via: c.Skill}
		if t, ok := m.Tool(c.Server, c.Tool); ok {
			use.Known, use.ReadOnly = true, t.Hints.IsReadOnly()
		}
		a.tools = append(a.tools, use)
	}
	sort.Slice(a.tools, func(i, j int) bool {
		x, y := a.tools[i], a.tools[j]
		if x.Server != y.Server {
			return x.Server < y.Server
		}
		if x.Tool != y.Tool {
			return x.Tool < y.Tool
		}
		return x.Via < y.Via
	})
	return a, nil
}

// hasDefaultExport is a light check that the program exports a default
// (the skill's entry point); bundling checks the rest.
var hasDefaultExport = lazyregexp.New(`\bexport\s+default\b|\bas\s+default\b`)
