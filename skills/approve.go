package skills

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
)

// ApproveOptions are a person's decision on a proposal.
type ApproveOptions struct {
	// AllowWrite grants the skill calls to tools that are not read-only. It
	// is recorded in SKILL.md; without it such a proposal is refused.
	AllowWrite bool
	// ApprovedBy names the person, for the record (Approval.By).
	ApprovedBy string
	// ApprovedAt is the time of the approval (time.Now when zero), and
	// Commit the commit checked out, when there is one: both are recorded
	// in SKILL.md with ApprovedBy, covered by its hash.
	ApprovedAt time.Time
	Commit     string
	// SHA256 is the hash the review card printed (Card.SHA256): approval
	// is refused unless what would be installed still has it. Empty
	// approves only what the card showed last (Show records it), when
	// nothing changed since.
	SHA256 string
}

// Approved is what Approve installed.
type Approved struct {
	Name    string
	Dir     string // skills/<name>
	Tools   []ToolUse
	Dynamic []string // call sites the runtime will check at call time
	Write   bool
	// Reapproved is set when an approved skill was approved again in place
	// (its files or grant had changed, or its grant changes now).
	Reapproved bool
}

// Approve turns a pending proposal into skills/<name>/ (SKILL.md, index.ts,
// input.schema.json when there is a schema, the recorded examples) and
// lists it in skills/README.md; without a pending proposal it approves an
// approved skill again, as its folder is now (after an edit in a pull
// request, say, or to change its grant). It refuses unless what would be
// approved has the hash the reviewer read (opts.SHA256, or the card shown
// last), when the program changed since it was proposed, when a tool it
// calls no longer exists, when it calls a tool that is not read-only
// without AllowWrite, and when a symbolic link is in the way.
func (w Workspace) Approve(name string, opts ApproveOptions) (*Approved, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if err := w.noSymlinkDirs(SkillsDir+"/"+proposalsDir, SkillsDir+"/"+proposalsDir+"/"+name, SkillsDir+"/"+name); err != nil {
		return nil, fmt.Errorf("refused: %w", err)
	}
	if !isFile(filepath.Join(w.proposalDir(name), recordFile)) && w.status(name) == StatusApproved {
		return w.reapprove(name, opts)
	}
	p, program, err := w.Pending(name)
	if err != nil {
		return nil, err
	}
	if got := hashOf(program); got != p.SHA256 {
		return nil, fmt.Errorf("refused: the program of %q changed since it was proposed (its sha256 is %s, the proposal recorded %s); the card shows what was proposed, not what is there now: propose it again", name, got[:12], p.SHA256[:min(12, len(p.SHA256))])
	}
	files, err := w.proposalFiles(w.proposalDir(name), p)
	if err != nil {
		return nil, fmt.Errorf("refused: %w", err)
	}
	if err := w.checkReviewed(name, proposalHash(reviewHash(name, p.Description, files), p), opts.SHA256); err != nil {
		return nil, err
	}
	// Analyse again now: the tree may have changed since the proposal.
	a, err := w.analyze(context.Background(), w.proposalEntry(name), program, name)
	if err != nil {
		return nil, fmt.Errorf("refused: the program no longer bundles:\n%w", err)
	}
	if err := a.approvable(name, opts.AllowWrite); err != nil {
		return nil, err
	}
	info := skillInfo{name: name, description: p.Description, rationale: p.Rationale, proposedBy: p.ProposedBy, schema: p.InputSchema, typeCheck: p.TypeCheck}
	skillMD, err := approvedSkillMD(info, a, files, opts.AllowWrite, opts.record())
	if err != nil {
		return nil, err
	}
	dir := w.approvedDir(name)
	if err := installSkill(dir, files, skillMD); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(w.proposalDir(name)); err != nil {
		return nil, fmt.Errorf("approved, but removing the proposal failed: %w", err)
	}
	w.forgetShown(name)
	if err := w.writeReadme(); err != nil {
		return nil, err
	}
	return &Approved{Name: name, Dir: dir, Tools: a.tools, Dynamic: a.dynamic, Write: opts.AllowWrite}, nil
}

// reapprove approves an approved skill again as its folder is now.
func (w Workspace) reapprove(name string, opts ApproveOptions) (*Approved, error) {
	data, err := os.ReadFile(filepath.Join(w.approvedDir(name), skillMDFile))
	if err != nil {
		return nil, err
	}
	fm, body, err := ParseSkillMD(data)
	if err != nil {
		return nil, fmt.Errorf("refused: skills/%s/SKILL.md: %w", name, err)
	}
	if fm.Name != name {
		return nil, fmt.Errorf("refused: skills/%s/SKILL.md names the skill %q: they must be equal", name, fm.Name)
	}
	files, err := w.readFolder(SkillsDir + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("refused: %w", err)
	}
	review := proposalHash(reviewHash(name, fm.Description, files), &Proposal{Rationale: rationaleOf(body), ProposedBy: fm.Metadata[metaProposedBy]})
	if err := w.checkReviewed(name, review, opts.SHA256); err != nil {
		return nil, err
	}
	program, ok := files[programFile]
	if !ok {
		return nil, fmt.Errorf("refused: skills/%s has no %s", name, programFile)
	}
	a, err := w.analyze(context.Background(), w.approvedEntry(name), program, name)
	if err != nil {
		return nil, fmt.Errorf("refused: the program does not bundle:\n%w", err)
	}
	if err := a.approvable(name, opts.AllowWrite); err != nil {
		return nil, err
	}
	info := skillInfo{name: name, description: fm.Description, rationale: rationaleOf(body), proposedBy: fm.Metadata[metaProposedBy], schema: files[schemaFile],
		typeCheck: fm.TypeCheck(program)}
	skillMD, err := approvedSkillMD(info, a, files, opts.AllowWrite, opts.record())
	if err != nil {
		return nil, err
	}
	if err := atomicfile.Write(filepath.Join(w.approvedDir(name), skillMDFile), skillMD, 0o644); err != nil {
		return nil, err
	}
	w.forgetShown(name)
	if err := w.writeReadme(); err != nil {
		return nil, err
	}
	return &Approved{Name: name, Dir: w.approvedDir(name), Tools: a.tools, Dynamic: a.dynamic, Write: opts.AllowWrite, Reapproved: true}, nil
}

// record is the approval's record that SKILL.md keeps.
func (o ApproveOptions) record() Approval {
	at := o.ApprovedAt
	if at.IsZero() {
		at = time.Now()
	}
	return Approval{By: strings.TrimSpace(o.ApprovedBy), At: approvalTime(at), Commit: strings.TrimSpace(o.Commit)}
}

// approvable refuses an analysis that calls tools that do not exist, or
// that are not read-only when write is not granted.
func (a *analysis) approvable(name string, allowWrite bool) error {
	if unknown := a.unknown(); len(unknown) > 0 {
		return fmt.Errorf("refused: %q calls %s, which no longer exists in servers/ (run mcpcode gen, or propose a new version)", name, joinTools(unknown))
	}
	if writes := a.writes(); len(writes) > 0 && !allowWrite {
		return fmt.Errorf("refused: %q calls %s, which is not read-only; skills are read-only unless a person grants write: approve with --allow-write to grant it (recorded in SKILL.md)", name, joinTools(writes))
	}
	return nil
}

// checkReviewed refuses to approve anything but what the reviewer read:
// the files whose review hash the card printed.
func (w Workspace) checkReviewed(name, review, given string) error {
	if given != "" {
		if !strings.EqualFold(strings.TrimSpace(given), review) {
			return fmt.Errorf("refused: --sha256 %s is not the hash of %q as it is now (%s): it changed since the card you read was printed, or the hash is another's; read the card again (mcpcode skills show %s) and approve with the command it prints", shortHash(given), name, review, name)
		}
		return nil
	}
	shown := w.shownHash(name)
	switch {
	case shown == "":
		return fmt.Errorf("refused: approve what you read: show the card first (mcpcode skills show %s), then approve with the command it prints (mcpcode skills approve %s --sha256 HASH)", name, name)
	case shown != review:
		return fmt.Errorf("refused: %q changed since its card was last shown (it then had sha256 %s, now %s): read it again (mcpcode skills show %s) and approve with the command it prints", name, shortHash(shown), shortHash(review), name)
	}
	return nil
}

// skillInfo is what SKILL.md says about a skill besides its grant.
type skillInfo struct {
	name, description, rationale, proposedBy string
	schema                                   []byte
	// typeCheck, when set, is the type check of the program as proposed
	// (the proposal's record, or the one SKILL.md kept for this program).
	typeCheck *TypeCheck
}

// approvedSkillMD renders the SKILL.md an approval writes, with the hashes
// that bind it to the files.
func approvedSkillMD(info skillInfo, a *analysis, files map[string][]byte, write bool, rec Approval) ([]byte, error) {
	tools := toolNames(a.tools)
	review := reviewHash(info.name, info.description, files)
	rec.Unbound = false
	fm := Frontmatter{Name: info.name, Description: strings.TrimSpace(info.description), Metadata: map[string]string{
		metaTools:      strings.Join(tools, " "),
		metaWrite:      fmt.Sprint(write),
		metaSHA256:     "",
		metaFiles:      fileHashes(files),
		metaProposedBy: info.proposedBy,
	}}
	for k, v := range map[string]string{metaApprovedBy: rec.By, metaApprovedAt: rec.At, metaApprovedCommit: rec.Commit} {
		if v != "" {
			fm.Metadata[k] = v
		}
	}
	if tc := info.typeCheck; tc != nil {
		fm.Metadata[metaTypeCheck] = recordText(tc.Compiler)
		if tc.Tree != "" {
			fm.Metadata[metaTypeCheckTree] = recordText(tc.Tree)
		}
		fm.Metadata[metaTypeCheckProgram] = hashOf(files[programFile])
	}
	// The approval hash covers the rest of SKILL.md: render it without
	// the hash, read it back as verify will, then put the hash in.
	draft, err := renderSkillMD(fm, info.rationale, info.schema, a.tools)
	if err != nil {
		return nil, err
	}
	parsed, _, err := ParseSkillMD(draft)
	if err != nil {
		return nil, fmt.Errorf("the SKILL.md written for %q does not read back: %w", info.name, err)
	}
	fm.Metadata[metaSHA256] = approvalHash(review, write, tools, rec, parsed.digest)
	out, err := renderSkillMD(fm, info.rationale, info.schema, a.tools)
	if err != nil {
		return nil, err
	}
	if final, _, err := ParseSkillMD(out); err != nil || final.digest != parsed.digest {
		return nil, fmt.Errorf("the SKILL.md written for %q does not keep its approval hash apart (%v): this is a bug in mcpcode", info.name, err)
	}
	return out, nil
}

// installSkill writes an approved skill's files into a folder of their own
// (anything else in it goes), SKILL.md last: its presence is what makes
// the skill approved.
func installSkill(dir string, files map[string][]byte, skillMD []byte) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	for _, p := range sortedKeys(files) {
		if err := atomicfile.Write(filepath.Join(dir, filepath.FromSlash(p)), files[p], 0o644); err != nil {
			return err
		}
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
