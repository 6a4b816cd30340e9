// Package skills turns useful agent programs into reviewed, reusable skills.
//
// An agent proposes; a person decides. A proposal (skills/.proposals/<name>/)
// is inert: proposing bundles and analyses the program but never runs it,
// and grants nothing. A person reads the review card and approves it into
// skills/<name>/ (SKILL.md plus index.ts), or dismisses it, or reviews the
// same layout as a pull request. An approved skill is read-only and runs with
// the caller's rights, in a realm of its own; a write grant is a deliberate
// human act recorded in its SKILL.md, and the runtime enforces it, and the
// tools recorded at approval, on every call. Approval is bound to what the
// reviewer read (a hash of the files the card showed), and SKILL.md records
// a hash of the files and the grant that running, importing and verifying
// a skill check (integrity.go). Recorded runs (record.go) travel with a
// proposal as examples, and verify replays them offline.
package skills

import (
	"fmt"
	"strings"
)

// MaxNameLength and MaxDescriptionLength follow the Agent Skills spec.
const (
	MaxNameLength        = 64
	MaxDescriptionLength = 1024
)

// ValidateName checks a skill name against the Agent Skills rules: 1–64
// lowercase letters, digits and hyphens, no leading, trailing or double
// hyphen. The name becomes a directory, so nothing else may pass.
func ValidateName(name string) error {
	const rule = `use 1-64 lowercase letters, digits and single hyphens, like "pending-orders"`
	switch {
	case name == "":
		return fmt.Errorf("a skill needs a name: %s", rule)
	case len(name) > MaxNameLength:
		return fmt.Errorf("skill name %q is %d characters long, more than %d: %s", short(name), len(name), MaxNameLength, rule)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-"):
		return fmt.Errorf("skill name %q starts or ends with a hyphen: %s", name, rule)
	case strings.Contains(name, "--"):
		return fmt.Errorf("skill name %q has a double hyphen: %s", name, rule)
	}
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
		case r >= 'A' && r <= 'Z':
			return fmt.Errorf("skill name %q has uppercase letters: %s (%q)", name, rule, strings.ToLower(name))
		default:
			return fmt.Errorf("skill name %q has the character %q: %s", name, r, rule)
		}
	}
	return nil
}

// ValidateDescription checks a skill description: present, at most 1024
// characters.
func ValidateDescription(d string) error {
	if strings.TrimSpace(d) == "" {
		return fmt.Errorf("a skill needs a description of what it does and when to use it (at most %d characters)", MaxDescriptionLength)
	}
	if n := len([]rune(d)); n > MaxDescriptionLength {
		return fmt.Errorf("the description is %d characters long, more than %d: shorten it", n, MaxDescriptionLength)
	}
	return nil
}

func short(s string) string {
	if len(s) > 20 {
		return s[:20] + "…"
	}
	return s
}
