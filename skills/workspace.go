package skills

import (
	"context"
	"errors"
	"fmt"
	"github.com/mcpcode/mcpcode/internal/layout"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/runtime"
)

// Where things live, relative to the workspace root.
const (
	SkillsDir    = layout.SkillsDir
	proposalsDir = layout.ProposalsDir
	dismissedDir = layout.DismissedDir
	programFile  = "index.ts"
	recordFile   = "proposal.json"
	skillMDFile  = "SKILL.md"
	schemaFile   = "input.schema.json"
)

// Workspace is one workspace's skills.
type Workspace struct {
	// Root is the workspace directory: it holds servers/ and skills/.
	Root string
	// ManifestPath is the generator's manifest, which says which tools exist
	// and which are read-only.
	ManifestPath string
	// Bundle bundles a program for analysis, never to run it: Propose,
	// ProposeGit, Show, Approve and Verify bundle proposals and skills to
	// find the tools they call. A proposal is untrusted source, and some
	// source crashes esbuild or keeps it busy for many seconds, so a process
	// that must survive it passes a bundler that works in a worker process
	// (runtime/worker's Pool.Bundle). It must return the *runtime.BundleError
	// of a program that does not bundle, diagnostics intact. The skill
	// policy it should use is the Workspace's own (Policy). Nil bundles in
	// this process with runtime.Bundle: for trusted programs and tests.
	Bundle func(ctx context.Context, o runtime.BundleOptions) (*runtime.Program, error)
	// Run bundles and runs a program: Verify replays approved skills'
	// recorded examples with it (its Caller answers from the recording).
	// Like Bundle, a process that must survive untrusted code passes one
	// that works in a worker process (runtime/worker's Pool.Run). Nil
	// bundles and runs in this process.
	Run func(ctx context.Context, b runtime.BundleOptions, r runtime.RunOptions) *runtime.Result
}

// NewWorkspace returns the skills of the workspace at root, with the
// generator manifest in its usual place.
func NewWorkspace(root string) Workspace {
	return Workspace{Root: root, ManifestPath: layout.Paths{Root: root}.Manifest()}
}

func (w Workspace) skillsDir() string              { return filepath.Join(w.Root, SkillsDir) }
func (w Workspace) approvedDir(name string) string { return filepath.Join(w.skillsDir(), name) }
func (w Workspace) proposalDir(name string) string {
	return filepath.Join(w.skillsDir(), proposalsDir, name)
}
func (w Workspace) dismissedDir(name string) string {
	return filepath.Join(w.skillsDir(), dismissedDir, name)
}

// manifest reads the generator manifest; a workspace where gen never ran
// has an empty one.
func (w Workspace) manifest() (*generator.Manifest, error) {
	m, err := generator.ReadManifest(w.ManifestPath)
	if errors.Is(err, fs.ErrNotExist) {
		return &generator.Manifest{Version: generator.ManifestVersion}, nil
	}
	return m, err
}

// Status of a skill.
const (
	StatusApproved  = "approved"
	StatusPending   = "pending"
	StatusDismissed = "dismissed"
)

// Entry is one skill of `mcpcode skills list`.
type Entry struct {
	Name        string `json:"name"`
	Status      string `json:"status"`
	Description string `json:"description"`
	Write       bool   `json:"write,omitempty"`
	Problem     string `json:"problem,omitempty"` // an approved skill whose SKILL.md cannot be read
	// Approval is who approved an approved skill, when and at which commit
	// (Unbound when its hash does not cover the record, or its files no
	// longer match).
	Approval *Approval `json:"approval,omitempty"`
	// Revoked is the record of a revoked skill.
	Revoked *Revocation `json:"revoked,omitempty"`
}

func readOrNil(p string) []byte {
	data, _ := os.ReadFile(p)
	return data
}

// List returns approved, pending and dismissed skills, sorted by status
// then name.
func (w Workspace) List() ([]Entry, error) {
	var out []Entry
	approved, err := subdirs(w.skillsDir())
	if err != nil {
		return nil, err
	}
	for _, name := range approved {
		e := Entry{Name: name, Status: StatusApproved}
		if fm, err := w.readSkillMD(name); err != nil {
			e.Problem = err.Error()
		} else {
			e.Description, e.Write = fm.Description, fm.Write()
			rec := fm.Approval()
			if files, err := w.readFolder(SkillsDir + "/" + name); err == nil {
				rec = approvalOf(name, fm, files)
			} else {
				rec.Unbound = true
			}
			e.Approval = &rec
		}
		out = append(out, e)
	}
	for _, st := range []struct{ dir, status string }{{proposalsDir, StatusPending}, {dismissedDir, StatusDismissed}, {layout.RevokedDir, StatusRevoked}} {
		names, err := subdirs(filepath.Join(w.skillsDir(), st.dir))
		if err != nil {
			return nil, err
		}
		for _, name := range names {
			e := Entry{Name: name, Status: st.status}
			if st.status == StatusRevoked {
				if r := w.revocation(name); r != nil {
					e.Revoked = r
				}
				if fm, _, err := ParseSkillMD(readOrNil(filepath.Join(w.revokedDir(name), skillMDFile))); err == nil {
					e.Description = fm.Description
				}
				out = append(out, e)
				continue
			}
			if p, err := readProposal(filepath.Join(w.skillsDir(), st.dir, name)); err != nil {
				e.Problem = err.Error()
			} else {
				e.Description = p.Description
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// subdirs lists the directories in dir whose names do not start with a dot,
// sorted; a missing dir has none.
func subdirs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

// readSkillMD reads and checks an approved skill's SKILL.md, refusing
// symbolic links on the way.
func (w Workspace) readSkillMD(name string) (*Frontmatter, error) {
	fm, _, err := w.readSkillMDBody(name)
	return fm, err
}

// readSkillMDBody is readSkillMD with SKILL.md's body.
func (w Workspace) readSkillMDBody(name string) (*Frontmatter, []byte, error) {
	if err := w.noSymlinkDirs(SkillsDir+"/"+name, SkillsDir+"/"+name+"/"+skillMDFile); err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(filepath.Join(w.approvedDir(name), skillMDFile))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, fmt.Errorf("skills/%s has no SKILL.md", name)
		}
		return nil, nil, err
	}
	fm, body, err := ParseSkillMD(data)
	if err != nil {
		return nil, nil, fmt.Errorf("skills/%s/SKILL.md: %w", name, err)
	}
	return fm, body, nil
}

// status says where a skill of that name is, or "" when nowhere.
func (w Workspace) status(name string) string {
	switch {
	case isFile(filepath.Join(w.approvedDir(name), skillMDFile)):
		return StatusApproved
	case isFile(filepath.Join(w.proposalDir(name), recordFile)):
		return StatusPending
	case isFile(filepath.Join(w.dismissedDir(name), recordFile)):
		return StatusDismissed
	case isFile(filepath.Join(w.revokedDir(name), revokedRecordFile)):
		return StatusRevoked
	}
	return ""
}

func isFile(p string) bool {
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular()
}
