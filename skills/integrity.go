package skills

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// What approval binds. A skill is its folder skills/<name>/: every file in
// it but SKILL.md (index.ts, input.schema.json, recorded examples, any
// helper file), plus what SKILL.md says about it: name, description, the
// write grant, the tools it may call, and the rest of SKILL.md (its other
// fields and its text, which agents read). Two hashes cover that:
//
//   - the review hash covers the name, the description and the files. The
//     review card prints it, and `skills approve NAME --sha256 HASH`
//     approves exactly what has that hash: what the reviewer read.
//   - the approval hash, recorded in SKILL.md as mcpcode-sha256, covers the
//     review hash, the write grant, the tools, the approval's record (who
//     approved, when, and at which commit) and all of SKILL.md but the
//     approval hash itself (skillMDDigest). Running, importing or
//     verifying a skill whose files, grant or record no longer give the
//     recorded hash is refused, with the reason and the command that
//     re-approves it.
//
// Both are plain SHA-256 digests, not signatures: anyone who can write the
// files can compute them. They bind an approval to what was read and catch
// every change made since (an edited program, a flipped grant, a planted
// file); they do not stop someone who can edit files and run mcpcode from
// approving. See the README's security model.

// Limits on a skill's folder, far above what a skill needs.
const (
	maxSkillFiles = 200
	maxSkillBytes = 8 << 20
)

// hashFormat versions the text the review hash is computed over.
const hashFormat = "mcpcode skill v1"

// approvalFormat versions the text of the approval hash: the approval's
// record (by, at, commit) and the rest of SKILL.md (skillMDDigest): its
// body, which agents read, and its other fields. (Version 2, which left the
// rest of SKILL.md unbound, was never released.) A SKILL.md whose hash is of
// version 1 (written by earlier releases) still verifies; its record is
// shown as unbound (Approval.Unbound) until the skill is approved again.
const approvalFormat = "mcpcode approval v3"

// reviewHash is the hash a reviewer approves: name, description, files.
func reviewHash(name, description string, files map[string][]byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nname %q\ndescription %q\n", hashFormat, name, strings.TrimSpace(description))
	for _, p := range sortedKeys(files) {
		fmt.Fprintf(&b, "file %q %s\n", p, hashOf(files[p]))
	}
	return hashOf([]byte(b.String()))
}

// proposalHash is the hash a card prints and approving it checks: the
// review hash and what else approval writes into SKILL.md (why it exists,
// who proposed it; for an approved skill, what its SKILL.md says of them),
// so that other text put there after the card was read (proposing again
// with the same files, an edit of SKILL.md) does not get approved.
func proposalHash(review string, p *Proposal) string {
	return hashOf(fmt.Appendf(nil, "mcpcode proposal v1\nreview %s\nrationale %q\nproposed-by %q\n", review, p.Rationale, p.ProposedBy))
}

// approvalHash is the hash SKILL.md records: the review hash, the grant,
// the approval's record and the digest of the rest of SKILL.md.
func approvalHash(review string, write bool, tools []string, rec Approval, skillMD string) string {
	return hashOf(fmt.Appendf(nil, "%sskill.md %s\n", approvalText(approvalFormat, review, write, tools, rec), skillMD))
}

func approvalText(format, review string, write bool, tools []string, rec Approval) string {
	tools = slices.Clone(tools)
	slices.Sort(tools)
	return fmt.Sprintf("%s\nreview %s\nwrite %t\ntools %q\napproved-by %q\napproved-at %q\napproved-commit %q\n",
		format, review, write, tools, rec.By, rec.At, rec.Commit)
}

// approvalHashV1 is the approval hash of SKILL.md files written before the
// record was bound: the review hash and the grant.
func approvalHashV1(review string, write bool, tools []string) string {
	tools = slices.Clone(tools)
	slices.Sort(tools)
	return hashOf(fmt.Appendf(nil, "%s\nreview %s\nwrite %t\ntools %q\n", hashFormat, review, write, tools))
}

// matchesApproval reports whether files and SKILL.md give the recorded
// approval hash, and whether they do only as a version 1 hash, which does
// not cover the record. Version 1 SKILL.md files recorded no approval time
// or commit (only, unbound, who approved): a version 1 hash next to either
// was computed by hand over an edited record, and does not match.
func matchesApproval(name string, fm *Frontmatter, files map[string][]byte) (ok, v1 bool) {
	review := reviewHash(name, fm.Description, files)
	rec := fm.Approval()
	switch fm.SHA256() {
	case approvalHash(review, fm.Write(), fm.Tools(), rec, fm.digest):
		return true, false
	case approvalHashV1(review, fm.Write(), fm.Tools()):
		return rec.At == "" && rec.Commit == "", true
	}
	return false, false
}

// fileHashes lists each file's hash as SKILL.md records it (mcpcode-files),
// "path=sha256" separated by spaces, so that a refusal can say which file
// changed.
func fileHashes(files map[string][]byte) string {
	var parts []string
	for _, p := range sortedKeys(files) {
		parts = append(parts, p+"="+hashOf(files[p]))
	}
	return strings.Join(parts, " ")
}

func sortedKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func hashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// noSymlinkDirs refuses when skills/, or any of the given directories
// under the workspace root (slash-separated, relative), is a symbolic link.
func (w Workspace) noSymlinkDirs(rels ...string) error {
	for _, rel := range append([]string{SkillsDir}, rels...) {
		fi, err := os.Lstat(filepath.Join(w.Root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return symlinkError(rel)
		}
	}
	return nil
}

func symlinkError(rel string) error {
	return fmt.Errorf("%s is a symbolic link: symbolic links under skills/ are refused (a skill is exactly the files in its folder); replace it with the real directory or file", rel)
}

// readFolder reads every file in a skill's folder (dir, relative to the
// workspace root) but SKILL.md and the files named in skip, refusing
// symbolic links and anything but regular files and directories.
func (w Workspace) readFolder(dir string, skip ...string) (map[string][]byte, error) {
	if err := w.noSymlinkDirs(dir); err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	total := 0
	root := filepath.Join(w.Root, filepath.FromSlash(dir))
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			return symlinkError(path.Join(dir, rel))
		case e.IsDir():
			return nil
		case !e.Type().IsRegular():
			return fmt.Errorf("%s is not a regular file: a skill's folder holds only files and directories", path.Join(dir, rel))
		case rel == skillMDFile || slices.Contains(skip, rel):
			return nil
		}
		if len(files) >= maxSkillFiles {
			return fmt.Errorf("%s holds more than %d files: a skill's folder holds its program and little else", dir, maxSkillFiles)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if total += len(data); total > maxSkillBytes {
			return fmt.Errorf("%s holds more than %d MiB of files: a skill's folder holds its program and little else", dir, maxSkillBytes>>20)
		}
		files[rel] = data
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", dir)
	}
	return files, err
}

// checkApproved checks an approved skill against its approval: its
// folder's files and SKILL.md's grant must give the recorded hash. It
// returns the files; the error says what changed and how to re-approve.
func (w Workspace) checkApproved(name string, fm *Frontmatter) (map[string][]byte, error) {
	dir := SkillsDir + "/" + name
	files, err := w.readFolder(dir)
	if err != nil {
		return nil, err
	}
	recorded := fm.SHA256()
	if recorded == "" {
		return nil, fmt.Errorf("skills/%s/SKILL.md records no %s, so nothing says what was approved: %s", name, metaSHA256, reapproveHint(name))
	}
	if ok, _ := matchesApproval(name, fm, files); ok {
		if r := w.revokedApproval(name, fm); r != nil {
			return nil, fmt.Errorf("%s: its files were put back, but the approval they carry is the one that was revoked; a person must approve it again: %s", revokedMessage(name, r), reapproveHint(name))
		}
		return files, nil
	}
	return nil, &mismatchError{name: name, changes: changes(files, fm), claim: approvalClaim(fm), changed: changedFiles(files, fm)}
}

// mismatchError is a skill that does not match its approval.
type mismatchError struct {
	name    string
	changes string // what changed, in words
	claim   string // who SKILL.md says approved it
	changed []pathChange
	// who changed the files, as git says, when verify found out
	editors string
}

func (e *mismatchError) Error() string {
	return fmt.Sprintf("skill %q does not match its approval: %s%s%s; nothing of it runs until a person approves it again: %s", e.name, e.changes, e.claim, e.editors, reapproveHint(e.name))
}

// approvalClaim says who SKILL.md says approved a skill that no longer
// matches its approval: a claim, since the record may be what changed.
func approvalClaim(fm *Frontmatter) string {
	rec := fm.Approval()
	if rec.By == "" && rec.At == "" {
		return ""
	}
	by := rec.By
	if by == "" {
		by = "an unnamed person"
	}
	s := " since " + by + " approved it"
	if at := rec.when(); at != "" {
		s += " on " + at
	}
	if rec.Commit != "" {
		s += " at commit " + shortHash(rec.Commit)
	}
	return s + " (as SKILL.md says)"
}

// reapproveHint is the command that re-approves a changed skill.
func reapproveHint(name string) string {
	return fmt.Sprintf("review it with `mcpcode skills show %s`, then approve it with the command the card prints (mcpcode skills approve %s --sha256 ...)", name, name)
}

// changes says what differs from the approval, as far as SKILL.md's
// record of each file's hash (mcpcode-files) tells.
func changes(files map[string][]byte, fm *Frontmatter) string {
	changed := changedFiles(files, fm)
	if len(changed) == 0 {
		return "its files are as approved, so SKILL.md changed (its name, description, " + metaWrite + ", " + metaTools + ", the approval's record, another field or its text)"
	}
	var out []string
	for _, c := range changed {
		out = append(out, c.Path+" "+c.Status)
	}
	return strings.Join(out, ", ")
}

// fileChangeStatus says how a file differs from the approval.
const (
	statusAdded   = "was added"
	statusChanged = "changed"
	statusRemoved = "was removed"
)

// pathChange is one file that differs from the approval.
type pathChange struct{ Path, Status string }

// changedFiles lists the files that differ from SKILL.md's record of each
// file's hash, sorted by path.
func changedFiles(files map[string][]byte, fm *Frontmatter) []pathChange {
	was := map[string]string{}
	for _, f := range strings.Fields(fm.Metadata[metaFiles]) {
		if p, h, ok := strings.Cut(f, "="); ok {
			was[p] = h
		}
	}
	var out []pathChange
	for _, p := range sortedKeys(files) {
		switch h, ok := was[p]; {
		case !ok:
			out = append(out, pathChange{p, statusAdded})
		case h != hashOf(files[p]):
			out = append(out, pathChange{p, statusChanged})
		}
	}
	for _, p := range sortedKeys(toSet(was)) {
		if _, ok := files[p]; !ok {
			out = append(out, pathChange{p, statusRemoved})
		}
	}
	slices.SortStableFunc(out, func(a, b pathChange) int { return strings.Compare(a.Path, b.Path) })
	return out
}

func toSet(m map[string]string) map[string][]byte {
	out := make(map[string][]byte, len(m))
	for k := range m {
		out[k] = nil
	}
	return out
}
