package skills

import (
	"strings"
	"time"
)

// Approval is who approved a skill, when, and at which commit. SKILL.md
// records it (mcpcode-approved-by, -at, -commit) and the approval hash
// covers it, so that it cannot be edited without the skill failing to
// verify. It is written once, by the approval: nothing rewrites it later.
type Approval struct {
	// By is the person: "Name <email>" from git's user.name and
	// user.email, else the OS user; "pull request" for a skill laid out by
	// `skills propose --git`, whose approval is the pull request's review.
	By string `json:"by,omitempty"`
	// At is the time of the approval, RFC 3339 in UTC.
	At string `json:"at,omitempty"`
	// Commit is the commit checked out when the person approved, when the
	// workspace is in a git repository: what the review stood on.
	Commit string `json:"commit,omitempty"`
	// Unbound is set when SKILL.md's hash does not cover the record (it
	// was approved by a version of mcpcode that did not record it): what
	// it says may have been edited since. Approving the skill again binds
	// it.
	Unbound bool `json:"unbound,omitempty"`
}

// approvalTime formats an approval's time for SKILL.md.
func approvalTime(t time.Time) string { return t.UTC().Truncate(time.Second).Format(time.RFC3339) }

// String says who approved, when and where, in words: "Ana <ana@example.com>
// on 2026-11-29 10:00 UTC at commit 1a2b3c4d5e6f".
func (a Approval) String() string {
	var parts []string
	by := a.By
	if by == "" {
		by = "an unnamed person"
	}
	parts = append(parts, by)
	if at := a.when(); at != "" {
		parts = append(parts, "on "+at)
	}
	if a.Commit != "" {
		parts = append(parts, "at commit "+shortHash(a.Commit))
	}
	s := strings.Join(parts, " ")
	if a.Unbound {
		s += " (not covered by its hash)"
	}
	return s
}

// Short is who and the day, for a listing: "Ana <ana@example.com>
// 2026-11-29", with "(unbound)" when the hash does not cover the record.
func (a Approval) Short() string {
	s := a.By
	if s == "" {
		s = "unnamed"
	}
	if t, err := time.Parse(time.RFC3339, a.At); err == nil {
		s += " " + t.UTC().Format("2006-01-02")
	}
	if a.Unbound {
		s += " (unbound)"
	}
	return s
}

// when is the approval's time for people ("2026-11-29 10:00 UTC").
func (a Approval) when() string {
	if t, err := time.Parse(time.RFC3339, a.At); err == nil {
		return t.UTC().Format("2006-01-02 15:04 MST")
	}
	return a.At
}

// approvalOf returns an approved skill's record, marked Unbound when the
// hash that matches does not cover it (or none matches).
func approvalOf(name string, fm *Frontmatter, files map[string][]byte) Approval {
	rec := fm.Approval()
	ok, v1 := matchesApproval(name, fm, files)
	rec.Unbound = !ok || v1
	return rec
}
