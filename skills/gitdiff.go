package skills

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpcode/mcpcode/internal/layout"
)

// GitDiff is what changed in the approved skills between a git base and
// the working tree (what `skills verify` checks, and what a pull request
// merges once committed): the re-approval cards of a pull request.
type GitDiff struct {
	// Base is the revision given; BaseCommit the commit compared with:
	// the merge base of Base and HEAD, so that changes made on the base
	// branch since are not shown as the pull request's.
	Base       string        `json:"base"`
	BaseCommit string        `json:"baseCommit"`
	Skills     []SkillChange `json:"skills"`
}

// SkillChange is one skill that differs from the base.
type SkillChange struct {
	Diff *Diff `json:"diff"`
	// Card is the review card of the skill as it is now, leading with
	// Diff; nil for a skill that is gone, or whose card cannot be built
	// (Problem says why).
	Card    *Card  `json:"card,omitempty"`
	Problem string `json:"problem,omitempty"`
}

// Limits on what DiffGit reads from the base, whose files are untrusted
// like any others.
const maxBaseSkills = 1000

// DiffGit compares the approved skills of the working tree with those of
// a git revision (a branch, a tag, a commit): for each skill added,
// changed or removed, what changed and its card. git runs as a separate
// process with an explicit environment, and only plumbing that reads
// objects (rev-parse, merge-base, ls-tree, cat-file): no hook, filter,
// diff driver or pager of the repository runs.
func (w Workspace) DiffGit(ctx context.Context, base string) (*GitDiff, error) {
	if base == "" || strings.HasPrefix(base, "-") || strings.ContainsAny(base, "\x00\n") {
		return nil, fmt.Errorf("--base %q is not a git revision: give a branch, tag or commit, like origin/main", base)
	}
	if err := w.noSymlinkDirs(); err != nil {
		return nil, fmt.Errorf("refused: %w", err) // skills/ itself: nothing in it is listed
	}
	g, err := openRepo(ctx, w.Root)
	if err != nil {
		return nil, err
	}
	prefix, err := g.prefix(w.Root)
	if err != nil {
		return nil, err
	}
	commit, err := g.run(nil, "rev-parse", "--verify", "--quiet", "--end-of-options", base+"^{commit}")
	if err != nil || commit == "" {
		return nil, fmt.Errorf("%q is not a commit in this repository (fetch it first: git fetch origin; in CI, check out with the full history)", base)
	}
	if head, err := g.run(nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}"); err == nil && head != "" {
		mb, err := g.run(nil, "merge-base", commit, head)
		if err != nil || mb == "" {
			return nil, fmt.Errorf("%q and HEAD have no common ancestor in this clone (fetch more history: git fetch --unshallow, or check out with fetch-depth 0)", base)
		}
		commit = mb
	}
	baseSkills, err := g.readSkillsAt(commit, path.Join(prefix, SkillsDir))
	if err != nil {
		return nil, err
	}
	m, err := w.manifest()
	if err != nil {
		return nil, err
	}
	out := &GitDiff{Base: base, BaseCommit: commit, Skills: []SkillChange{}}
	names, err := subdirs(w.skillsDir())
	if err != nil {
		return nil, err
	}
	all := map[string]bool{}
	for _, n := range names {
		all[n] = true
	}
	for n := range baseSkills {
		if !strings.HasPrefix(n, revokedKey) {
			all[n] = true
		}
	}
	baseName := base + " at " + shortHash(commit)
	for _, name := range sortedNames(all) {
		b := baseSkills[name]
		var baseVersion *skillVersion
		if b != nil {
			baseVersion = b.version(name, m.Tool)
		}
		ch := SkillChange{}
		if !slices.Contains(names, name) {
			ch.Diff = diffVersions(name, baseName, baseVersion, nil)
			out.Skills = append(out.Skills, ch)
			continue
		}
		headFiles, headMD, headErr := w.skillFolder(name)
		if headErr == nil && b != nil && sameFiles(b.files, headFiles) && bytes.Equal(b.skillMD, headMD) && b.problem == "" {
			continue
		}
		if headErr != nil {
			ch.Problem = headErr.Error()
			ch.Diff = &Diff{Name: name, Status: DiffChanged, Base: baseName}
			out.Skills = append(out.Skills, ch)
			continue
		}
		card, err := w.card(name, false)
		if err != nil {
			ch.Problem = err.Error()
		}
		head := &skillVersion{files: headFiles, skillMD: headMD}
		if card != nil {
			head.description, head.tools = card.Description, card.Tools
			head.write = card.Write || card.needsWrite()
		} else if fm, _, err := ParseSkillMD(headMD); err == nil {
			head.description, head.write = fm.Description, fm.Write()
		}
		ch.Diff = diffVersions(name, baseName, baseVersion, head)
		if baseVersion == nil {
			ch.Diff.Revoked, ch.Diff.RevokedApproval = revokedAt(baseSkills, name, headMD)
		}
		if card != nil {
			card.SinceApproved = ch.Diff
			ch.Card = card
		}
		out.Skills = append(out.Skills, ch)
	}
	return out, nil
}

// skillFolder reads an approved skill's folder in the working tree: its
// files and its SKILL.md.
func (w Workspace) skillFolder(name string) (map[string][]byte, []byte, error) {
	if err := w.noSymlinkDirs(SkillsDir+"/"+name, SkillsDir+"/"+name+"/"+skillMDFile); err != nil {
		return nil, nil, err
	}
	files, err := w.readFolder(SkillsDir + "/" + name)
	if err != nil {
		return nil, nil, err
	}
	md, err := os.ReadFile(filepath.Join(w.approvedDir(name), skillMDFile))
	if err != nil {
		return nil, nil, fmt.Errorf("skills/%s has no readable SKILL.md: %w", name, err)
	}
	return files, md, nil
}

func sameFiles(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || !bytes.Equal(v, w) {
			return false
		}
	}
	return true
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// baseSkill is one skill folder of a git revision.
type baseSkill struct {
	files   map[string][]byte
	skillMD []byte
	problem string // what makes it unreadable as a skill
	size    int
}

// version is the base skill as a diff compares it.
func (b *baseSkill) version(name string, lookup toolLookup) *skillVersion {
	v := &skillVersion{files: b.files, skillMD: b.skillMD, problem: b.problem}
	if b.skillMD == nil {
		if v.problem == "" {
			v.problem = "it has no SKILL.md"
		}
		return v
	}
	fm, _, err := ParseSkillMD(b.skillMD)
	if err != nil {
		v.problem = "its SKILL.md is not valid: " + err.Error()
		return v
	}
	rv := recordedVersion(name, fm, b.files, lookup)
	rv.skillMD = b.skillMD
	if b.problem != "" {
		rv.problem = b.problem
	}
	return rv
}

// readSkillsAt reads the skill folders under dir (repository-relative) at
// commit, bounded as a skill's folder is in the working tree.
func (g *repo) readSkillsAt(commit, dir string) (map[string]*baseSkill, error) {
	listing, err := g.run(nil, "ls-tree", "-r", "-l", "-z", "--full-tree", commit, "--", dir+"/")
	if err != nil {
		return nil, err
	}
	skills := map[string]*baseSkill{}
	type blob struct {
		skill, rel, sha string
		revoked         bool // skills/.revoked/<skill>/rel
	}
	var blobs []blob
	revoked := 0
	for _, entry := range strings.Split(listing, "\x00") {
		meta, p, ok := strings.Cut(entry, "\t")
		if !ok {
			continue
		}
		fields := strings.Fields(meta) // mode type sha size
		rel, ok := strings.CutPrefix(p, dir+"/")
		if len(fields) != 4 || !ok {
			continue
		}
		name, file, ok := strings.Cut(rel, "/")
		if name == layout.RevokedDir && fields[1] == "blob" {
			// What a pull request that brings a revoked skill back must say:
			// its revocation and the approval that was revoked.
			name, file, _ = strings.Cut(file, "/")
			size, _ := strconv.Atoi(fields[3])
			if (file == revokedRecordFile || file == skillMDFile) && size <= maxSkillBytes>>4 && revoked < 2*maxBaseSkills {
				revoked++
				blobs = append(blobs, blob{skill: name, rel: file, sha: fields[2], revoked: true})
			}
			continue
		}
		if !ok || strings.HasPrefix(name, ".") {
			continue // skills/README.md, pending proposals, dismissed ones
		}
		s := skills[name]
		if s == nil {
			if len(skills) >= maxBaseSkills {
				return nil, fmt.Errorf("the base holds more than %d skills: refused", maxBaseSkills)
			}
			s = &baseSkill{files: map[string][]byte{}}
			skills[name] = s
		}
		mode, kind, sha := fields[0], fields[1], fields[2]
		size, _ := strconv.Atoi(fields[3])
		switch {
		case mode == "120000":
			s.problem = symlinkError(dir + "/" + rel).Error()
			continue
		case kind != "blob":
			s.problem = dir + "/" + rel + " is not a file"
			continue
		case len(s.files) >= maxSkillFiles:
			s.problem = fmt.Sprintf("it holds more than %d files", maxSkillFiles)
			continue
		case s.size+size > maxSkillBytes:
			s.problem = fmt.Sprintf("it holds more than %d MiB of files", maxSkillBytes>>20)
			continue
		}
		s.size += size
		blobs = append(blobs, blob{skill: name, rel: file, sha: sha})
	}
	if len(blobs) == 0 {
		return skills, nil
	}
	var shas []string
	for _, b := range blobs {
		shas = append(shas, b.sha)
	}
	contents, err := g.catFiles(shas)
	if err != nil {
		return nil, err
	}
	for i, b := range blobs {
		switch {
		case b.revoked:
			s := skills[revokedKey+b.skill]
			if s == nil {
				s = &baseSkill{files: map[string][]byte{}}
				skills[revokedKey+b.skill] = s
			}
			if b.rel == skillMDFile {
				s.skillMD = contents[i]
			} else {
				s.files[b.rel] = contents[i]
			}
		case b.rel == skillMDFile:
			skills[b.skill].skillMD = contents[i]
		default:
			skills[b.skill].files[b.rel] = contents[i]
		}
	}
	return skills, nil
}

// revokedKey prefixes, in the map readSkillsAt returns, the skills
// revoked at the base (skills/.revoked/<name>/: its record and SKILL.md).
const revokedKey = layout.RevokedDir + "/"

// revokedAt says whether name was revoked at the base, with the record of
// its revocation, and whether head carries the very approval that was
// revoked (its folder moved back).
func revokedAt(base map[string]*baseSkill, name string, headMD []byte) (*Revocation, bool) {
	b := base[revokedKey+name]
	if b == nil {
		return nil, false
	}
	r := &Revocation{}
	if data, ok := b.files[revokedRecordFile]; ok && json.Unmarshal(data, r) != nil {
		r = &Revocation{}
	}
	same := false
	if old, _, err := ParseSkillMD(b.skillMD); err == nil && old.SHA256() != "" {
		if now, _, err := ParseSkillMD(headMD); err == nil {
			same = strings.EqualFold(strings.TrimSpace(old.SHA256()), strings.TrimSpace(now.SHA256()))
		}
	}
	return r, same
}

// catFiles reads blobs by hash with one `git cat-file --batch`.
func (g *repo) catFiles(shas []string) ([][]byte, error) {
	cmd := exec.CommandContext(g.ctx, "git", "-c", "core.fsmonitor=false", "cat-file", "--batch")
	cmd.Dir = g.root
	cmd.Env = gitEnv()
	cmd.Stdin = strings.NewReader(strings.Join(shas, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	r := bufio.NewReader(stdout)
	out := make([][]byte, 0, len(shas))
	for _, sha := range shas {
		header, err := r.ReadString('\n')
		if err != nil {
			break
		}
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[0] != sha || fields[1] != "blob" {
			err = fmt.Errorf("git cat-file: unexpected %q for %s", strings.TrimSpace(header), sha)
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, err
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || size > maxSkillBytes {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil, fmt.Errorf("git cat-file: blob %s is too large", sha)
		}
		data := make([]byte, size+1)
		if _, err := io.ReadFull(r, data); err != nil {
			break
		}
		out = append(out, data[:size])
	}
	if err := cmd.Wait(); err != nil {
		return nil, fmt.Errorf("git cat-file: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	if len(out) != len(shas) {
		return nil, errors.New("git cat-file: the output ended early")
	}
	return out, nil
}
