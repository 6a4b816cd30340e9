package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/lazyregexp"
	"github.com/mcpcode/mcpcode/internal/visible"
)

// Card is what a reviewer reads before deciding. Everything on it came
// from an agent or a server: Render shows every control and format
// character as an escape, and splits the program where JavaScript ends its
// lines.
type Card struct {
	Name        string          `json:"name"`
	Status      string          `json:"status"`
	Description string          `json:"description"`
	Rationale   string          `json:"rationale,omitempty"`
	ProposedBy  string          `json:"proposedBy,omitempty"`
	ProposedAt  string          `json:"proposedAt,omitempty"`
	Tools       []ToolUse       `json:"tools"`
	Dynamic     []string        `json:"dynamic,omitempty"`
	Skills      []string        `json:"skills,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	Write       bool            `json:"write"`
	// SHA256 is the review hash of what the card shows: the name, the
	// description and every file (program, schema, examples, others).
	// `skills approve NAME --sha256 HASH` approves exactly that.
	SHA256 string `json:"sha256"`
	// Changed is set when a proposal's program no longer matches the hash
	// recorded when it was proposed, or when an approved skill's files or
	// grant no longer match its approval (Problem says what changed).
	Changed bool   `json:"changed,omitempty"`
	Problem string `json:"problem,omitempty"`
	Program string `json:"program"`
	// Files are the skill's other files (not its program, input schema or
	// examples), in full.
	Files []CardFile `json:"files,omitempty"`
	// Examples are the recorded runs it carries.
	Examples []CardExample `json:"examples,omitempty"`
	// UpdatesApproved is set when approving replaces an approved skill.
	UpdatesApproved bool `json:"updatesApproved,omitempty"`
	// SinceApproved is what changed against the approved version, when
	// there is one: the card of a proposal that replaces an approved skill,
	// or of a skill compared with a git base (`skills diff`). It leads the
	// card.
	SinceApproved *Diff `json:"sinceApproved,omitempty"`
	// Approval is who approved an approved skill, when and at which
	// commit, as its SKILL.md records it.
	Approval *Approval `json:"approval,omitempty"`
	// TypeCheck says that the program type-checked when it was proposed,
	// and against which tree: as the proposal's record says, or, for an
	// approved skill (one laid out by `skills propose --git` too), as
	// SKILL.md records it for this program. nil when none is recorded.
	TypeCheck *TypeCheck `json:"typeCheck,omitempty"`
	// Approve is the command that approves what the card shows ("" for a
	// dismissed proposal).
	Approve string `json:"approve,omitempty"`
}

// CardFile is one file of a skill, in full.
type CardFile struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// CardExample is one recorded example: its input and result.
type CardExample struct {
	File   string          `json:"file"`
	Input  json.RawMessage `json:"input"`
	Result json.RawMessage `json:"result"`
	Calls  int             `json:"calls"`
	// Problem says why the example cannot be read.
	Problem string `json:"problem,omitempty"`
}

// Show builds the review card of a skill: a pending proposal, a dismissed
// one, or an approved skill. Showing the card of a pending proposal or an
// approved skill records its hash: `skills approve NAME` without --sha256
// approves that and nothing else. The card of a proposal that replaces an
// approved skill leads with what changed against it (SinceApproved).
func (w Workspace) Show(name string) (*Card, error) { return w.card(name, true) }

// card builds the review card of a skill; note records its hash as shown.
func (w Workspace) card(name string, note bool) (*Card, error) {
	if err := ValidateName(name); err != nil {
		return nil, err
	}
	if err := w.noSymlinkDirs(SkillsDir+"/"+proposalsDir, SkillsDir+"/"+dismissedDir, SkillsDir+"/"+name); err != nil {
		return nil, err
	}
	pending := isFile(filepath.Join(w.proposalDir(name), recordFile))
	approved := isFile(filepath.Join(w.approvedDir(name), skillMDFile))
	dismissed := isFile(filepath.Join(w.dismissedDir(name), recordFile))
	switch {
	case pending || (dismissed && !approved):
		dir, status := w.proposalDir(name), StatusPending
		if !pending {
			dir, status = w.dismissedDir(name), StatusDismissed
		}
		p, err := readProposal(dir)
		if err != nil {
			return nil, err
		}
		files, err := w.proposalFiles(dir, p)
		if err != nil {
			return nil, err
		}
		program, ok := files[programFile]
		if !ok {
			return nil, fmt.Errorf("the proposal %q has lost its program: propose it again", name)
		}
		c := &Card{Name: name, Status: status, Description: p.Description, Rationale: p.Rationale,
			ProposedBy: p.ProposedBy, ProposedAt: p.ProposedAt.Format("2006-01-02 15:04 MST"),
			Tools: p.Tools, Dynamic: p.Dynamic, Skills: p.Skills, InputSchema: p.InputSchema,
			Changed: hashOf(program) != p.SHA256, UpdatesApproved: approved && pending, TypeCheck: p.TypeCheck}
		c.fill(name, p.Description, files)
		c.SHA256 = proposalHash(c.SHA256, p)
		if c.Changed {
			// Show what is there now, analysed afresh, so nothing hides.
			if a, err := w.analyze(context.Background(), filepath.Join(dir, programFile), program, name); err == nil {
				c.Tools, c.Dynamic, c.Skills = a.tools, a.dynamic, a.skills
			}
		}
		if status == StatusPending {
			c.Approve = approveCommand(name, c.SHA256, c.needsWrite())
			if note {
				w.noteShown(name, c.SHA256)
			}
		}
		if c.UpdatesApproved {
			head := &skillVersion{description: p.Description, files: files, write: c.needsWrite(), tools: c.Tools}
			if base, err := w.approvedVersion(name); err == nil {
				c.SinceApproved = diffVersions(name, "the approved skills/"+name, base, head)
			}
		}
		return c, nil
	case approved:
		fm, body, err := w.readSkillMDBody(name)
		if err != nil {
			return nil, err
		}
		files, err := w.readFolder(SkillsDir + "/" + name)
		if err != nil {
			return nil, err
		}
		program, ok := files[programFile]
		if !ok {
			return nil, fmt.Errorf("skills/%s has no %s", name, programFile)
		}
		c := &Card{Name: name, Status: StatusApproved, Description: fm.Description, ProposedBy: fm.Metadata[metaProposedBy],
			Rationale: rationaleOf(body), Write: fm.Write(), InputSchema: files[schemaFile], TypeCheck: fm.TypeCheck(program)}
		c.fill(name, fm.Description, files)
		// Approving it again keeps why it exists and who proposed it.
		c.SHA256 = proposalHash(c.SHA256, &Proposal{Rationale: c.Rationale, ProposedBy: c.ProposedBy})
		if _, err := w.checkApproved(name, fm); err != nil {
			c.Changed, c.Problem = true, err.Error()
		}
		a, err := w.analyze(context.Background(), w.approvedEntry(name), program, name)
		if err != nil {
			return nil, fmt.Errorf("skills/%s does not bundle: %w", name, err)
		}
		c.Tools, c.Dynamic, c.Skills = a.tools, a.dynamic, a.skills
		c.Approve = approveCommand(name, c.SHA256, c.Write || c.needsWrite())
		rec := approvalOf(name, fm, files)
		c.Approval = &rec
		if note {
			w.noteShown(name, c.SHA256)
		}
		return c, nil
	}
	return nil, w.notPending(name)
}

// hashCovers says what the card's hash covers.
func (c *Card) hashCovers() string {
	return "the name, description, why, who proposed it and every file above"
}

// approvalInChange reports whether the card is of an approved skill
// compared with a git base (skills diff) whose approval record is not the
// base's: the change wrote it, and it names whoever ran `skills approve`
// on the branch as their git configuration names them, or whatever a hand
// edit put there. It is a claim of the change, not an approval by the
// person it names.
func (c *Card) approvalInChange() bool {
	d := c.SinceApproved
	if c.Status != StatusApproved || c.Approval == nil || d == nil {
		return false
	}
	b := d.BaseApproval
	return b == nil || b.By != c.Approval.By || b.At != c.Approval.At || b.Commit != c.Approval.Commit
}

// approvalInChangeNote says what an approval recorded in a change is.
const approvalInChangeNote = "a claim of this change, not a review: whoever ran `mcpcode skills approve` on the branch, as their git configuration names them; the review of this change is the approval"

// approvedVersion reads an approved skill as a diff compares it: its
// files, and the grant and tools its SKILL.md records.
func (w Workspace) approvedVersion(name string) (*skillVersion, error) {
	fm, err := w.readSkillMD(name)
	if err != nil {
		return nil, err
	}
	files, err := w.readFolder(SkillsDir + "/" + name)
	if err != nil {
		return nil, err
	}
	m, err := w.manifest()
	if err != nil {
		return nil, err
	}
	v := recordedVersion(name, fm, files, m.Tool)
	return v, nil
}

// recordedVersion is a skill as its SKILL.md records it: files, grant, the
// tools recorded at approval (known and read-only as the manifest lookup
// says), and the approval.
func recordedVersion(name string, fm *Frontmatter, files map[string][]byte, lookup toolLookup) *skillVersion {
	rec := approvalOf(name, fm, files)
	v := &skillVersion{description: fm.Description, files: files, write: fm.Write(), approval: &rec}
	for _, t := range fm.Tools() {
		server, tool, _ := strings.Cut(t, ".")
		use := ToolUse{Server: server, Tool: tool}
		if e, ok := lookup(server, tool); ok {
			use.Known, use.ReadOnly = true, e.Hints.IsReadOnly()
		}
		v.tools = append(v.tools, use)
	}
	if ok, _ := matchesApproval(name, fm, files); !ok {
		v.problem = "it does not match its own approval (" + changes(files, fm) + ")"
	}
	return v
}

// toolLookup finds a tool in the generated tree (the manifest).
type toolLookup func(server, tool string) (*generator.ToolEntry, bool)

// fill sets what the card shows of the files, and their review hash.
func (c *Card) fill(name, description string, files map[string][]byte) {
	c.SHA256 = reviewHash(name, description, files)
	c.Program = string(files[programFile])
	for _, p := range sortedKeys(files) {
		switch {
		case p == programFile || p == schemaFile:
		case strings.HasPrefix(p, examplesDir+"/") && path.Ext(p) == ".json":
			c.Examples = append(c.Examples, cardExample(p, files[p]))
		default:
			c.Files = append(c.Files, CardFile{Path: p, Content: string(files[p])})
		}
	}
}

func cardExample(p string, data []byte) CardExample {
	ex := CardExample{File: p}
	rec, err := ParseRecording(data)
	if err != nil {
		ex.Problem = err.Error()
		return ex
	}
	ex.Input, ex.Result, ex.Calls = rec.Input, rec.Result, len(rec.Calls)
	if len(ex.Input) == 0 {
		ex.Input = json.RawMessage("null")
	}
	return ex
}

func (c *Card) needsWrite() bool {
	for _, t := range c.Tools {
		if t.Known && !t.ReadOnly {
			return true
		}
	}
	return false
}

// approveCommand is the exact command that approves what a card shows.
func approveCommand(name, review string, write bool) string {
	cmd := "mcpcode skills approve " + name + " --sha256 " + review
	if write {
		cmd += " --allow-write"
	}
	return cmd
}

// approvedEntry is an approved skill's program file.
func (w Workspace) approvedEntry(name string) string {
	return filepath.Join(w.approvedDir(name), programFile)
}

// Render writes the card as text for a terminal: every character that
// came from an agent, a program or a server is shown visibly (package
// visible), and the program is split where JavaScript ends its lines.
func (c *Card) Render() string {
	var b strings.Builder
	rule := strings.Repeat("─", 72)
	fmt.Fprintf(&b, "%s\nSkill %q — %s\n%s\n", rule, c.Name, strings.ToUpper(c.Status), rule)
	switch c.Status {
	case StatusApproved:
		access := "read-only"
		if c.Write {
			access = "GRANTED WRITE by a person"
		}
		fmt.Fprintf(&b, "Approved skill (proposed by %s). It is %s and runs with the caller's permissions.\n", visible.Line(dash(c.ProposedBy)), access)
		switch {
		case c.approvalInChange():
			fmt.Fprintf(&b, "Approval recorded in this change: %s (%s).\n", visible.Line(c.Approval.String()), approvalInChangeNote)
		case c.Approval != nil:
			fmt.Fprintf(&b, "Approved by %s.\n", visible.Line(c.Approval.String()))
		}
	default:
		fmt.Fprintf(&b, "Proposed by %s on %s. A proposal runs nothing and grants nothing.\n", visible.Line(dash(c.ProposedBy)), c.ProposedAt)
		b.WriteString("If approved, it becomes a read-only skill that runs with the caller's permissions.\n")
		if c.UpdatesApproved {
			fmt.Fprintf(&b, "Approving it REPLACES the approved skill %q.\n", c.Name)
		}
	}
	switch {
	case c.Changed && c.Status == StatusApproved:
		fmt.Fprintf(&b, "\n!! It does NOT match its approval, so it cannot run: %s\n!! What is shown below is the skill as it is now.\n", visible.Line(c.Problem))
	case c.Changed:
		b.WriteString("\n!! The program CHANGED since it was recorded (its hash no longer matches).\n!! Approval will be refused; what is shown below is the program as it is now.\n")
	}
	if c.SinceApproved != nil {
		renderDiffText(&b, c.SinceApproved)
	}
	if c.Rationale != "" {
		fmt.Fprintf(&b, "\nWhy:\n%s\n", indent(visible.Text(wrap(c.Rationale, 70)), "  "))
	}
	fmt.Fprintf(&b, "\nDoes:\n%s\n", indent(visible.Text(wrap(c.Description, 70)), "  "))
	b.WriteString("\nTools it calls:\n")
	if len(c.Tools) == 0 && len(c.Dynamic) == 0 {
		b.WriteString("  none\n")
	}
	for _, t := range c.Tools {
		via := ""
		if t.Via != "" {
			via = fmt.Sprintf("  (through skill %s)", t.Via)
		}
		status := "read-only"
		switch {
		case !t.Known:
			status = "UNKNOWN: not in servers/ (approval refused)"
		case !t.ReadOnly:
			status = "NOT READ-ONLY: needs --allow-write"
		}
		fmt.Fprintf(&b, "  %-40s %s%s\n", visible.Line(t.String()), status, via)
	}
	for _, d := range c.Dynamic {
		why := "computed tool name or the call function passed around"
		if strings.HasPrefix(d, "analysis incomplete") {
			d, why = strings.TrimPrefix(d, "analysis incomplete: "), "the analysis could not look inside (nesting too deep)"
		}
		fmt.Fprintf(&b, "  %-40s UNVERIFIABLE: %s; the runtime refuses every tool not listed above\n", visible.Line(d), why)
	}
	if len(c.Skills) > 0 {
		fmt.Fprintf(&b, "\nSkills it uses: %s\n", strings.Join(c.Skills, ", "))
	}
	b.WriteString("\nType check: " + c.typeCheckFact().text(visible.Line) + "\n")
	b.WriteString("\nInput schema:\n")
	if len(bytes.TrimSpace(c.InputSchema)) == 0 {
		b.WriteString("  none given\n")
	} else {
		var pretty bytes.Buffer
		if jsonIndent(&pretty, c.InputSchema) != nil {
			pretty.Reset()
			pretty.Write(c.InputSchema)
		}
		b.WriteString(indent(visible.Text(strings.TrimRight(pretty.String(), "\n")), "  ") + "\n")
	}
	if len(c.Examples) > 0 {
		fmt.Fprintf(&b, "\nRecorded examples (skills verify replays them):\n")
		for _, ex := range c.Examples {
			if ex.Problem != "" {
				fmt.Fprintf(&b, "  %s: DAMAGED: %s\n", visible.Line(ex.File), visible.Line(ex.Problem))
				continue
			}
			fmt.Fprintf(&b, "  %s (%d tool calls)\n    input:  %s\n    result: %s\n", visible.Line(ex.File), ex.Calls,
				visible.Line(clip(string(ex.Input), 300)), visible.Line(clip(string(ex.Result), 600)))
		}
	}
	renderSource(&b, "Program (index.ts, ", c.Program)
	for _, f := range c.Files {
		renderSource(&b, "File "+visible.Line(f.Path)+" (", f.Content)
	}
	b.WriteString(rule + "\n")
	fmt.Fprintf(&b, "sha256 %s (%s)\n", c.SHA256, c.hashCovers())
	switch {
	case c.Status == StatusPending:
		fmt.Fprintf(&b, "Approve: %s\nDismiss: mcpcode skills dismiss %s\n", c.Approve, c.Name)
	case c.Status == StatusApproved && c.Changed:
		fmt.Fprintf(&b, "Approve it again, as it is now: %s\n", c.Approve)
	case c.Status == StatusApproved:
		fmt.Fprintf(&b, "Approve it again (to change its grant): %s\n", c.Approve)
	}
	return b.String()
}

// renderDiffText writes what changed against the approved version, for
// a terminal.
func renderDiffText(b *strings.Builder, d *Diff) {
	base := d.Base
	if d.BaseApproval != nil {
		base += ", approved by " + d.BaseApproval.String()
	}
	fmt.Fprintf(b, "\nWHAT CHANGED since the approved version (%s):\n", visible.Line(base))
	for _, l := range diffFacts(d) {
		prefix := "  "
		if l.loud {
			prefix = "  !! "
		}
		fmt.Fprintf(b, "%s%s\n", prefix, l.text(visible.Line))
		for _, sub := range l.sub {
			fmt.Fprintf(b, "      %s\n", sub.text(visible.Line))
		}
	}
	for _, f := range d.Files {
		if len(f.Lines) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n  Diff of %s:\n", visible.Line(f.Path))
		for _, l := range f.Lines {
			for _, piece := range visible.WrapLine(l, MarkdownWidth, diffContinuation(l)) {
				fmt.Fprintf(b, "    %s\n", piece)
			}
		}
	}
}

// fact is one line of the summary of a Diff: parts of fixed text and of
// untrusted values, joined; a renderer escapes each value its own way
// (visible.Line on a terminal, a code span in Markdown).
type fact struct {
	parts []factPart
	loud  bool   // a change a reviewer must not miss
	sub   []fact // details, one a line
}

type factPart struct {
	s     string
	value bool // untrusted: escape it
}

func (f fact) text(escape func(string) string) string {
	var b strings.Builder
	for _, p := range f.parts {
		if p.value {
			b.WriteString(escape(p.s))
		} else {
			b.WriteString(p.s)
		}
	}
	return b.String()
}

func say(s string) factPart   { return factPart{s: s} }
func value(s string) factPart { return factPart{s: s, value: true} }

// maxFactValue bounds a value in the summary (a schema value, an example's
// result); the files' diffs show everything.
const maxFactValue = 300

// diffFacts summarises a Diff, the loud facts first.
func diffFacts(d *Diff) []fact {
	var out []fact
	switch d.Status {
	case DiffAdded:
		if r := d.Revoked; r != nil {
			f := fact{loud: true, parts: []factPart{say("It was REVOKED at the base")}}
			if r.By != "" {
				f.parts = append(f.parts, say(" by "), value(r.By))
			}
			if at := (Approval{At: r.At}).when(); at != "" {
				f.parts = append(f.parts, say(" on "), value(at))
			}
			if r.Reason != "" {
				f.parts = append(f.parts, say(", because: "), value(r.Reason))
			}
			f.parts = append(f.parts, say(". This change brings it back"))
			if d.RevokedApproval {
				f.parts = append(f.parts, say(" WITH THE APPROVAL THAT WAS REVOKED: merged, it runs again without a new approval"))
			}
			return []fact{f, {parts: []factPart{say("There is no approved version to compare with.")}}}
		}
		return []fact{{parts: []factPart{say("A NEW skill: there is no approved version to compare with.")}}}
	case DiffRemoved:
		return []fact{{loud: true, parts: []factPart{say("REMOVED: the approved skill is gone (revoked). Programs and skills that import it fail; hosts no longer list it.")}}}
	}
	if d.BaseProblem != "" {
		out = append(out, fact{loud: true, parts: []factPart{say("The approved version itself does not match its approval: "), value(d.BaseProblem)}})
	}
	if g := d.Grant; g != nil {
		f := fact{parts: []factPart{say("Access: " + g.Before + " -> " + strings.ToUpper(g.After))}}
		if g.Widened {
			f.loud = true
			f.parts = []factPart{say("ACCESS WIDENED: read-only -> WRITE. A person must grant it (--allow-write).")}
		}
		for i, t := range g.WriteTools {
			if i == 0 {
				f.parts = append(f.parts, say(" Not read-only: "))
			} else {
				f.parts = append(f.parts, say(", "))
			}
			f.parts = append(f.parts, value(t.String()))
		}
		out = append(out, f)
	}
	for _, t := range d.ToolsAdded {
		f := fact{parts: []factPart{say("Tool added: "), value(t.String()), say(" (" + toolStatus(t) + ")")}}
		f.loud = t.Known && !t.ReadOnly || !t.Known
		out = append(out, f)
	}
	for _, t := range d.ToolsRemoved {
		out = append(out, fact{parts: []factPart{say("Tool removed: "), value(t.String())}})
	}
	if d.Description != nil {
		out = append(out, fact{parts: []factPart{say("Description changed, was: "), value(clipRunes(d.Description.Before, maxFactValue))},
			sub: []fact{{parts: []factPart{say("now: "), value(clipRunes(d.Description.After, maxFactValue))}}}})
	}
	if len(d.Schema) > 0 {
		f := fact{parts: []factPart{say(fmt.Sprintf("Input schema: %d change(s)", len(d.Schema)))}, sub: valueFacts(d.Schema)}
		out = append(out, f)
	}
	for _, ex := range d.Examples {
		f := fact{parts: []factPart{say("Example "), value(ex.File), say(" " + ex.Status)}}
		switch ex.Status {
		case DiffAdded:
			f.sub = []fact{{parts: []factPart{say("input: "), value(clipRunes(string(ex.InputAfter), maxFactValue)), say(" result: "), value(clipRunes(string(ex.ResultAfter), maxFactValue))}}}
		case DiffChanged:
			switch {
			case ex.ResultChanged:
				f.loud = true
				f.parts = append(f.parts, say(": its RECORDED RESULT CHANGED"))
			case ex.InputChanged:
				f.parts = append(f.parts, say(": its input changed"))
			default:
				f.parts = append(f.parts, say(": its recorded tool calls changed"))
			}
			if ex.InputChanged {
				f.sub = append(f.sub, fact{parts: []factPart{say("input was: "), value(clipRunes(string(ex.InputBefore), maxFactValue)), say(" now: "), value(clipRunes(string(ex.InputAfter), maxFactValue))}})
			}
			if ex.ResultChanged {
				for _, sub := range valueFacts(ex.Result) {
					sub.parts = append([]factPart{say("result ")}, sub.parts...)
					f.sub = append(f.sub, sub)
				}
			}
		}
		out = append(out, f)
	}
	if len(d.Files) > 0 {
		f := fact{parts: []factPart{say("Files: ")}}
		for i, fd := range d.Files {
			if i > 0 {
				f.parts = append(f.parts, say(", "))
			}
			f.parts = append(f.parts, value(fd.Path), say(fmt.Sprintf(" %s (+%d -%d)", fd.Status, fd.Added, fd.Removed)))
			if fd.Binary {
				f.parts = append(f.parts, say(" (holds a NUL or a byte that is not UTF-8: shown escaped)"))
			}
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		out = append(out, fact{parts: []factPart{say("Nothing: the files, description and grant are as approved.")}})
	}
	slices.SortStableFunc(out, func(a, b fact) int {
		switch {
		case a.loud == b.loud:
			return 0
		case a.loud:
			return -1
		}
		return 1
	})
	return out
}

// valueFacts are the lines of a list of value changes.
func valueFacts(changes []ValueChange) []fact {
	var out []fact
	for _, vc := range changes {
		f := fact{parts: []factPart{value(vc.Path), say(": ")}}
		switch {
		case vc.Before == nil:
			f.parts = append(f.parts, say("added "), value(clipRunes(string(vc.After), maxFactValue)))
		case vc.After == nil:
			f.parts = append(f.parts, say("removed (was "), value(clipRunes(string(vc.Before), maxFactValue)), say(")"))
		default:
			f.parts = append(f.parts, value(clipRunes(string(vc.Before), maxFactValue)), say(" -> "), value(clipRunes(string(vc.After), maxFactValue)))
		}
		out = append(out, f)
	}
	return out
}

// toolStatus says what a tool is, for a reviewer.
func toolStatus(t ToolUse) string {
	switch {
	case !t.Known:
		return "UNKNOWN: not in servers/"
	case !t.ReadOnly:
		return "NOT READ-ONLY: may write"
	}
	return "read-only"
}

// clipRunes cuts s to at most n runes, marking the cut.
func clipRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// diffContinuation starts the pieces of a diff line broken because it is
// long: its +/- marker, so that the rest of an added line reads as added.
func diffContinuation(l string) string {
	if l != "" && strings.ContainsRune("+- ", rune(l[0])) {
		return l[:1] + "↪ "
	}
	return "↪ "
}

// renderSource writes a file's lines, numbered, split where JavaScript
// ends a line and broken when longer than MarkdownWidth (the pieces marked
// ↪), so that nothing hides far to the right; a line that ends otherwise
// than with a newline says so.
func renderSource(b *strings.Builder, title, src string) {
	fmt.Fprintf(b, "\n%s%d lines, %d bytes):\n", title, len(visible.Lines(src)), len(src))
	n := 0
	for _, l := range visible.WrappedLines(src, MarkdownWidth) {
		prefix := "   ↪ │ "
		if !l.Continued {
			n++
			prefix = fmt.Sprintf("%4d │ ", n)
		}
		end := ""
		if l.End != "" {
			end = "  ⏎ (line ends with " + l.End + ")"
		}
		fmt.Fprintf(b, "%s%s%s\n", prefix, l.Text, end)
	}
}

// shortRunes is the first n runes of s, like shortHash, for a hash that
// came from a file (it may be anything).
func shortRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}

// wrap folds text at width, keeping paragraphs.
func wrap(s string, width int) string {
	var out []string
	for _, para := range strings.Split(strings.TrimSpace(s), "\n") {
		var line strings.Builder
		for _, word := range strings.Fields(para) {
			if line.Len() > 0 && line.Len()+1+len(word) > width {
				out = append(out, line.String())
				line.Reset()
			}
			if line.Len() > 0 {
				line.WriteByte(' ')
			}
			line.WriteString(word)
		}
		out = append(out, line.String())
	}
	return strings.Join(out, "\n")
}

// jsonIndent indents JSON for people, keeping arrays of plain values (an
// enum, a required list) on one line.
func jsonIndent(buf *bytes.Buffer, data []byte) error {
	var tmp bytes.Buffer
	if err := json.Indent(&tmp, bytes.TrimSpace(data), "", "  "); err != nil {
		return err
	}
	buf.Write(scalarArray.ReplaceAllFunc(tmp.Bytes(), func(m []byte) []byte {
		items := scalarItem.FindAll(m, -1)
		var b bytes.Buffer
		b.WriteByte('[')
		for i, it := range items {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(bytes.TrimSuffix(bytes.TrimSpace(it), []byte(",")))
		}
		b.WriteByte(']')
		return b.Bytes()
	}))
	buf.WriteByte('\n')
	return nil
}

var (
	scalarValue = `(?:"(?:[^"\\\n]|\\.)*"|-?[0-9][0-9.eE+-]*|true|false|null)`
	scalarArray = lazyregexp.New(`\[\n(?:[ ]*` + scalarValue + `,?\n)+[ ]*\]`)
	scalarItem  = lazyregexp.New(`[ ]*` + scalarValue + `,?\n`)
)

// Render writes the changed skills' cards for a terminal: a summary line
// each, then each card (leading with what changed); "" when none changed.
func (d *GitDiff) Render() string {
	if len(d.Skills) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Skills changed against %s (commit %s):\n", visible.Line(d.Base), shortHash(d.BaseCommit))
	for _, ch := range d.Skills {
		note := ch.Diff.Status
		if ch.Diff.Grant != nil && ch.Diff.Grant.Widened {
			note += ", ASKS FOR WRITE ACCESS"
		}
		if ch.Diff.Revoked != nil {
			note += ", REVOKED AT THE BASE: brought back"
		}
		if ch.Diff.Status == DiffAdded && ch.Card != nil && ch.Card.Write {
			note += ", WITH WRITE ACCESS"
		}
		fmt.Fprintf(&b, "  %-30s %s\n", visible.Line(ch.Diff.Name), note)
	}
	for _, ch := range d.Skills {
		b.WriteString("\n")
		switch {
		case ch.Card != nil:
			b.WriteString(ch.Card.Render())
		default:
			fmt.Fprintf(&b, "Skill %q — %s\n", visible.Line(ch.Diff.Name), strings.ToUpper(ch.Diff.Status))
			if ch.Problem != "" {
				fmt.Fprintf(&b, "!! Its card cannot be built: %s\n", visible.Line(ch.Problem))
			}
			renderDiffText(&b, ch.Diff)
		}
	}
	return b.String()
}

// typeCheckFact says on a card whether the program type-checked when it
// was proposed; the compiler's name and the tree version are untrusted
// (a compiler's output, or SKILL.md's word), so each renderer escapes
// them its way.
func (c *Card) typeCheckFact() fact {
	t := c.TypeCheck
	if t == nil {
		if c.Status == StatusApproved {
			return fact{parts: []factPart{say("none recorded in SKILL.md for this program.")}}
		}
		return fact{parts: []factPart{say("none recorded (no TypeScript compiler was found when it was proposed).")}}
	}
	var f fact
	if c.Status == StatusApproved {
		f.parts = append(f.parts, say("SKILL.md records that "))
	}
	f.parts = append(f.parts, say("the program type-checked with "), value(clipRunes(t.Compiler, maxRecordText)), say(" against "))
	if t.Tree == "" {
		f.parts = append(f.parts, say("a workspace with no generated tree"))
	} else {
		f.parts = append(f.parts, say("the tree version "), value(shortRunes(t.Tree, 12)), say(" (SHA-256 of .mcpcode/manifest.json)"))
	}
	f.parts = append(f.parts, say(" when it was proposed."))
	return f
}
