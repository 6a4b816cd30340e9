package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// Problem is one thing `skills verify` found wrong.
type Problem struct {
	Skill   string `json:"skill"`
	Message string `json:"message"`
}

func (p Problem) String() string { return fmt.Sprintf("skills/%s: %s", p.Skill, p.Message) }

// Verify checks every approved skill under skills/ the way CI should before
// merging: no symbolic link anywhere under skills/, SKILL.md present with
// valid frontmatter, its name equal to the directory, the files and grant
// matching the hash recorded at approval, the program bundling, every tool
// it calls existing in servers/ and recorded at approval (so that a tree
// regenerated under it, where a function now calls another tool, fails),
// tools that are not read-only called only where SKILL.md grants write,
// and every recorded example replaying offline to its recorded result.
func (w Workspace) Verify() ([]Problem, error) {
	problems, err := w.symlinks()
	if err != nil {
		return nil, err
	}
	names, err := subdirs(w.skillsDir())
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		if slices.ContainsFunc(problems, func(p Problem) bool { return p.Skill == name }) {
			continue // a symbolic link: nothing in it is read
		}
		for _, msg := range w.verifyOne(name) {
			problems = append(problems, Problem{Skill: name, Message: msg})
		}
	}
	return problems, nil
}

// symlinks reports every symbolic link under skills/ (skills/ itself
// included), as a problem of the skill (or hidden folder) it is in.
func (w Workspace) symlinks() ([]Problem, error) {
	var out []Problem
	root := w.skillsDir()
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == root {
				return nil
			}
			return err
		}
		if e.Type()&fs.ModeSymlink == 0 {
			return nil
		}
		rel, _ := filepath.Rel(w.Root, p)
		rel = filepath.ToSlash(rel)
		owner := strings.TrimPrefix(rel, SkillsDir+"/")
		owner, _, _ = strings.Cut(owner, "/")
		out = append(out, Problem{Skill: owner, Message: symlinkError(rel).Error()})
		return nil
	})
	return out, err
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
	if _, err := w.checkApproved(dir, fm); err != nil {
		out = append(out, err.Error())
	}
	files, err := w.readFolder(SkillsDir + "/" + dir)
	if err != nil {
		return append(out, err.Error())
	}
	program, ok := files[programFile]
	if !ok {
		return append(out, fmt.Sprintf("missing %s: the skill's program", programFile))
	}
	a, err := w.analyze(context.Background(), w.approvedEntry(dir), program, dir)
	if err != nil {
		return append(out, "the program does not bundle: "+strings.ReplaceAll(err.Error(), "\n", " | "))
	}
	recorded := fm.Tools()
	for _, t := range a.unknown() {
		out = append(out, fmt.Sprintf("calls %s, which does not exist in servers/", t))
	}
	for _, t := range toolNames(a.tools) {
		if !slices.Contains(recorded, t) {
			out = append(out, fmt.Sprintf("calls %s, which is not among the tools recorded at approval (%s: %s): the program or the generated tree changed (a generated function may now call another upstream tool); review it and approve it again", t, metaTools, strings.Join(recorded, " ")))
		}
	}
	if !fm.Write() {
		for _, t := range a.writes() {
			out = append(out, fmt.Sprintf("calls %s, which is not read-only, but SKILL.md does not grant write (metadata %s: \"true\")", t, metaWrite))
		}
	}
	if len(out) > 0 {
		return out
	}
	return w.replayExamples(dir, files)
}

// replayExamples runs the skill on each recorded example, with the calls
// answered from the recording, and compares the result with the recorded
// one. The tools the example called must still be defined as when it was
// recorded (the manifest's hash of each tool's definition): a tool that
// changed upstream makes the example stale, whatever the replay gives.
func (w Workspace) replayExamples(name string, files map[string][]byte) []string {
	var out []string
	m, err := w.manifest()
	if err != nil {
		return []string{err.Error()}
	}
	for _, p := range sortedKeys(files) {
		if !strings.HasPrefix(p, examplesDir+"/") || path.Ext(p) != ".json" {
			continue
		}
		fail := func(format string, args ...any) {
			out = append(out, "example "+p+": "+fmt.Sprintf(format, args...))
		}
		rec, err := ParseRecording(files[p])
		if err != nil {
			fail("%v", err)
			continue
		}
		stale := false
		for _, server := range sortedToolServers(rec) {
			for _, t := range rec.Tools[server] {
				entry, ok := m.Tool(server, t.Name)
				switch {
				case !ok:
					fail("it calls %s.%s, which no longer exists in servers/: record the example again", server, t.Name)
					stale = true
				case entry.SHA256 != toolHash(t):
					fail("%s.%s changed upstream since the example was recorded (its definition, as mcpcode gen last saw it, is not the recorded one): run the skill again with --record and have the new example reviewed", server, t.Name)
					stale = true
				}
			}
		}
		if stale {
			continue
		}
		replayer := NewReplayer(rec)
		res := w.run(context.Background(), runtime.BundleOptions{Workspace: w.Root, Entry: filepath.Join(w.Root, "skill:"+name+".ts"), Source: RunSource(name), Skills: w.Policy()},
			runtime.RunOptions{Workspace: w.Root, Caller: replayer, Input: exampleInputOf(rec)})
		switch {
		case !res.OK:
			msg := "the run failed"
			if res.Error != nil {
				msg = res.Error.Kind + ": " + res.Error.Message
			}
			fail("replaying it failed: %s", strings.ReplaceAll(msg, "\n", " | "))
		case !bytes.Equal(canonicalJSON(res.Result), canonicalJSON(rec.Result)):
			fail("replayed, it returns %s, not the recorded %s", clip(string(canonicalJSON(res.Result)), 300), clip(string(canonicalJSON(rec.Result)), 300))
		}
	}
	return out
}

// exampleInputOf is a recording's input for running the skill ({} when
// none was given).
func exampleInputOf(rec *Recording) json.RawMessage {
	if len(bytes.TrimSpace(rec.Input)) == 0 || string(bytes.TrimSpace(rec.Input)) == "null" {
		return json.RawMessage("{}")
	}
	return rec.Input
}

func sortedToolServers(rec *Recording) []string {
	var out []string
	for s := range rec.Tools {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// toolHash is the hash mcpcode gen records of a tool's definition: SHA-256
// of its raw JSON, compacted.
func toolHash(t mcptool.Tool) string {
	raw, _ := t.MarshalJSON()
	var compact bytes.Buffer
	if json.Compact(&compact, raw) == nil {
		raw = compact.Bytes()
	}
	return hashOf(raw)
}

// run runs a program with w.Run, or in this process.
func (w Workspace) run(ctx context.Context, b runtime.BundleOptions, r runtime.RunOptions) *runtime.Result {
	if w.Run != nil {
		return w.Run(ctx, b, r)
	}
	prog, err := runtime.Bundle(b)
	if err != nil {
		return runtime.BundleErrorResult(err)
	}
	return runtime.Run(ctx, prog, r)
}
