package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"

	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/skills"
)

// maxTreeFile bounds one file read from the tree.
const maxTreeFile = 4 << 20

// TreeEntry is one entry of a directory of the tree.
type TreeEntry struct {
	Name string `json:"name"`
	Dir  bool   `json:"dir,omitempty"`
	Size int64  `json:"size,omitempty"`
}

// ReadTree reads a file, or lists a directory, of the parts of the
// workspace an agent may read: the generated tree (servers/...) and the
// approved skills (skills/...). The path is workspace-relative with forward
// slashes; anything else (other directories, hidden entries such as
// skills/.proposals, a path or symlink that leads outside its part) is an
// error that says what may be read.
func (w *Workspace) ReadTree(p string) (content []byte, entries []TreeEntry, err error) {
	part, rest, err := treePath(p)
	if err != nil {
		return nil, nil, usageErrorf(err)
	}
	root, err := w.openPart(part)
	if errors.Is(err, fs.ErrNotExist) {
		if part == layout.ServersDir {
			return nil, nil, usageErrorf(fmt.Errorf("there is no generated tree yet: run `mcpcode gen` first"))
		}
		return nil, nil, usageErrorf(fmt.Errorf("no %s: there are no approved skills yet", p))
	}
	if err != nil {
		return nil, nil, usageErrorf(fmt.Errorf("cannot read %s: %w", p, unwrapPath(err)))
	}
	defer root.Close()
	if part == layout.SkillsDir && rest != "." {
		// Inside skills/, only approved skills' directories (and files
		// such as skills/README.md) are readable.
		skill, inner, _ := strings.Cut(rest, "/")
		if st, err := root.Lstat(skill); (err == nil && st.IsDir() || inner != "") && !w.approvedSkillDir(root, skill) {
			return nil, nil, usageErrorf(fmt.Errorf("cannot read %s: skills/%s is not an approved skill", p, skill))
		}
	}
	f, st, err := openPlain(root, rest)
	if err != nil {
		return nil, nil, usageErrorf(fmt.Errorf("cannot read %s: %w", p, unwrapPath(err)))
	}
	defer f.Close()
	if !st.IsDir() {
		if st.Size() > maxTreeFile {
			return nil, nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit of one read", p, st.Size(), maxTreeFile)
		}
		data, err := io.ReadAll(io.LimitReader(f, maxTreeFile+1))
		if err != nil {
			return nil, nil, usageErrorf(fmt.Errorf("cannot read %s: %w", p, unwrapPath(err)))
		}
		if len(data) > maxTreeFile {
			return nil, nil, fmt.Errorf("%s grew over the %d-byte limit of one read", p, maxTreeFile)
		}
		return data, nil, nil
	}
	list, err := f.ReadDir(-1)
	if err != nil {
		return nil, nil, usageErrorf(fmt.Errorf("cannot list %s: %w", p, unwrapPath(err)))
	}
	entries = []TreeEntry{}
	for _, e := range list {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		// Only what read would open is listed: no symlinks, pipes or
		// devices, and in skills/ only the directories of approved skills.
		if !e.IsDir() && !e.Type().IsRegular() {
			continue
		}
		if e.IsDir() && part == layout.SkillsDir && rest == "." && !w.approvedSkillDir(root, e.Name()) {
			continue
		}
		te := TreeEntry{Name: e.Name(), Dir: e.IsDir()}
		if info, err := e.Info(); err == nil && !e.IsDir() {
			te.Size = info.Size()
		}
		entries = append(entries, te)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return nil, entries, nil
}

// skillMDFile is the file whose presence makes skills/<name> an approved
// skill (approval writes it last).
const skillMDFile = "SKILL.md"

// approvedSkillDir reports whether name, in the skills directory root, is
// an approved skill's directory: a real directory (not a symlink) holding
// a regular SKILL.md, whose files match their approval (as SkillTools
// asks): a SKILL.md never approved, or edited since, would put text no
// person approved in front of the model through read and the resources.
func (w *Workspace) approvedSkillDir(root *os.Root, name string) bool {
	st, err := root.Lstat(name)
	if err != nil || !st.IsDir() {
		return false
	}
	md, err := root.Lstat(name + "/" + skillMDFile)
	if err != nil || !md.Mode().IsRegular() {
		return false
	}
	_, err = w.SkillStore().Policy().Skill(name) // checks the approval hash
	return err == nil
}

// errNotPlain is the reason a path that is not a plain file or directory
// is refused.
var errNotPlain = errors.New("it is a symbolic link or a special file, which read does not follow or open")

// errNotDir is the reason a path through a file is refused.
var errNotDir = errors.New("not a directory")

// openPlain opens rest (slash-separated, "." for root itself) inside root
// without following a symbolic link anywhere on the way, and only when it
// is a regular file or a directory. os.Root alone follows symlinks that
// stay inside it, which inside skills/ can lead to a pending proposal, and
// opening a named pipe blocks. Each step is checked with Lstat and then
// compared (os.SameFile) with what was opened, so an entry swapped for a
// symlink between the check and the open is refused too.
func openPlain(root *os.Root, rest string) (*os.File, fs.FileInfo, error) {
	if rest == "." {
		f, err := root.Open(".")
		if err != nil {
			return nil, nil, err
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, nil, err
		}
		return f, st, nil
	}
	segs := strings.Split(rest, "/")
	dir := root
	for i, seg := range segs {
		before, err := dir.Lstat(seg)
		if err != nil {
			closeUnless(dir, root)
			return nil, nil, err
		}
		last := i == len(segs)-1
		switch {
		case before.IsDir():
		case last && before.Mode().IsRegular():
		case !last && before.Mode().IsRegular():
			closeUnless(dir, root)
			return nil, nil, errNotDir
		default:
			closeUnless(dir, root)
			return nil, nil, errNotPlain
		}
		if last {
			f, err := dir.Open(seg)
			closeUnless(dir, root)
			if err != nil {
				return nil, nil, err
			}
			after, err := f.Stat()
			if err != nil || !os.SameFile(before, after) {
				f.Close()
				return nil, nil, errNotPlain
			}
			return f, after, nil
		}
		sub, err := dir.OpenRoot(seg)
		if err != nil {
			closeUnless(dir, root)
			return nil, nil, err
		}
		after, err := sub.Stat(".")
		closeUnless(dir, root)
		if err != nil || !os.SameFile(before, after) {
			sub.Close()
			return nil, nil, errNotPlain
		}
		dir = sub
	}
	panic("unreachable")
}

// closeUnless closes r unless it is keep.
func closeUnless(r, keep *os.Root) {
	if r != keep {
		r.Close()
	}
}

// treePath splits a readable path into its part (servers or skills) and
// the rest inside it.
func treePath(p string) (part, rest string, err error) {
	trimmed := strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/")
	if trimmed == "" {
		return "", "", fmt.Errorf("give a path under %s/ or %s/ (for example servers/README.md)", layout.ServersDir, layout.SkillsDir)
	}
	segs := strings.Split(trimmed, "/")
	for _, seg := range segs {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "\\\x00") {
			return "", "", fmt.Errorf("%q is not a plain path: write it relative to the workspace, without . or .. segments (for example servers/README.md)", p)
		}
	}
	if segs[0] != layout.ServersDir && segs[0] != layout.SkillsDir {
		return "", "", fmt.Errorf("%q is outside what can be read: only %s/ (the generated tree) and %s/ (approved skills)", p, layout.ServersDir, layout.SkillsDir)
	}
	for _, seg := range segs[1:] {
		if strings.HasPrefix(seg, ".") {
			return "", "", fmt.Errorf("%q is hidden: pending and dismissed proposals are not readable until a person approves them", p)
		}
	}
	rest = strings.Join(segs[1:], "/")
	if rest == "" {
		rest = "."
	}
	return segs[0], rest, nil
}

// unwrapPath drops the *PathError's operation and path, which name the
// host's directories.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// TreeFiles lists every readable file (see ReadTree), workspace-relative,
// sorted: what the gateway offers as resources.
func (w *Workspace) TreeFiles() ([]string, error) {
	var out []string
	for _, part := range []string{layout.ServersDir, layout.SkillsDir} {
		root, err := w.openPart(part)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errPartNotPlain) {
			continue // nothing to offer (read says why)
		}
		if err != nil {
			return nil, err
		}
		err = fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if part == layout.SkillsDir && d.IsDir() && p != "." && !strings.Contains(p, "/") && !w.approvedSkillDir(root, p) {
				return fs.SkipDir // not (yet) an approved skill
			}
			if d.Type().IsRegular() {
				out = append(out, part+"/"+p)
			}
			return nil
		})
		root.Close()
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// SkillTool is an approved skill as a tool of the gateway.
type SkillTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Write is true when a person granted the skill calls to tools that
	// are not read-only.
	Write bool `json:"write"`
}

// SkillTools returns the approved skills that can run, sorted by name:
// only skills whose files, description and grant match their approval (a
// SKILL.md never approved, or edited after its approval, would otherwise
// put text no person approved in front of the model as a tool's
// description). Skills with a problem are left out; `skills verify` and
// `skills list` say what it is.
func (w *Workspace) SkillTools() ([]SkillTool, error) {
	entries, err := w.ListSkills()
	if err != nil {
		return nil, err
	}
	policy := w.SkillStore().Policy()
	var out []SkillTool
	for _, e := range entries {
		if e.Status != skills.StatusApproved || e.Problem != "" {
			continue
		}
		grant, err := policy.Skill(e.Name) // checks the approval hash
		if err != nil {
			continue
		}
		schema := json.RawMessage(grant.InputSchema)
		if len(schema) == 0 || !json.Valid(schema) {
			schema = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, SkillTool{Name: e.Name, Description: e.Description, InputSchema: schema, Write: grant.Write})
	}
	return out, nil
}

// errPartNotPlain is the reason servers/ or skills/ is refused when it is
// a symbolic link (or not a directory).
var errPartNotPlain = errors.New("it is a symbolic link or not a directory, which read does not follow (replace it with the real directory)")

// openPart opens servers/ or skills/ of the workspace as a root, refusing
// it when it is a symbolic link or not a directory: read, the resources
// and search stay inside the workspace even when the part itself was
// replaced by a link to elsewhere. The check (Lstat) and the open are
// compared (os.SameFile), so a swap between them is refused too.
func (w *Workspace) openPart(part string) (*os.Root, error) {
	ws, err := os.OpenRoot(w.Root)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	before, err := ws.Lstat(part)
	if err != nil {
		return nil, err
	}
	if !before.IsDir() {
		return nil, fmt.Errorf("%s/: %w", part, errPartNotPlain)
	}
	root, err := ws.OpenRoot(part)
	if err != nil {
		return nil, err
	}
	after, err := root.Stat(".")
	if err != nil || !os.SameFile(before, after) {
		root.Close()
		return nil, fmt.Errorf("%s/: %w", part, errPartNotPlain)
	}
	return root, nil
}
