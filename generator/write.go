package generator

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
)

// fileState is what Write did to one file.
type fileState uint8

const (
	fileUnchanged fileState = iota
	fileWritten
	fileRemoved
)

// Write applies a plan to outDir and stores its manifest at manifestPath.
//
// Guarantees: a file whose content is unchanged is not rewritten (its mtime
// stays); every write is atomic: a file in a directory that exists is
// written to a temp file in the same directory, synced and renamed; a
// server's directory that does not exist yet (a first generation: a
// catalog of 10,000 tools makes 10,000 files at once) is built whole in a
// staging directory next to it, synced once, and renamed into place, so
// that it appears complete or not at all; files the previous manifest owned that the plan no longer has are
// removed, and so are the directories this leaves empty; files gen does not
// own are never modified or removed, and a plan file that would replace one
// is refused (unless the bytes are identical) before anything is written;
// kept servers' files are not touched. Every read, write, rename and remove
// goes through an [os.Root] opened on outDir, so nothing outside outDir is
// touched, even when a directory is swapped for a symlink while Write runs
// (that write fails instead); a symlink found inside outDir is refused.
func Write(outDir, manifestPath string, plan *Plan) (*Summary, error) {
	return write(outDir, manifestPath, nil, plan, nil)
}

// WriteWith is Write for a caller that has read the manifest at
// manifestPath already and keeps it from changing meanwhile (gen holds the
// workspace's lock): prev is that manifest (nil: there is none), not read
// and decoded again (4 MB for 10,000 tools).
func WriteWith(outDir, manifestPath string, prev *Manifest, plan *Plan) (*Summary, error) {
	if prev == nil {
		prev = &Manifest{Version: ManifestVersion}
	}
	return write(outDir, manifestPath, prev, plan, nil)
}

// write is Write; prev, when not nil, is the manifest at manifestPath;
// beforeChange, when not nil, runs just before each file is written or
// removed, so tests can change the tree at the worst moment.
func write(outDir, manifestPath string, prev *Manifest, plan *Plan, beforeChange func(rel string)) (*Summary, error) {
	if prev == nil {
		var err error
		prev, err = ReadManifest(manifestPath)
		if errors.Is(err, fs.ErrNotExist) {
			prev, err = &Manifest{Version: ManifestVersion}, nil
		}
		if err != nil {
			return nil, err
		}
	}
	// The manifest is marshaled (4 MB for 10,000 tools) while the files
	// are checked and written.
	manifestData := make(chan []byte, 1)
	go func() { manifestData <- plan.Manifest.Marshal() }()
	root, err := openOutRoot(outDir)
	if err != nil {
		return nil, err
	}
	defer root.Close()

	prevOwned := toSet(prev.OwnedFiles())
	newOwned := toSet(plan.Manifest.OwnedFiles())
	keptDirs := map[string]bool{}
	for _, name := range plan.Kept {
		if s, ok := plan.Manifest.Server(name); ok {
			keptDirs[strings.ToLower(s.Directory)] = true
		}
	}

	// Preflight: decide every file before changing anything. The plan's
	// own checks come first, in order; the files on disk are then read in
	// parallel, and the first refusal in the plan's order is reported, as
	// if each file had been checked in turn.
	files := plan.Files
	var planErr error
	lower := make(map[string]string, len(files))
	targets := newTargetDirs(root)
	defer targets.close()
	for i, f := range files {
		if other, dup := lower[strings.ToLower(f.Path)]; dup {
			planErr = fmt.Errorf("plan has files %q and %q that collide on case-insensitive file systems", other, f.Path)
		} else if dir, _, ok := strings.Cut(f.Path, "/"); ok && keptDirs[strings.ToLower(dir)] {
			planErr = fmt.Errorf("plan writes %q inside the directory of a kept server", f.Path)
		} else if !newOwned[f.Path] {
			planErr = fmt.Errorf("plan writes %q but its manifest does not list it", f.Path)
		}
		if planErr != nil {
			files = files[:i]
			break
		}
		lower[strings.ToLower(f.Path)] = f.Path
		if safeRelPath(f.Path) {
			targets.add(f.Path)
		}
	}
	same := make([]bool, len(files))
	errs := make([]error, len(files))
	forEach(len(files), func(i int) {
		same[i], errs[i] = targets.checkTarget(files[i], prevOwned[files[i].Path])
	})
	var toWrite []File
	state := make(map[string]fileState, len(files))
	for i, f := range files {
		if errs[i] != nil {
			return nil, errs[i]
		}
		if same[i] {
			state[f.Path] = fileUnchanged
		} else {
			state[f.Path] = fileWritten
			toWrite = append(toWrite, f)
		}
	}
	if planErr != nil {
		return nil, planErr
	}

	// New top-level directories are staged whole (stageDirs); the rest is
	// written file by file.
	staged, rest, err := partitionNew(root, toWrite)
	if err != nil {
		return nil, err
	}
	if err := stageDirs(root, staged, beforeChange); err != nil {
		return nil, err
	}
	synced := map[string]bool{}
	for _, f := range rest {
		if beforeChange != nil {
			beforeChange(f.Path)
		}
		if err := atomicfile.WriteRoot(root, filepath.FromSlash(f.Path), f.Content, 0o644); err != nil {
			return nil, fmt.Errorf("%w; if a directory on the way is a symlink, replace it with a real directory and run gen again", err)
		}
		synced[path.Dir(f.Path)] = true
	}
	for dir := range synced {
		syncDir(root, dir)
	}

	removed, err := removeStale(root, prevOwned, newOwned, beforeChange)
	if err != nil {
		return nil, err
	}
	for _, p := range removed {
		state[p] = fileRemoved
	}

	manifestWritten, err := writeIfChanged(manifestPath, <-manifestData)
	if err != nil {
		return nil, err
	}
	sum := summarize(prev, plan, state)
	sum.ManifestWritten = manifestWritten
	return sum, nil
}

// stagingPrefix names the directory a new server directory is built in
// before it is renamed into place: .mcpcode-staging-<dir>.
const stagingPrefix = ".mcpcode-staging-"

// partitionNew splits the files to write into those under a top-level
// directory that does not exist yet (by directory) and the others.
func partitionNew(root *os.Root, files []File) (map[string][]File, []File, error) {
	staged := map[string][]File{}
	var rest []File
	exists := map[string]bool{}
	for _, f := range files {
		top, _, nested := strings.Cut(f.Path, "/")
		if !nested || strings.HasPrefix(top, ".") {
			rest = append(rest, f)
			continue
		}
		there, seen := exists[top]
		if !seen {
			_, err := root.Lstat(top)
			switch {
			case err == nil:
				there = true
			case errors.Is(err, fs.ErrNotExist):
				there = false
			default:
				return nil, nil, fmt.Errorf("check %s: %w", shown(root, top), err)
			}
			exists[top] = there
		}
		if there {
			rest = append(rest, f)
		} else {
			staged[top] = append(staged[top], f)
		}
	}
	return staged, rest, nil
}

// stageDirs builds each new top-level directory in a staging directory
// beside it (a leftover of an interrupted run is removed first), writes
// its files there without a temp file or an fsync each, makes them all
// durable at once (syncStaged), and renames each staging directory into
// place. Until its rename a directory does not exist; after it, it is
// complete. On an error the staging directories are removed.
func stageDirs(root *os.Root, staged map[string][]File, beforeChange func(rel string)) error {
	if len(staged) == 0 {
		return nil
	}
	tops := make([]string, 0, len(staged))
	for top := range staged {
		tops = append(tops, top)
	}
	sort.Strings(tops)
	done := false
	defer func() {
		if !done {
			for _, top := range tops {
				_ = root.RemoveAll(stagingPrefix + top)
			}
		}
	}()
	var written []string // the staging directories
	for _, top := range tops {
		stage := stagingPrefix + top
		if err := root.RemoveAll(stage); err != nil {
			return fmt.Errorf("remove the leftover %s: %w", shown(root, stage), err)
		}
		if err := root.Mkdir(stage, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", shown(root, stage), err)
		}
		// Files are created through a root on the staging directory: one
		// openat each, not one per path element.
		sr, err := root.OpenRoot(stage)
		if err != nil {
			return fmt.Errorf("open %s: %w", shown(root, stage), err)
		}
		err = writeStaged(sr, top, staged[top], beforeChange)
		sr.Close()
		if err != nil {
			return err
		}
		written = append(written, stage)
	}
	if err := syncStaged(root, written); err != nil {
		return err
	}
	for _, top := range tops {
		if beforeChange != nil {
			beforeChange(top)
		}
		// Never over something that appeared meanwhile (a rename would
		// replace an empty directory, and fails over a symlink).
		if _, err := root.Lstat(top); !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("refusing to put the new %s in place: something appeared there while gen ran (a symlink, a directory?); move it away and run gen again", shown(root, top))
		}
		if err := root.Rename(stagingPrefix+top, top); err != nil {
			return fmt.Errorf("put %s in place: %w; if it is a symlink, replace it with a real directory and run gen again", shown(root, top), err)
		}
	}
	done = true
	syncDir(root, ".")
	return nil
}

// stagingDir is a staging directory open for createStaged.
type stagingDir struct {
	root *os.Root
	f    *os.File
	fd   int // f's descriptor; -1 where createStaged goes through root
}

func (d *stagingDir) close() {
	if d.f != nil {
		d.f.Close()
	}
}

// writeStaged writes the files of the new directory top into the staging
// root sr (their paths relative to top), without a temp file or an fsync.
func writeStaged(sr *os.Root, top string, files []File, beforeChange func(rel string)) error {
	sd, err := openStagingDir(sr)
	if err != nil {
		return fmt.Errorf("open %s: %w", sr.Name(), err)
	}
	defer sd.close()
	made := map[string]bool{".": true}
	mkdir := func(name string) error {
		if dir := filepath.Dir(name); !made[dir] {
			if err := sr.MkdirAll(dir, 0o755); err != nil {
				return fmt.Errorf("create %s: %w", filepath.Join(sr.Name(), dir), err)
			}
			made[dir] = true
		}
		return nil
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = filepath.FromSlash(strings.TrimPrefix(f.Path, top+"/"))
	}
	write := func(i int) error {
		if err := createStaged(sd, names[i], files[i].Content); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(sr.Name(), names[i]), err)
		}
		return nil
	}
	if beforeChange != nil { // a test's hook: one file after the other
		for i, f := range files {
			beforeChange(f.Path)
			if err := mkdir(names[i]); err != nil {
				return err
			}
			if err := write(i); err != nil {
				return err
			}
		}
		return nil
	}
	for _, name := range names {
		if err := mkdir(name); err != nil {
			return err
		}
	}
	// One after the other: creating files in one directory is serialized
	// by the kernel anyway (writing them in parallel measured no faster).
	for i := range files {
		if err := write(i); err != nil {
			return err
		}
	}
	return nil
}

// removeStale removes the regular files the previous manifest owned that the
// new one does not, then the directories that leaves empty. Unsafe paths and
// anything that is no longer a regular file are left alone.
func removeStale(root *os.Root, prevOwned, newOwned map[string]bool, beforeChange func(rel string)) ([]string, error) {
	var stale []string
	for p := range prevOwned {
		if !newOwned[p] {
			stale = append(stale, p)
		}
	}
	sort.Strings(stale)
	var removed []string
	dirs := map[string]bool{}
	for _, rel := range stale {
		if !safeRelPath(rel) || checkParents(root, rel) != nil {
			continue
		}
		name := filepath.FromSlash(rel)
		info, err := root.Lstat(name)
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if beforeChange != nil {
			beforeChange(rel)
		}
		if err := root.Remove(name); err != nil {
			return removed, fmt.Errorf("remove %s: %w; if a directory on the way is a symlink, replace it with a real directory and run gen again", shown(root, rel), err)
		}
		removed = append(removed, rel)
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	// Deepest first, so a parent is tried after its children.
	var order []string
	for d := range dirs {
		order = append(order, d)
	}
	sort.Slice(order, func(i, j int) bool {
		if di, dj := depth(order[i]), depth(order[j]); di != dj {
			return di > dj
		}
		return order[i] < order[j]
	})
	for _, d := range order {
		if info, err := root.Lstat(filepath.FromSlash(d)); err == nil && info.IsDir() {
			_ = root.Remove(filepath.FromSlash(d)) // fails, as it should, when the directory is not empty
		}
	}
	return removed, nil
}

// writeIfChanged writes data to path atomically unless it already holds
// exactly these bytes; it creates the parent directory. The write goes
// through an os.Root opened on that directory, like the out dir's files.
func writeIfChanged(path string, data []byte) (bool, error) {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, fmt.Errorf("create the manifest's directory: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return false, fmt.Errorf("open the manifest's directory: %w", err)
	}
	defer root.Close()
	if old, err := root.ReadFile(name); err == nil && bytes.Equal(old, data) {
		return false, nil
	}
	if err := atomicfile.WriteRoot(root, name, data, 0o644); err != nil {
		return false, err
	}
	syncDir(root, ".")
	return true, nil
}

// syncDir makes renames in dir, slash-separated and relative to root,
// durable; best effort (not every platform can).
func syncDir(root *os.Root, dir string) {
	if d, err := root.Open(filepath.FromSlash(dir)); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

func toSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}
