package skills

import (
	"bytes"
	"encoding/json"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Diff is what changed in a skill against the version a person approved:
// what a reviewer reads first when asked to approve it again. Every text
// in it came from the skill's files, the base's as much as the new ones:
// renderers escape it all.
type Diff struct {
	Name string `json:"name"`
	// Status is DiffAdded (no approved version at the base), DiffRemoved
	// (the approved skill is gone: revoked or deleted) or DiffChanged.
	Status string `json:"status"`
	// Base says what the approved version is: "the approved skills/NAME",
	// or a git revision ("origin/main at 1a2b3c4d5e6f").
	Base string `json:"base"`
	// BaseApproval is who approved the base version, as its SKILL.md
	// records it.
	BaseApproval *Approval `json:"baseApproval,omitempty"`
	// BaseProblem is set when the base version itself does not match its
	// approval: the comparison is then with what is there, not with what
	// was approved.
	BaseProblem string      `json:"baseProblem,omitempty"`
	Description *TextChange `json:"description,omitempty"`
	// Grant is set when the access the skill has (or needs) changes.
	Grant        *GrantChange `json:"grant,omitempty"`
	ToolsAdded   []ToolUse    `json:"toolsAdded,omitempty"`
	ToolsRemoved []ToolUse    `json:"toolsRemoved,omitempty"`
	// Schema lists the changes of the input schema, by JSON pointer.
	Schema []ValueChange `json:"schema,omitempty"`
	// Examples lists the recorded examples added, removed, or whose input
	// or result changed.
	Examples []ExampleChange `json:"examples,omitempty"`
	// Files are the files that differ, with their line diffs.
	Files []FileDiff `json:"files,omitempty"`
	// Revoked is set for a skill added against a base where a skill of
	// that name was revoked (skills diff): this change brings it back.
	// RevokedApproval says that it carries the very approval that was
	// revoked (its folder moved back): merged, it would run again without
	// anyone approving it anew.
	Revoked         *Revocation `json:"revoked,omitempty"`
	RevokedApproval bool        `json:"revokedApproval,omitempty"`
}

// Statuses of a Diff, a FileDiff and an ExampleChange.
const (
	DiffAdded   = "added"
	DiffRemoved = "removed"
	DiffChanged = "changed"
)

// Empty reports whether nothing differs.
func (d *Diff) Empty() bool {
	return d.Status == DiffChanged && d.Description == nil && d.Grant == nil && len(d.ToolsAdded) == 0 && len(d.ToolsRemoved) == 0 &&
		len(d.Schema) == 0 && len(d.Examples) == 0 && len(d.Files) == 0
}

// TextChange is a text before and after.
type TextChange struct {
	Before string `json:"before"`
	After  string `json:"after"`
}

// Access levels of a skill.
const (
	AccessReadOnly = "read-only"
	AccessWrite    = "write"
)

// GrantChange is the skill's access before and after. Widened is set when
// it goes from read-only to write: the change a reviewer must not miss.
type GrantChange struct {
	Before  string `json:"before"`
	After   string `json:"after"`
	Widened bool   `json:"widened"`
	// WriteTools are the tools that are not read-only that the new version
	// calls.
	WriteTools []ToolUse `json:"writeTools,omitempty"`
}

// ValueChange is one change of a JSON value (an input schema, an
// example's result) at a JSON pointer: an added value has no Before, a
// removed one no After.
type ValueChange struct {
	Path   string          `json:"path"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
}

// ExampleChange is a recorded example that was added, removed, or whose
// input or result changed.
type ExampleChange struct {
	File   string `json:"file"`
	Status string `json:"status"`
	// InputChanged and ResultChanged say what of a changed example
	// differs; the values are the canonical JSON before and after.
	InputChanged  bool            `json:"inputChanged,omitempty"`
	ResultChanged bool            `json:"resultChanged,omitempty"`
	InputBefore   json.RawMessage `json:"inputBefore,omitempty"`
	InputAfter    json.RawMessage `json:"inputAfter,omitempty"`
	ResultBefore  json.RawMessage `json:"resultBefore,omitempty"`
	ResultAfter   json.RawMessage `json:"resultAfter,omitempty"`
	// Result lists where the result changed, by JSON pointer.
	Result []ValueChange `json:"result,omitempty"`
}

// FileDiff is one file that differs, as a unified diff: each line starts
// with ' ', '-' or '+', or is a hunk header "@@ -a,b +c,d @@". Lines are
// the files' own, unescaped.
type FileDiff struct {
	Path   string `json:"path"`
	Status string `json:"status"`
	// Binary is set for a file that is not UTF-8 text (a byte that is not
	// UTF-8, or a NUL). Its lines are diffed all the same: a program that
	// bundles may hold such a byte in a comment, and a reviewer must see
	// what changed in it (renderers escape every line).
	Binary bool     `json:"binary,omitempty"`
	Lines  []string `json:"lines,omitempty"`
	// Added and Removed count the lines.
	Added   int `json:"added"`
	Removed int `json:"removed"`
}

// skillVersion is one version of a skill, as a diff compares it.
type skillVersion struct {
	description string
	files       map[string][]byte // every file but SKILL.md
	write       bool              // write granted, or needed to approve it
	tools       []ToolUse
	approval    *Approval
	problem     string // it does not match its own approval
	// skillMD is its SKILL.md, when the diff should show how it changed
	// (a version in git); nil for a proposal, which has none yet.
	skillMD []byte
}

// diffVersions compares the approved version of a skill (base; nil when
// there is none) with a new one (head; nil when it is gone).
func diffVersions(name, baseName string, base, head *skillVersion) *Diff {
	d := &Diff{Name: name, Status: DiffChanged, Base: baseName}
	switch {
	case base == nil:
		d.Status = DiffAdded
		base = &skillVersion{}
	case head == nil:
		d.Status = DiffRemoved
		head = &skillVersion{}
	}
	if base.approval != nil {
		d.BaseApproval = base.approval
	}
	d.BaseProblem = base.problem
	if d.Status != DiffChanged {
		return d
	}
	if strings.TrimSpace(base.description) != strings.TrimSpace(head.description) {
		d.Description = &TextChange{Before: strings.TrimSpace(base.description), After: strings.TrimSpace(head.description)}
	}
	if base.write != head.write {
		d.Grant = &GrantChange{Before: access(base.write), After: access(head.write), Widened: !base.write && head.write, WriteTools: writeTools(head.tools)}
	}
	was, now := toolSet(base.tools), toolSet(head.tools)
	for _, t := range uniqueTools(head.tools) {
		if !was[t.String()] {
			d.ToolsAdded = append(d.ToolsAdded, t)
		}
	}
	for _, t := range uniqueTools(base.tools) {
		if !now[t.String()] {
			d.ToolsRemoved = append(d.ToolsRemoved, t)
		}
	}
	d.Schema = valueChanges(base.files[schemaFile], head.files[schemaFile])
	d.Examples = exampleChanges(base.files, head.files)
	d.Files = fileDiffs(base.files, head.files)
	if base.skillMD != nil && head.skillMD != nil && !bytes.Equal(base.skillMD, head.skillMD) {
		d.Files = append(d.Files, fileDiffs(map[string][]byte{skillMDFile: base.skillMD}, map[string][]byte{skillMDFile: head.skillMD})...)
	}
	return d
}

func access(write bool) string {
	if write {
		return AccessWrite
	}
	return AccessReadOnly
}

func writeTools(tools []ToolUse) []ToolUse {
	var out []ToolUse
	for _, t := range uniqueTools(tools) {
		if t.Known && !t.ReadOnly {
			out = append(out, t)
		}
	}
	return out
}

func toolSet(tools []ToolUse) map[string]bool {
	out := map[string]bool{}
	for _, t := range tools {
		out[t.String()] = true
	}
	return out
}

// uniqueTools drops repeats of a tool (called through several skills).
func uniqueTools(tools []ToolUse) []ToolUse {
	seen := map[string]bool{}
	var out []ToolUse
	for _, t := range tools {
		if !seen[t.String()] {
			seen[t.String()] = true
			t.Via = ""
			out = append(out, t)
		}
	}
	return out
}

// maxValueChanges bounds a list of value changes.
const maxValueChanges = 200

// valueChanges compares two JSON documents value by value.
func valueChanges(before, after []byte) []ValueChange {
	var a, b any
	if len(bytes.TrimSpace(before)) > 0 && json.Unmarshal(before, &a) != nil {
		a = string(before)
	}
	if len(bytes.TrimSpace(after)) > 0 && json.Unmarshal(after, &b) != nil {
		b = string(after)
	}
	var out []ValueChange
	compareJSON("", a, b, &out)
	return out
}

func compareJSON(ptr string, a, b any, out *[]ValueChange) {
	if len(*out) >= maxValueChanges {
		return
	}
	if aa, ok := a.([]any); ok {
		if ba, ok := b.([]any); ok && len(aa) == len(ba) {
			for i := range aa {
				compareJSON(ptr+"/"+strconv.Itoa(i), aa[i], ba[i], out)
			}
			return
		}
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			compareJSON(ptr+"/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(k), am[k], bm[k], out)
		}
		return
	}
	ca, cb := canonicalValue(a), canonicalValue(b)
	if !bytes.Equal(ca, cb) {
		if ptr == "" {
			ptr = "/"
		}
		*out = append(*out, ValueChange{Path: ptr, Before: ca, After: cb})
	}
}

// canonicalValue is v as compact JSON, or nil for nothing.
func canonicalValue(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	return compactJSON(v)
}

// exampleChanges compares the recorded examples of two versions.
func exampleChanges(base, head map[string][]byte) []ExampleChange {
	var out []ExampleChange
	for _, p := range sortedKeys(unionKeys(base, head)) {
		if !strings.HasPrefix(p, examplesDir+"/") || path.Ext(p) != ".json" {
			continue
		}
		b, inBase := base[p]
		h, inHead := head[p]
		switch {
		case !inBase:
			ex := ExampleChange{File: p, Status: DiffAdded}
			ex.InputAfter, ex.ResultAfter = exampleValues(h)
			out = append(out, ex)
		case !inHead:
			ex := ExampleChange{File: p, Status: DiffRemoved}
			ex.InputBefore, ex.ResultBefore = exampleValues(b)
			out = append(out, ex)
		case !bytes.Equal(b, h):
			ex := ExampleChange{File: p, Status: DiffChanged}
			ex.InputBefore, ex.ResultBefore = exampleValues(b)
			ex.InputAfter, ex.ResultAfter = exampleValues(h)
			ex.InputChanged = !bytes.Equal(ex.InputBefore, ex.InputAfter)
			ex.ResultChanged = !bytes.Equal(ex.ResultBefore, ex.ResultAfter)
			if ex.ResultChanged {
				ex.Result = valueChanges(ex.ResultBefore, ex.ResultAfter)
			}
			out = append(out, ex)
		}
	}
	return out
}

// exampleValues are a recorded example's input and result as canonical
// JSON; a recording that cannot be read gives its text as a JSON string.
func exampleValues(data []byte) (input, result json.RawMessage) {
	rec, err := ParseRecording(data)
	if err != nil {
		s, _ := json.Marshal("unreadable recording: " + err.Error())
		return s, s
	}
	input = rec.Input
	if len(bytes.TrimSpace(input)) == 0 {
		input = json.RawMessage("null")
	}
	return canonicalJSON(input), canonicalJSON(rec.Result)
}

func unionKeys(a, b map[string][]byte) map[string][]byte {
	out := make(map[string][]byte, len(a)+len(b))
	for k := range a {
		out[k] = nil
	}
	for k := range b {
		out[k] = nil
	}
	return out
}

// fileDiffs compares the files of two versions, line by line.
func fileDiffs(base, head map[string][]byte) []FileDiff {
	var out []FileDiff
	for _, p := range sortedKeys(unionKeys(base, head)) {
		b, inBase := base[p]
		h, inHead := head[p]
		if inBase && inHead && bytes.Equal(b, h) {
			continue
		}
		fd := FileDiff{Path: p, Status: DiffChanged}
		switch {
		case !inBase:
			fd.Status = DiffAdded
		case !inHead:
			fd.Status = DiffRemoved
		}
		fd.Binary = !utf8.Valid(b) || !utf8.Valid(h) || bytes.IndexByte(b, 0) >= 0 || bytes.IndexByte(h, 0) >= 0
		fd.Lines, fd.Added, fd.Removed = unifiedDiff(splitLines(string(b)), splitLines(string(h)), 3)
		out = append(out, fd)
	}
	return out
}

// splitLines splits text into lines at "\n", without the newlines; a
// final newline ends the last line.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
