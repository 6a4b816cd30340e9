package generator

import (
	"sort"
	"strings"
)

// Summary reports what [Write] did.
type Summary struct {
	Servers         []ServerSummary // every server of the old or new manifest, sorted by name
	Root            FileChanges     // README.md, mcpcode.d.ts, tsconfig.json
	ManifestWritten bool            // false when the manifest was already up to date
}

// ServerSummary reports the changes of one server. Tools are compared by
// original name and by the hash of their raw JSON.
type ServerSummary struct {
	Name    string
	Kept    bool // kept as it was (Options.Kept)
	Removed bool // in the old manifest only: its files were removed

	ToolsAdded, ToolsChanged, ToolsRemoved, ToolsUnchanged []string // original tool names, sorted

	Files FileChanges
}

// FileChanges lists files by what happened to them (slash-separated paths
// relative to the out dir).
type FileChanges struct {
	Written, Removed, Unchanged []string
}

// summarize compares the old and new manifests and sorts the file states
// into per-server and root changes.
func summarize(prev *Manifest, plan *Plan, state map[string]fileState) *Summary {
	sum := &Summary{}
	kept := toSet(plan.Kept)
	byDir := map[string]*ServerSummary{}
	names := map[string]bool{}
	for _, s := range prev.Servers {
		names[s.Name] = true
	}
	for _, s := range plan.Manifest.Servers {
		names[s.Name] = true
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, name := range sorted {
		ss := ServerSummary{Name: name, Kept: kept[name]}
		old, hadOld := prev.Server(name)
		cur, hasNew := plan.Manifest.Server(name)
		ss.Removed = hadOld && !hasNew
		oldTools := map[string]string{}
		if hadOld {
			for _, t := range old.Tools {
				oldTools[t.Name] = t.SHA256
			}
		}
		if hasNew {
			for _, t := range cur.Tools {
				h, ok := oldTools[t.Name]
				switch {
				case !ok:
					ss.ToolsAdded = append(ss.ToolsAdded, t.Name)
				case h != t.SHA256:
					ss.ToolsChanged = append(ss.ToolsChanged, t.Name)
				default:
					ss.ToolsUnchanged = append(ss.ToolsUnchanged, t.Name)
				}
				delete(oldTools, t.Name)
			}
		}
		for n := range oldTools {
			ss.ToolsRemoved = append(ss.ToolsRemoved, n)
		}
		sort.Strings(ss.ToolsAdded)
		sort.Strings(ss.ToolsChanged)
		sort.Strings(ss.ToolsRemoved)
		sort.Strings(ss.ToolsUnchanged)
		sum.Servers = append(sum.Servers, ss)
	}
	for i := range sum.Servers {
		s := &sum.Servers[i]
		for _, m := range []*Manifest{prev, &plan.Manifest} {
			if e, ok := m.Server(s.Name); ok {
				byDir[e.Directory] = s
			}
		}
		if s.Kept {
			if e, ok := plan.Manifest.Server(s.Name); ok {
				s.Files.Unchanged = append(s.Files.Unchanged, e.Files...)
			}
		}
	}
	var paths []string
	for p := range state {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fc := &sum.Root
		if dir, _, ok := strings.Cut(p, "/"); ok && byDir[dir] != nil {
			fc = &byDir[dir].Files
		}
		switch state[p] {
		case fileWritten:
			fc.Written = append(fc.Written, p)
		case fileRemoved:
			fc.Removed = append(fc.Removed, p)
		default:
			fc.Unchanged = append(fc.Unchanged, p)
		}
	}
	return sum
}
