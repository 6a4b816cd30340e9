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
	"strconv"
	"strings"

	"github.com/mcpcode/mcpcode/internal/lazyregexp"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
)

// Problem is one thing `skills verify` found wrong.
type Problem struct {
	Skill   string `json:"skill"`
	Message string `json:"message"`
	// File is the file the problem is in, relative to the workspace root
	// (slash-separated: "skills/<name>/index.ts"), and Line the line in
	// it (1-based; 0 when no line is known): where a code host shows it.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

func (p Problem) String() string { return fmt.Sprintf("skills/%s: %s", p.Skill, p.Message) }

// Verification is what Verify found: each approved skill it checked, with
// the record of its approval, and the problems.
type Verification struct {
	Skills   []VerifiedSkill `json:"skills"`
	Problems []Problem       `json:"problems"`
}

// VerifiedSkill is one skill that Verify checked.
type VerifiedSkill struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Approval is who approved it, when and at which commit, as SKILL.md
	// records it (Unbound when the hash does not cover the record); nil
	// when SKILL.md cannot be read.
	Approval *Approval `json:"approval,omitempty"`
}

// Verify checks every approved skill under skills/ the way CI should before
// merging: no symbolic link anywhere under skills/, SKILL.md present with
// valid frontmatter, its name equal to the directory, the files, grant and
// approval record matching the hash recorded at approval, the program
// bundling, every tool it calls existing in servers/ and recorded at
// approval (so that a tree regenerated under it, where a function now
// calls another tool, fails), tools that are not read-only called only
// where SKILL.md grants write, and every recorded example replaying
// offline to its recorded result.
func (w Workspace) Verify() ([]Problem, error) {
	v, err := w.VerifyAll()
	if err != nil {
		return nil, err
	}
	return v.Problems, nil
}

// VerifyAll is Verify, with every skill it checked.
func (w Workspace) VerifyAll() (*Verification, error) {
	problems, err := w.symlinks()
	if err != nil {
		return nil, err
	}
	if w.noSymlinkDirs() != nil {
		// skills/ itself is a link: nothing where it leads is listed.
		return &Verification{Skills: []VerifiedSkill{}, Problems: problems}, nil
	}
	names, err := subdirs(w.skillsDir())
	if err != nil {
		return nil, err
	}
	v := &Verification{}
	for _, name := range names {
		if slices.ContainsFunc(problems, func(p Problem) bool { return p.Skill == name }) {
			v.Skills = append(v.Skills, VerifiedSkill{Name: name})
			continue // a symbolic link: nothing in it is read
		}
		found, rec := w.verifyOne(name)
		problems = append(problems, found...)
		v.Skills = append(v.Skills, VerifiedSkill{Name: name, OK: len(found) == 0, Approval: rec})
	}
	v.Problems = problems
	return v, nil
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
		out = append(out, Problem{Skill: owner, Message: symlinkError(rel).Error(), File: rel})
		return nil
	})
	return out, err
}

// verifyOne checks one skill directory; it returns its problems and the
// record of its approval (nil when SKILL.md cannot be read).
func (w Workspace) verifyOne(dir string) ([]Problem, *Approval) {
	var out []Problem
	base := SkillsDir + "/" + dir + "/"
	add := func(file string, line int, format string, args ...any) {
		out = append(out, Problem{Skill: dir, Message: fmt.Sprintf(format, args...), File: strings.TrimSuffix(base+file, "/"), Line: line})
	}
	data, err := os.ReadFile(filepath.Join(w.approvedDir(dir), skillMDFile))
	if errors.Is(err, fs.ErrNotExist) {
		add("", 0, "missing SKILL.md: every skill directory needs one (approve skills with mcpcode skills approve)")
		return out, nil
	}
	if err != nil {
		add(skillMDFile, 0, "%v", err)
		return out, nil
	}
	fm, _, err := ParseSkillMD(data)
	if err != nil {
		add(skillMDFile, yamlErrorLine(err), "%v", err)
		return out, nil
	}
	if fm.Name != dir {
		add(skillMDFile, lineOf(data, "name:"), "SKILL.md names the skill %q but its directory is %q: they must be equal", fm.Name, dir)
	}
	if err := ValidateName(dir); err != nil {
		add("", 0, "directory name: %v", err)
		return out, nil
	}
	files, err := w.readFolder(SkillsDir + "/" + dir)
	if err != nil {
		add("", 0, "%v", err)
		return out, nil
	}
	rec := approvalOf(dir, fm, files)
	if _, err := w.checkApproved(dir, fm); err != nil {
		var mm *mismatchError
		switch {
		case errors.As(err, &mm) && len(mm.changed) > 0:
			var editors []string
			for _, c := range mm.changed {
				if who := w.lastChange(context.Background(), base+c.Path); who != "" {
					editors = append(editors, c.Path+" "+who)
				}
			}
			if len(editors) > 0 {
				mm.editors = "; " + strings.Join(editors, "; ")
			}
			add(mm.changed[0].Path, 0, "%v", mm)
		default:
			add(skillMDFile, lineOf(data, "  "+metaSHA256+":"), "%v", err)
		}
	}
	program, ok := files[programFile]
	if !ok {
		add("", 0, "missing %s: the skill's program", programFile)
		return out, &rec
	}
	a, err := w.analyze(context.Background(), w.approvedEntry(dir), program, dir)
	if err != nil {
		file, line := programFile, 0
		var be *runtime.BundleError
		if errors.As(err, &be) {
			for _, d := range be.Diagnostics {
				if d.File != "" {
					file, line = strings.TrimPrefix(d.File, base), d.Line
					break
				}
			}
		}
		add(file, line, "the program does not bundle: %s", strings.ReplaceAll(err.Error(), "\n", " | "))
		return out, &rec
	}
	recorded := fm.Tools()
	for _, t := range a.unknown() {
		add(programFile, toolLine(program, t), "calls %s, which does not exist in servers/", t)
	}
	for _, name := range toolNames(a.tools) {
		if !slices.Contains(recorded, name) {
			server, tool, _ := strings.Cut(name, ".")
			add(programFile, toolLine(program, ToolUse{Server: server, Tool: tool}), "calls %s, which is not among the tools recorded at approval (%s: %s): the program or the generated tree changed (a generated function may now call another upstream tool); review it and approve it again", name, metaTools, strings.Join(recorded, " "))
		}
	}
	if !fm.Write() {
		for _, t := range a.writes() {
			add(programFile, toolLine(program, t), "calls %s, which is not read-only, but SKILL.md does not grant write (metadata %s: \"true\")", t, metaWrite)
		}
	}
	if len(out) > 0 {
		return out, &rec
	}
	return w.replayExamples(dir, files), &rec
}

// lineOf is the 1-based line of data's first line that starts with
// prefix, or 0.
func lineOf(data []byte, prefix string) int {
	for i, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, prefix) {
			return i + 1
		}
	}
	return 0
}

// toolLine is the line of a program where it imports or names a tool it
// calls (0 when the call is not written out there, as through a skill).
func toolLine(program []byte, t ToolUse) int {
	for _, needle := range []string{`"servers/` + t.Server + `/` + t.Tool + `"`, `"` + t.Tool + `"`} {
		if i := strings.Index(string(program), needle); i >= 0 {
			return strings.Count(string(program[:i]), "\n") + 1
		}
	}
	return 0
}

// yamlErrorLine is the SKILL.md line of a frontmatter error the YAML
// library located ("line 3: ..."; the frontmatter starts on line 2).
func yamlErrorLine(err error) int {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n + 1
}

var yamlLine = lazyregexp.New(`line (\d+):`)

// replayExamples runs the skill on each recorded example, with the calls
// answered from the recording, and compares the result with the recorded
// one. The tools the example called must still be defined as when it was
// recorded (the manifest's hash of each tool's definition): a tool that
// changed upstream makes the example stale, whatever the replay gives.
func (w Workspace) replayExamples(name string, files map[string][]byte) []Problem {
	var out []Problem
	m, err := w.manifest()
	if err != nil {
		return []Problem{{Skill: name, Message: err.Error()}}
	}
	for _, p := range sortedKeys(files) {
		if !strings.HasPrefix(p, examplesDir+"/") || path.Ext(p) != ".json" {
			continue
		}
		fail := func(format string, args ...any) {
			out = append(out, Problem{Skill: name, Message: "example " + p + ": " + fmt.Sprintf(format, args...),
				File: SkillsDir + "/" + name + "/" + p, Line: lineOf(files[p], `  "result":`)})
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
