package skills

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/layout"
)

// StatusRevoked is a skill a person withdrew after approving it.
const StatusRevoked = "revoked"

// revokedRecordFile is the record of a revocation, next to the skill's
// files in skills/.revoked/<name>/.
const revokedRecordFile = "revoked.json"

// RevokeOptions are a person's withdrawal of an approved skill.
type RevokeOptions struct {
	// By names the person, At is when (time.Now when zero), Reason says
	// why: all kept in the record.
	By     string
	At     time.Time
	Reason string
}

// Revocation is the record Revoke keeps.
type Revocation struct {
	By     string `json:"by,omitempty"`
	At     string `json:"at"`
	Reason string `json:"reason,omitempty"`
}

// Revoked is what Revoke did.
type Revoked struct {
	Name string
	// Dir is where its files are kept: skills/.revoked/<name>.
	Dir string
	// Dependents are the approved skills whose files name it
	// ("skills/<name>"): they fail to run until they are changed and
	// approved again.
	Dependents []string
}

// Revoke withdraws an approved skill: its folder moves to
// skills/.revoked/<name>/ (replacing an earlier revoked skill of that
// name) with a record of who revoked it, when and why, and
// skills/README.md no longer lists it. From then on nothing runs it: a
// program that imports it, `run --skill` and a skill that calls it fail
// with an error that says it was revoked, and `serve` drops its tool (the
// change notifies connected hosts). Its files stay for the record;
// approving a new proposal of that name is a new review.
func (w Workspace) Revoke(name string, o RevokeOptions) (*Revoked, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if err := w.noSymlinkDirs(SkillsDir+"/"+name, SkillsDir+"/"+layout.RevokedDir, SkillsDir+"/"+layout.RevokedDir+"/"+name); err != nil {
		return nil, fmt.Errorf("refused: %w", err)
	}
	if w.status(name) != StatusApproved {
		return nil, fmt.Errorf("there is no approved skill %q to revoke (see mcpcode skills list)", name)
	}
	at := o.At
	if at.IsZero() {
		at = time.Now()
	}
	dst := w.revokedDir(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(dst); err != nil {
		return nil, err
	}
	if err := os.Rename(w.approvedDir(name), dst); err != nil {
		return nil, fmt.Errorf("revoking %q: %w", name, err)
	}
	w.forgetShown(name) // a card read before the revocation approves nothing after it
	rec, _ := json.MarshalIndent(Revocation{By: strings.TrimSpace(o.By), At: approvalTime(at), Reason: strings.TrimSpace(o.Reason)}, "", "  ")
	if err := atomicfile.Write(filepath.Join(dst, revokedRecordFile), append(rec, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("revoked, but writing its record failed: %w", err)
	}
	if err := w.writeReadme(); err != nil {
		return nil, err
	}
	res := &Revoked{Name: name, Dir: dst}
	names, _ := subdirs(w.skillsDir())
	for _, other := range names {
		files, err := w.readFolder(SkillsDir + "/" + other)
		if err != nil {
			continue
		}
		for _, p := range sortedKeys(files) {
			if strings.Contains(string(files[p]), "skills/"+name+`"`) || strings.Contains(string(files[p]), "skills/"+name+"/") {
				res.Dependents = append(res.Dependents, other)
				break
			}
		}
	}
	slices.Sort(res.Dependents)
	return res, nil
}

func (w Workspace) revokedDir(name string) string {
	return filepath.Join(w.skillsDir(), layout.RevokedDir, name)
}

// revokedMessage says that a skill was revoked, by whom, when and why
// (as far as its record r, which may be nil, says).
func revokedMessage(name string, r *Revocation) string {
	msg := fmt.Sprintf("skill %q was revoked", name)
	if r != nil {
		if r.By != "" {
			msg += " by " + r.By
		}
		if at := (Approval{At: r.At}).when(); at != "" {
			msg += " on " + at
		}
		if r.Reason != "" {
			msg += " (" + r.Reason + ")"
		}
	}
	return msg
}

// revokedApproval returns the record of the revocation of name when the
// approval fm records is the one that was revoked (its files copied back
// from skills/.revoked/NAME/, SKILL.md and all); nil otherwise. A
// revocation withdraws an approval: only a new one runs again.
func (w Workspace) revokedApproval(name string, fm *Frontmatter) *Revocation {
	p := filepath.Join(w.revokedDir(name), skillMDFile)
	if !isFile(p) {
		return nil
	}
	old, _, err := ParseSkillMD(readOrNil(p))
	if err != nil || old.SHA256() == "" || !strings.EqualFold(strings.TrimSpace(old.SHA256()), strings.TrimSpace(fm.SHA256())) {
		return nil
	}
	if r := w.revocation(name); r != nil {
		return r
	}
	return &Revocation{}
}

// revocation reads the record of a revoked skill, or nil.
func (w Workspace) revocation(name string) *Revocation {
	data, err := os.ReadFile(filepath.Join(w.revokedDir(name), revokedRecordFile))
	if err != nil {
		return nil
	}
	var r Revocation
	if json.Unmarshal(data, &r) != nil {
		return nil
	}
	return &r
}
