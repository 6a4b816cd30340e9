package runtime

// SkillPolicy says which approved skills a program may import and what they
// may do. It is implemented by the skills package.
type SkillPolicy interface {
	// Skill returns the grant of an approved skill, or an error that says
	// clearly why the skill cannot be imported (not approved, pending,
	// dismissed, missing).
	Skill(name string) (SkillGrant, error)
}

// SkillGrant is what an approved skill may do beyond reading.
type SkillGrant struct {
	// Write allows calls of tools that are not read-only.
	Write bool `json:"write"`
}
