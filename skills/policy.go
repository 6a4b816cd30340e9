package skills

import (
	"fmt"
	"strings"

	"github.com/mcpcode/mcpcode/runtime"
)

// Policy returns what the runtime consults when a program imports a skill:
// only approved skills can be imported, each with the grant its SKILL.md
// records.
func (w Workspace) Policy() runtime.SkillPolicy { return policy{w} }

type policy struct{ w Workspace }

// Skill checks an approved skill against its approval (its files and
// grant give the hash SKILL.md records; no symbolic link anywhere on the
// way) and returns its grant with the files as checked: the runtime bundles
// exactly those.
func (p policy) Skill(name string) (runtime.SkillGrant, error) {
	if err := ValidateName(name); err != nil {
		return runtime.SkillGrant{}, err
	}
	switch p.w.status(name) {
	case StatusApproved:
		fm, err := p.w.readSkillMD(name)
		if err != nil {
			return runtime.SkillGrant{}, fmt.Errorf("skill %q cannot be used: %w", name, err)
		}
		files, err := p.w.checkApproved(name, fm)
		if err != nil {
			return runtime.SkillGrant{}, fmt.Errorf("skill %q cannot be used: %w", name, err)
		}
		return runtime.SkillGrant{Write: fm.Write(), Tools: fm.Tools(), InputSchema: files[schemaFile], Files: files}, nil
	case StatusPending:
		return runtime.SkillGrant{}, fmt.Errorf("skill %q is a pending proposal and cannot run until a person approves it (mcpcode skills show %s; mcpcode skills approve %s)", name, name, name)
	case StatusDismissed:
		return runtime.SkillGrant{}, fmt.Errorf("skill %q was dismissed by a reviewer and cannot run", name)
	case StatusRevoked:
		return runtime.SkillGrant{}, fmt.Errorf("%s and cannot run: a new version must be proposed and approved", revokedMessage(name, p.w.revocation(name)))
	}
	entries, _ := p.w.List()
	var approved []string
	for _, e := range entries {
		if e.Status == StatusApproved {
			approved = append(approved, e.Name)
		}
	}
	if len(approved) == 0 {
		return runtime.SkillGrant{}, fmt.Errorf("no skill %q: there are no approved skills yet", name)
	}
	return runtime.SkillGrant{}, fmt.Errorf("no skill %q; approved skills: %s", name, strings.Join(approved, ", "))
}

// RunSource is the small program that runs one approved skill with an
// input: the skill's code then runs in its own scope, with its own grant.
func RunSource(name string) []byte {
	return []byte(fmt.Sprintf("import skill from %q;\nexport default (input: unknown) => skill(input);\n", "skills/"+name))
}
