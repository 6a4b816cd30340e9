package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
)

// ApproveOptions are a person's decision on a proposal.
type ApproveOptions struct {
	// AllowWrite grants the skill calls to tools that are not read-only. It
	// is recorded in SKILL.md; without it such a proposal is refused.
	AllowWrite bool
	// ApprovedBy names the person, for the record.
	ApprovedBy string
}

// Approved is what Approve installed.
type Approved struct {
	Name    string
	Dir     string // skills/<name>
	Tools   []ToolUse
	Dynamic []string // call sites the runtime will check at call time
	Write   bool
}

// Approve turns a pending proposal into skills/<name>/ (SKILL.md, index.ts,
// and input.schema.json when there is a schema) and lists it in
// skills/README.md. It refuses when the program changed since it was
// proposed, when a tool it calls no longer exists, and when it calls a tool
// that is not read-only without AllowWrite.
func (w Workspace) Approve(name string, opts ApproveOptions) (*Approved, error) {
	p, program, err := w.Pending(name)
	if err != nil {
		return nil, err
	}
	if got := hashOf(program); got != p.SHA256 {
		return nil, fmt.Errorf("refused: the program of %q changed since it was proposed (its sha256 is %s, the proposal recorded %s); the card shows what was proposed, not what is there now: propose it again", name, got[:12], p.SHA256[:min(12, len(p.SHA256))])
	}
	// Analyse again now: the tree may have changed since the proposal.
	a, err := w.analyze(context.Background(), w.analysisEntry(name), program)
	if err != nil {
		return nil, fmt.Errorf("refused: the program no longer bundles:\n%w", err)
	}
	if unknown := a.unknown(); len(unknown) > 0 {
		return nil, fmt.Errorf("refused: %q calls %s, which no longer exists in servers/ (run mcpcode gen, or propose a new version)", name, joinTools(unknown))
	}
	if writes := a.writes(); len(writes) > 0 && !opts.AllowWrite {
		return nil, fmt.Errorf("refused: %q calls %s, which is not read-only; skills are read-only unless a person grants write: approve with --allow-write to grant it (recorded in SKILL.md)", name, joinTools(writes))
	}
	skillMD, err := approvedSkillMD(p, a, opts.AllowWrite, opts.ApprovedBy)
	if err != nil {
		return nil, err
	}
	dir := w.approvedDir(name)
	if err := installSkill(dir, program, skillMD, p.InputSchema); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(w.proposalDir(name)); err != nil {
		return nil, fmt.Errorf("approved, but removing the proposal failed: %w", err)
	}
	if err := w.writeReadme(); err != nil {
		return nil, err
	}
	return &Approved{Name: name, Dir: dir, Tools: a.tools, Dynamic: a.dynamic, Write: opts.AllowWrite}, nil
}

// approvedSkillMD renders the SKILL.md an approval writes.
func approvedSkillMD(p *Proposal, a *analysis, write bool, approvedBy string) ([]byte, error) {
	fm := Frontmatter{Name: p.Name, Description: p.Description, Metadata: map[string]string{
		metaTools:      strings.Join(toolNames(a.tools), " "),
		metaWrite:      fmt.Sprint(write),
		metaSHA256:     p.SHA256,
		metaProposedBy: p.ProposedBy,
	}}
	if approvedBy != "" {
		fm.Metadata[metaApprovedBy] = approvedBy
	}
	return renderSkillMD(fm, p, a.tools)
}

// installSkill writes an approved skill's files, SKILL.md last: its presence
// is what makes the skill approved.
func installSkill(dir string, program, skillMD []byte, schema []byte) error {
	if err := atomicfile.Write(filepath.Join(dir, programFile), program, 0o644); err != nil {
		return err
	}
	schemaPath := filepath.Join(dir, schemaFile)
	if len(schema) > 0 {
		var pretty bytes.Buffer
		if err := jsonIndent(&pretty, schema); err != nil {
			return err
		}
		if err := atomicfile.Write(schemaPath, pretty.Bytes(), 0o644); err != nil {
			return err
		}
	} else if err := os.Remove(schemaPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, skillMDFile), skillMD, 0o644)
}

// Dismiss moves a pending proposal to skills/.dismissed/<name>, replacing an
// earlier dismissed one of that name.
func (w Workspace) Dismiss(name string) error {
	if _, _, err := w.Pending(name); err != nil {
		return err
	}
	dst := w.dismissedDir(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.Rename(w.proposalDir(name), dst); err != nil {
		return fmt.Errorf("dismissing %q: %w", name, err)
	}
	return nil
}

// writeReadme lists the approved skills in skills/README.md, one line each.
func (w Workspace) writeReadme() error {
	entries, err := w.List()
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(w.skillsDir(), "README.md"), renderReadme(entries), 0o644)
}

func renderReadme(entries []Entry) []byte {
	var b bytes.Buffer
	b.WriteString("# Skills\n\nApproved skills, reviewed by a person. Import one with `import name from \"skills/<name>\"` and call it with one input object, or run it with `mcpcode run --skill <name> --input JSON`. Each is read-only unless its SKILL.md grants write; each runs with the caller's permissions. Details are in `skills/<name>/SKILL.md`.\n\n")
	n := 0
	for _, e := range entries {
		if e.Status != StatusApproved || e.Problem != "" {
			continue
		}
		n++
		access := ""
		if e.Write {
			access = " (write granted)"
		}
		fmt.Fprintf(&b, "- `%s`%s: %s\n", e.Name, access, firstSentence(e.Description))
	}
	if n == 0 {
		b.WriteString("None yet.\n")
	}
	return b.Bytes()
}

func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i+1]
	}
	return truncateRunes(s, 160)
}

func truncateRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func toolNames(tools []ToolUse) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range tools {
		if !seen[t.String()] {
			seen[t.String()] = true
			out = append(out, t.String())
		}
	}
	return out
}

func joinTools(tools []ToolUse) string { return strings.Join(toolNames(tools), ", ") }
