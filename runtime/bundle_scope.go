package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
)

// scope is the set of modules that share one call capability: the
// program's own code, or the code of an approved skill (with the servers/
// files it imports, bundled as separate copies). A skill imported by another
// skill is a scope of its own whose grant is the intersection of both.
type scope struct {
	index int
	// skill is the innermost skill, "" for the program.
	skill string
	// skills are all skills whose grants apply, sorted.
	skills []string
	// write is the intersection of the grants' Write.
	write bool
	// namespace is the esbuild namespace of the scope's modules.
	namespace string
	// callName is the distinctive, random name of the scope's call function
	// in the bundle, which static analysis looks for.
	callName string
}

// scopeKey identifies a scope by its innermost skill and its grant set.
func scopeKey(skill string, skills []string) string {
	return skill + "|" + strings.Join(skills, ",")
}

// scopeTable holds the scopes of one build. Callers hold the bundler's lock.
type scopeTable struct {
	byKey       map[string]*scope
	byNamespace map[string]*scope
	list        []*scope
}

func newScopeTable() *scopeTable {
	t := &scopeTable{byKey: map[string]*scope{}, byNamespace: map[string]*scope{}}
	t.add("", nil, true)
	return t
}

// program is the program's own scope.
func (t *scopeTable) program() *scope { return t.list[0] }

// add returns the scope for skill with the given grant set, creating it.
func (t *scopeTable) add(skill string, skills []string, write bool) *scope {
	key := scopeKey(skill, skills)
	if s, ok := t.byKey[key]; ok {
		return s
	}
	s := &scope{
		index:     len(t.list),
		skill:     skill,
		skills:    skills,
		write:     write,
		namespace: fmt.Sprintf("mcpcode-s%d", len(t.list)),
		callName:  "__mcpcode_callMCPTool_" + randomHex(8),
	}
	t.byKey[key] = s
	t.byNamespace[s.namespace] = s
	t.list = append(t.list, s)
	return s
}

// enter returns the scope of skill name's code when it is imported from
// scope from: the skill's own scope from the program, the same scope from
// the skill itself, and a nested scope (grants intersected) from another
// skill. grant looks up one skill's grant.
func (t *scopeTable) enter(from *scope, name string, grant func(string) (SkillGrant, error)) (*scope, error) {
	if from.skill == name {
		return from, nil
	}
	skills := append(slices.Clone(from.skills), name)
	slices.Sort(skills)
	skills = slices.Compact(skills)
	write := true
	for _, s := range skills {
		g, err := grant(s)
		if err != nil {
			return nil, err
		}
		write = write && g.Write
	}
	return t.add(name, skills, write), nil
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
