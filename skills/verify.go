package skills

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Problem is one thing `skills verify` found wrong.
type Problem struct {
	Skill   string `json:"skill"`
	Message string `json:"message"`
}

func (p Problem) String() string { return fmt.Sprintf("skills/%s: %s", p.Skill, p.Message) }

// Verify checks every approved skill under skills/ the way CI should before
// merging: SKILL.md present with valid frontmatter, its name equal to the
// directory, index.ts matching the hash recorded at approval, the program
// bundling, every tool it calls existing in servers/, and tools that are not
// read-only called only where SKILL.md grants write.
func (w Workspace) Verify() ([]Problem, error) {
	names, err := subdirs(w.skillsDir())
	if err != nil {
		return nil, err
	}
	var problems []Problem
	for _, name := range names {
		for _, msg := range w.verifyOne(name) {
			problems = append(problems, Problem{Skill: name, Message: msg})
		}
	}
	return problems, nil
}

func (w Workspace) verifyOne(dir string) []string {
	var out []string
	data, err := os.ReadFile(filepath.Join(w.approvedDir(dir), skillMDFile))
	if errors.Is(err, fs.ErrNotExist) {
		return []string{"missing SKILL.md: every skill directory needs one (approve skills with mcpcode skills approve)"}
	}
	if err != nil {
		return []string{err.Error()}
	}
	fm, _, err := ParseSkillMD(data)
	if err != nil {
		return []string{err.Error()}
	}
	if fm.Name != dir {
		out = append(out, fmt.Sprintf("SKILL.md names the skill %q but its directory is %q: they must be equal", fm.Name, dir))
	}
	if err := ValidateName(dir); err != nil {
		out = append(out, "directory name: "+err.Error())
		return out
	}
	program, err := os.ReadFile(w.approvedEntry(dir))
	if err != nil {
		return append(out, fmt.Sprintf("missing %s: the skill's program", programFile))
	}
	if h := fm.SHA256(); h == "" {
		out = append(out, fmt.Sprintf("SKILL.md has no metadata %s: approve the skill with mcpcode to record it", metaSHA256))
	} else if hashOf(program) != h {
		out = append(out, fmt.Sprintf("%s changed since it was approved (sha256 %s, SKILL.md records %s): have it reviewed and approved again", programFile, shortHash(hashOf(program)), shortHash(h)))
	}
	a, err := w.analyze(context.Background(), w.approvedEntry(dir), program)
	if err != nil {
		return append(out, "the program does not bundle: "+strings.ReplaceAll(err.Error(), "\n", " | "))
	}
	for _, t := range a.unknown() {
		out = append(out, fmt.Sprintf("calls %s, which does not exist in servers/", t))
	}
	if !fm.Write() {
		for _, t := range a.writes() {
			out = append(out, fmt.Sprintf("calls %s, which is not read-only, but SKILL.md does not grant write (metadata %s: \"true\")", t, metaWrite))
		}
	}
	return out
}
