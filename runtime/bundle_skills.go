package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
)

// skillTable holds the skills one Bundle call reaches: each skill's grant,
// asked of the policy once, and the order in which imports first used
// them. It is used from esbuild's goroutines concurrently.
type skillTable struct {
	policy SkillPolicy

	mu     sync.Mutex
	grants map[string]grantResult
	used   map[string]bool
	order  []string
}

type grantResult struct {
	grant SkillGrant
	err   error
}

func newSkillTable(policy SkillPolicy) *skillTable {
	return &skillTable{policy: policy, grants: map[string]grantResult{}, used: map[string]bool{}}
}

// grant asks the policy for a skill's grant, once per Bundle call.
func (t *skillTable) grant(name string) (SkillGrant, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if g, ok := t.grants[name]; ok {
		return g.grant, g.err
	}
	var g grantResult
	if t.policy == nil {
		g.err = fmt.Errorf("skills are not available here (no skill policy is configured), so skills/%s cannot be imported", name)
	} else {
		g.grant, g.err = t.policy.Skill(name)
	}
	t.grants[name] = g
	return g.grant, g.err
}

// use records that the code being bundled imports skill name, so that the
// skill is bundled too.
func (t *skillTable) use(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.used[name] {
		t.used[name] = true
		t.order = append(t.order, name)
	}
}

// randomHex returns n random bytes as hex. The names it makes must not be
// guessable by the code being bundled.
func randomHex(n int) string {
	b := make([]byte, n)
	// Since Go 1.24 crypto/rand.Read never returns an error (it aborts the
	// process if the OS cannot provide randomness).
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
