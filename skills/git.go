package skills

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// GitProposal is what ProposeGit created.
type GitProposal struct {
	Branch string // skill/<name>
	Commit string
	Files  []string // paths in the commit, relative to the repository root
}

// ProposeGit puts a checked proposal, laid out as it would be after approval
// (skills/<name>/SKILL.md, index.ts, input.schema.json, skills/README.md),
// on a new branch skill/<name> in one commit on top of HEAD, so that a
// reviewer can open a pull request. The working tree, the index and the
// current branch are untouched: the commit is built with git's plumbing and
// a temporary index. The recorded grant is read-only; a reviewer who wants
// to grant write edits SKILL.md in the pull request, and `skills verify`
// in CI checks the result.
func (w Workspace) ProposeGit(ctx context.Context, opts ProposeOptions) (*GitProposal, error) {
	if err := ValidateName(opts.Name); err != nil {
		return nil, err
	}
	g, err := openRepo(ctx, w.Root)
	if err != nil {
		return nil, err
	}
	branch := "skill/" + opts.Name
	if _, err := g.run(nil, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err == nil {
		return nil, fmt.Errorf("branch %s already exists: delete it (git branch -D %s) or pick another name", branch, branch)
	}
	head, err := g.run(nil, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return nil, errors.New("the repository has no commit yet: commit something first, so the skill branch has a base")
	}

	files, err := w.approvedLayout(ctx, opts)
	if err != nil {
		return nil, err
	}
	prefix, err := g.prefix(w.Root)
	if err != nil {
		return nil, err
	}
	tmpIndex, err := os.CreateTemp("", "mcpcode-index-*")
	if err != nil {
		return nil, err
	}
	tmpIndex.Close()
	defer os.Remove(tmpIndex.Name())
	env := append(gitEnv(), "GIT_INDEX_FILE="+tmpIndex.Name())
	if _, err := g.runEnv(env, nil, "read-tree", head); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		blob, err := g.run(f.content, "hash-object", "-w", "--stdin")
		if err != nil {
			return nil, err
		}
		p := filepath.ToSlash(filepath.Join(prefix, f.path))
		if _, err := g.runEnv(env, nil, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+p); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	tree, err := g.runEnv(env, nil, "write-tree")
	if err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("Propose skill %s\n\n%s\n\nProposed by an agent with mcpcode; review the program and SKILL.md.\nThe skill is read-only unless a reviewer grants write in SKILL.md.\n", opts.Name, wrap(opts.Description, 72))
	commit, err := g.runEnv(identityEnv(ctx, g), []byte(msg), "commit-tree", tree, "-p", head)
	if err != nil {
		return nil, err
	}
	if _, err := g.run(nil, "update-ref", "refs/heads/"+branch, commit, ""); err != nil {
		return nil, err
	}
	return &GitProposal{Branch: branch, Commit: commit, Files: paths}, nil
}

// approvedByPullRequest is the approver SKILL.md names for a skill laid
// out by ProposeGit: the pull request's review is its approval.
const approvedByPullRequest = "pull request"

type layoutFile struct {
	path    string // relative to the workspace root
	content []byte
}

// approvedLayout checks a proposal and returns the files an approval would
// write, granting nothing: a program that calls a tool that is not read-only
// is laid out read-only, its SKILL.md says so, and `skills verify` fails
// until a reviewer grants write. Nothing in the workspace changes.
func (w Workspace) approvedLayout(ctx context.Context, opts ProposeOptions) ([]layoutFile, error) {
	p, program, a, err := w.prepare(ctx, opts)
	if err != nil {
		return nil, err
	}
	if unknown := a.unknown(); len(unknown) > 0 {
		return nil, fmt.Errorf("%q calls %s, which does not exist in servers/ (run mcpcode gen first)", opts.Name, joinTools(unknown))
	}
	examples, err := parseExamples(opts.Examples)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{programFile: program}
	if len(p.InputSchema) > 0 {
		var pretty bytes.Buffer
		if err := jsonIndent(&pretty, p.InputSchema); err != nil {
			return nil, err
		}
		files[schemaFile] = pretty.Bytes()
	}
	for i, ex := range examples {
		files[fmt.Sprintf("%s/%d.json", examplesDir, i+1)] = ex
	}
	info := skillInfo{name: p.Name, description: p.Description, rationale: p.Rationale, proposedBy: p.ProposedBy, schema: p.InputSchema, typeCheck: p.TypeCheck}
	skillMD, err := approvedSkillMD(info, a, files, false, Approval{By: approvedByPullRequest})
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(SkillsDir, opts.Name)
	out := []layoutFile{{filepath.Join(dir, skillMDFile), skillMD}}
	for _, f := range sortedKeys(files) {
		out = append(out, layoutFile{filepath.Join(dir, filepath.FromSlash(f)), files[f]})
	}
	entries, err := w.List()
	if err != nil {
		return nil, err
	}
	kept := []Entry{{Name: p.Name, Status: StatusApproved, Description: p.Description}}
	for _, e := range entries {
		if e.Name != p.Name {
			kept = append(kept, e)
		}
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].Name < kept[j].Name })
	out = append(out, layoutFile{filepath.Join(SkillsDir, "README.md"), renderReadme(kept)})
	return out, nil
}

// repo runs git in one repository.
type repo struct {
	ctx  context.Context
	root string
}

func openRepo(ctx context.Context, dir string) (*repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errors.New("git is not installed: the pull-request flow needs git")
	}
	r := &repo{ctx: ctx, root: dir}
	top, err := r.run(nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("%s is not inside a git repository: the pull-request flow needs one (git init)", dir)
	}
	r.root = top
	return r, nil
}

// prefix is dir's path relative to the repository root.
func (r *repo) prefix(dir string) (string, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	top, err := filepath.EvalSymlinks(r.root)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", fmt.Errorf("%s is outside the repository %s", dir, r.root)
	}
	if rel == "." {
		return "", nil
	}
	return rel, nil
}

func (r *repo) run(stdin []byte, args ...string) (string, error) {
	return r.runEnv(nil, stdin, args...)
}

func (r *repo) runEnv(env []string, stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(r.ctx, "git", append([]string{"--literal-pathspecs", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Dir = r.root
	if env == nil {
		env = gitEnv()
	}
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(errb.String()))
	}
	return strings.TrimSpace(out.String()), nil
}

// gitEnv is the environment git runs with: an explicit list, not the
// host's. It keeps what finds git and the user's own configuration and
// identity; it drops every variable that would point git at another
// repository, index, object store or work tree, or inject configuration
// (GIT_DIR, GIT_INDEX_FILE, GIT_CONFIG_PARAMETERS, GIT_EXTERNAL_DIFF, ...).
// Replacement objects are off, so that what git reads is what the commit
// holds, and git never prompts.
func gitEnv() []string {
	env := []string{"LC_ALL=C", "GIT_TERMINAL_PROMPT=0", "GIT_NO_REPLACE_OBJECTS=1", "GIT_OPTIONAL_LOCKS=0"}
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "TMPDIR", "USER",
		"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM",
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// GitContext returns who git says the person is ("Name <email>" from
// user.name and user.email, or either alone) and the commit checked out,
// for the record of an approval made in dir; both are "" outside a git
// repository or where git has no answer.
func GitContext(ctx context.Context, dir string) (identity, head string) {
	g, err := openRepo(ctx, dir)
	if err != nil {
		return "", ""
	}
	name, _ := g.run(nil, "config", "user.name")
	email, _ := g.run(nil, "config", "user.email")
	switch {
	case name != "" && email != "":
		identity = name + " <" + email + ">"
	case name != "":
		identity = name
	default:
		identity = email
	}
	head, _ = g.run(nil, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	return identity, head
}

// lastChange says, for a file of the workspace (rel, slash-separated),
// who changed it last as git knows: "has uncommitted changes" when the
// file differs from HEAD (or is not committed), else "was last changed in
// commit 1a2b3c4d5e6f by Name <email>". "" outside a repository.
func (w Workspace) lastChange(ctx context.Context, rel string) string {
	g, err := openRepo(ctx, w.Root)
	if err != nil {
		return ""
	}
	prefix, err := g.prefix(w.Root)
	if err != nil {
		return ""
	}
	p := filepath.ToSlash(filepath.Join(prefix, filepath.FromSlash(rel)))
	if st, err := g.run(nil, "status", "--porcelain", "--untracked-files=all", "--", p); err == nil && st != "" {
		return "has uncommitted changes"
	}
	out, err := g.run(nil, "log", "-1", "--format=%H %an <%ae>", "--", p)
	if err != nil || out == "" {
		return ""
	}
	commit, who, _ := strings.Cut(out, " ")
	return "was last changed in commit " + shortHash(commit) + " by " + who
}

// identityEnv supplies a committer identity when git has none configured,
// so that proposing works on a fresh machine or in CI.
func identityEnv(ctx context.Context, r *repo) []string {
	env := gitEnv()
	if name, _ := r.run(nil, "config", "user.name"); name == "" {
		env = append(env, "GIT_AUTHOR_NAME=mcpcode", "GIT_COMMITTER_NAME=mcpcode")
	}
	if email, _ := r.run(nil, "config", "user.email"); email == "" {
		env = append(env, "GIT_AUTHOR_EMAIL=mcpcode@localhost", "GIT_COMMITTER_EMAIL=mcpcode@localhost")
	}
	return env
}

// RepoRoot is the top directory of the git repository dir is in, or ""
// when it is in none (or git is not installed).
func RepoRoot(ctx context.Context, dir string) string {
	g, err := openRepo(ctx, dir)
	if err != nil {
		return ""
	}
	return g.root
}
