package skills

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/mcpcode/mcpcode/internal/visible"
)

// The review card as Markdown, for a pull request's description or
// comment. It holds what the terminal card holds, escaped the same way
// (package visible), and more strictly: every text that came from an agent,
// a program, a server or a skill's files (the base's too) is in a code
// span or a fenced code block, where a code host interprets nothing (no
// HTML, links, images, @mentions, headings or tables), with delimiters it
// cannot close. Headings, emphasis and the notes are the card's own. No
// part of the card is folded away (no <details>): what is there shows.

// MarkdownWidth is the longest line of a code block in the Markdown card:
// longer lines are broken, the rest marked with "↪", so that nothing
// hides far to the right.
const MarkdownWidth = 100

// MarkdownOptions shape the Markdown card.
type MarkdownOptions struct {
	// MaxLines bounds the lines shown of each program, file and diff
	// (0: all); the card says how many were left out and where to read
	// them. Renderers that must fit a size (a code host's comment limit)
	// lower it until the card fits.
	MaxLines int
	// MaxItems bounds the entries of each list (tools, schema changes,
	// examples; 0: all).
	MaxItems int
	// Heading is the level of the card's title (default 2: "##").
	Heading int
}

// Markdown renders the card as GitHub-flavoured Markdown.
func (c *Card) Markdown(o MarkdownOptions) string {
	if o.Heading <= 0 {
		o.Heading = 2
	}
	h := func(level int) string { return strings.Repeat("#", min(6, o.Heading+level)) + " " }
	var b strings.Builder
	status := strings.ToUpper(c.Status)
	if c.Changed {
		status += ", CHANGED SINCE " + map[bool]string{true: "APPROVAL", false: "PROPOSED"}[c.Status == StatusApproved]
	}
	fmt.Fprintf(&b, "%sSkill %s (%s)\n\n", h(0), visible.CodeSpan(c.Name), status)

	// The loud notes first.
	if d := c.SinceApproved; d != nil && d.Grant != nil && d.Grant.Widened {
		b.WriteString("> [!CAUTION]\n> **This change asks for WRITE access.** The approved version is read-only; this one calls tools that are not read-only")
		if len(d.Grant.WriteTools) > 0 {
			b.WriteString(" (")
			for i, t := range d.Grant.WriteTools {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(visible.CodeSpan(t.String()))
			}
			b.WriteString(")")
		}
		b.WriteString(". Approving it grants write.\n\n")
	}
	switch {
	case c.Changed && c.Status == StatusApproved:
		fmt.Fprintf(&b, "> [!WARNING]\n> **It does not match its approval, so it cannot run:** %s\n\n", visible.CodeSpan(clipRunes(c.Problem, 2*maxFactValue)))
	case c.Changed:
		b.WriteString("> [!WARNING]\n> **The program changed since it was recorded** (its hash no longer matches): approval will be refused. What is shown is the program as it is now.\n\n")
	}

	if d := c.SinceApproved; d != nil {
		markdownDiff(&b, d, h, o)
	}

	fmt.Fprintf(&b, "%sReview card\n\n", h(1))
	switch c.Status {
	case StatusApproved:
		access := "read-only"
		if c.Write {
			access = "**WRITE granted by a person**"
		}
		fmt.Fprintf(&b, "- **Status:** approved; %s; runs with the caller's permissions\n", access)
		switch {
		case c.approvalInChange():
			fmt.Fprintf(&b, "- **Approval recorded in this change:** %s (%s)\n", markdownApproval(*c.Approval), approvalInChangeNote)
		case c.Approval != nil:
			fmt.Fprintf(&b, "- **Approved by:** %s\n", markdownApproval(*c.Approval))
		}
		fmt.Fprintf(&b, "- **Proposed by:** %s\n", visible.CodeSpan(dash(c.ProposedBy)))
	default:
		fmt.Fprintf(&b, "- **Status:** %s proposal: it runs nothing and grants nothing; if approved, it is a read-only skill that runs with the caller's permissions\n", c.Status)
		fmt.Fprintf(&b, "- **Proposed by:** %s on %s\n", visible.CodeSpan(dash(c.ProposedBy)), visible.CodeSpan(c.ProposedAt))
		if c.UpdatesApproved {
			fmt.Fprintf(&b, "- **Approving it replaces the approved skill** %s\n", visible.CodeSpan(c.Name))
		}
	}
	fmt.Fprintf(&b, "- **Type check:** %s\n", c.typeCheckFact().text(visible.CodeSpan))
	b.WriteString("\n")
	if c.Rationale != "" {
		b.WriteString("**Why**\n\n" + visible.CodeBlock("text", wrap(c.Rationale, MarkdownWidth), MarkdownWidth) + "\n")
	}
	b.WriteString("**Does**\n\n" + visible.CodeBlock("text", wrap(c.Description, MarkdownWidth), MarkdownWidth) + "\n")

	fmt.Fprintf(&b, "%sTools it calls\n\n", h(2))
	if len(c.Tools) == 0 && len(c.Dynamic) == 0 {
		b.WriteString("None.\n")
	}
	items := 0
	more := func() bool {
		items++
		return o.MaxItems > 0 && items > o.MaxItems
	}
	for _, t := range c.Tools {
		if more() {
			break
		}
		status := "read-only"
		switch {
		case !t.Known:
			status = "**UNKNOWN: not in servers/ (approval refused)**"
		case !t.ReadOnly:
			status = "**NOT READ-ONLY: needs --allow-write**"
		}
		via := ""
		if t.Via != "" {
			via = " (through skill " + visible.CodeSpan(t.Via) + ")"
		}
		fmt.Fprintf(&b, "- %s: %s%s\n", visible.CodeSpan(t.String()), status, via)
	}
	for _, d := range c.Dynamic {
		if more() {
			break
		}
		why := "computed tool name or the call function passed around"
		if strings.HasPrefix(d, "analysis incomplete") {
			d, why = strings.TrimPrefix(d, "analysis incomplete: "), "the analysis could not look inside (nesting too deep)"
		}
		fmt.Fprintf(&b, "- %s: **UNVERIFIABLE**: %s; the runtime refuses every tool not listed above\n", visible.CodeSpan(d), why)
	}
	if o.MaxItems > 0 && items > o.MaxItems {
		fmt.Fprintf(&b, "- … and %d more (see `mcpcode skills show %s`)\n", len(c.Tools)+len(c.Dynamic)-o.MaxItems, c.Name)
	}
	b.WriteString("\n")
	if len(c.Skills) > 0 {
		b.WriteString("**Skills it uses:** ")
		for i, s := range c.Skills {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(visible.CodeSpan(s))
		}
		b.WriteString("\n\n")
	}

	fmt.Fprintf(&b, "%sInput schema\n\n", h(2))
	if len(bytes.TrimSpace(c.InputSchema)) == 0 {
		b.WriteString("None given.\n\n")
	} else {
		var pretty bytes.Buffer
		if jsonIndent(&pretty, c.InputSchema) != nil {
			pretty.Reset()
			pretty.Write(c.InputSchema)
		}
		writeClippedBlock(&b, "json", strings.Split(strings.TrimRight(pretty.String(), "\n"), "\n"), o.MaxLines, false)
	}

	if len(c.Examples) > 0 {
		fmt.Fprintf(&b, "%sRecorded examples\n\n`skills verify` replays them offline.\n\n", h(2))
		for i, ex := range c.Examples {
			if o.MaxItems > 0 && i >= o.MaxItems {
				fmt.Fprintf(&b, "- … and %d more\n", len(c.Examples)-i)
				break
			}
			if ex.Problem != "" {
				fmt.Fprintf(&b, "- %s: **DAMAGED**: %s\n", visible.CodeSpan(ex.File), visible.CodeSpan(ex.Problem))
				continue
			}
			fmt.Fprintf(&b, "- %s (%d tool calls)\n  - input: %s\n  - result: %s\n", visible.CodeSpan(ex.File), ex.Calls,
				visible.CodeSpan(clipRunes(string(ex.Input), maxFactValue)), visible.CodeSpan(clipRunes(string(ex.Result), 2*maxFactValue)))
		}
		b.WriteString("\n")
	}

	fmt.Fprintf(&b, "%sProgram (%s, %d lines, %d bytes)\n\n", h(2), visible.CodeSpan(programFile), len(visible.Lines(c.Program)), len(c.Program))
	writeSource(&b, "ts", c.Program, o.MaxLines)
	for _, f := range c.Files {
		fmt.Fprintf(&b, "%sFile %s (%d lines, %d bytes)\n\n", h(2), visible.CodeSpan(f.Path), len(visible.Lines(f.Content)), len(f.Content))
		writeSource(&b, "text", f.Content, o.MaxLines)
	}

	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "**sha256** %s (%s)\n\n", visible.CodeSpan(c.SHA256), c.hashCovers())
	switch {
	case c.Status == StatusPending:
		fmt.Fprintf(&b, "**Approve:** %s  \n**Dismiss:** %s\n", visible.CodeSpan(c.Approve), visible.CodeSpan("mcpcode skills dismiss "+c.Name))
	case c.Status == StatusApproved && c.Changed:
		fmt.Fprintf(&b, "**Approve it again, as it is now:** %s\n", visible.CodeSpan(c.Approve))
	case c.Status == StatusApproved:
		fmt.Fprintf(&b, "**Approve it again (to change its grant):** %s\n", visible.CodeSpan(c.Approve))
	}
	return b.String()
}

// markdownDiff writes what changed against the approved version.
func markdownDiff(b *strings.Builder, d *Diff, h func(int) string, o MarkdownOptions) {
	fmt.Fprintf(b, "%sWhat changed since the approved version\n\n", h(1))
	fmt.Fprintf(b, "Compared with %s", visible.CodeSpan(d.Base))
	if d.BaseApproval != nil {
		fmt.Fprintf(b, ", approved by %s", markdownApproval(*d.BaseApproval))
	}
	b.WriteString(".\n\n")
	code := visible.CodeSpan
	for i, f := range diffFacts(d) {
		if o.MaxItems > 0 && i >= o.MaxItems {
			b.WriteString("- … and more (see `skills diff --format json`)\n")
			break
		}
		line := f.text(code)
		if f.loud {
			line = "**" + line + "**"
		}
		fmt.Fprintf(b, "- %s\n", line)
		for j, sub := range f.sub {
			if o.MaxItems > 0 && j >= o.MaxItems {
				fmt.Fprintf(b, "  - … and %d more\n", len(f.sub)-j)
				break
			}
			fmt.Fprintf(b, "  - %s\n", sub.text(code))
		}
	}
	b.WriteString("\n")
	for _, f := range d.Files {
		if len(f.Lines) == 0 {
			continue
		}
		fmt.Fprintf(b, "%sDiff of %s\n\n", h(2), visible.CodeSpan(f.Path))
		var lines []string
		for _, l := range f.Lines {
			// A broken line's pieces keep its diff marker, so that the
			// rest of an added line reads (and is coloured) as added.
			lines = append(lines, visible.WrapLine(l, MarkdownWidth, diffContinuation(l))...)
		}
		writeClippedBlock(b, "diff", lines, o.MaxLines, true)
	}
}

// markdownApproval is an approval's record in Markdown.
func markdownApproval(a Approval) string {
	s := visible.CodeSpan(dash(a.By))
	if at := a.when(); at != "" {
		s += " on " + visible.CodeSpan(at)
	}
	if a.Commit != "" {
		s += " at commit " + visible.CodeSpan(shortHash(a.Commit))
	}
	if a.Unbound {
		s += " (**not covered by its hash**: approve it again to bind it)"
	}
	return s
}

// writeSource writes a file's lines, numbered, split where JavaScript
// ends a line and broken when longer than MarkdownWidth.
func writeSource(b *strings.Builder, info, src string, maxLines int) {
	var lines []string
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
		lines = append(lines, prefix+l.Text+end)
	}
	writeClippedBlock(b, info, lines, maxLines, true)
}

// writeClippedBlock writes escaped lines as a code block, at most max
// of them (0: all), saying how many were left out.
func writeClippedBlock(b *strings.Builder, info string, lines []string, max int, escaped bool) {
	if !escaped {
		var out []string
		for _, l := range lines {
			out = append(out, visible.WrapLine(l, MarkdownWidth, "↪ ")...)
		}
		lines = out
	}
	left := 0
	if max > 0 && len(lines) > max {
		left = len(lines) - max
		lines = lines[:max]
	}
	if len(lines) > 0 {
		b.WriteString(visible.FencedLines(info, lines))
	}
	if left > 0 {
		fmt.Fprintf(b, "*… %d more lines not shown here: the pull request's files, or `mcpcode skills show`, have them.*\n", left)
	}
	b.WriteString("\n")
}

// Markdown renders the cards of the skills that changed against the base,
// one after the other, for a pull request's comment; "" when no skill
// changed. maxBytes > 0 bounds its length (a code host's limit on a
// comment): the programs and diffs are cut first, then the lists, each
// cut said where it is.
func (d *GitDiff) Markdown(maxBytes int) string {
	if len(d.Skills) == 0 {
		return ""
	}
	tries := []MarkdownOptions{{}, {MaxLines: 200}, {MaxLines: 50}, {MaxLines: 10}, {MaxLines: 1, MaxItems: 20}, {MaxLines: 1, MaxItems: 3}}
	var s string
	for _, o := range tries {
		o.Heading = 3
		if s = d.markdown(o); maxBytes <= 0 || len(s) <= maxBytes {
			return s
		}
	}
	s = d.summary()
	s += "The cards do not fit here: run `mcpcode skills diff --base " + "BASE` to read them.\n"
	if maxBytes > 0 && len(s) > maxBytes {
		return "## Skills changed\n\nToo many to list here: run `mcpcode skills diff` to read them.\n"
	}
	return s
}

// summary is the head of the comment: one line per changed skill.
func (d *GitDiff) summary() string {
	var b strings.Builder
	fmt.Fprintf(&b, "## Skills changed against %s (commit %s)\n\n", visible.CodeSpan(d.Base), visible.CodeSpan(shortHash(d.BaseCommit)))
	for _, ch := range d.Skills {
		what := ch.Diff.Status
		switch {
		case ch.Diff.Status == DiffAdded && ch.Diff.Revoked != nil:
			what = "**REVOKED at the base, brought back**"
		case ch.Diff.Status == DiffAdded && ch.Card != nil && ch.Card.Write:
			what = "new skill, **WITH WRITE ACCESS**"
		case ch.Diff.Status == DiffAdded:
			what = "new skill"
		case ch.Diff.Status == DiffRemoved:
			what = "**REMOVED** (revoked: callers fail)"
		case ch.Diff.Grant != nil && ch.Diff.Grant.Widened:
			what = "changed, **ASKS FOR WRITE ACCESS**"
		}
		if ch.Problem != "" {
			what += ", **its card cannot be built**"
		}
		fmt.Fprintf(&b, "- %s: %s\n", visible.CodeSpan(ch.Diff.Name), what)
	}
	b.WriteString("\nEach card leads with what changed against the approved version. `mcpcode skills verify` checks the skills in CI; approving is `mcpcode skills approve NAME --sha256 HASH` on the branch, with the hash of the card.\n\n")
	return b.String()
}

func (d *GitDiff) markdown(o MarkdownOptions) string {
	var b strings.Builder
	b.WriteString(d.summary())
	h := func(level int) string { return strings.Repeat("#", min(6, o.Heading+level)) + " " }
	for _, ch := range d.Skills {
		b.WriteString("---\n\n")
		if ch.Card != nil {
			b.WriteString(ch.Card.Markdown(o))
			b.WriteString("\n")
			continue
		}
		status := "REMOVED"
		if ch.Problem != "" {
			status = "CANNOT BE SHOWN"
		}
		fmt.Fprintf(&b, "%sSkill %s (%s)\n\n", h(0), visible.CodeSpan(ch.Diff.Name), status)
		if ch.Problem != "" {
			fmt.Fprintf(&b, "> [!WARNING]\n> **Its card cannot be built:** %s\n\n", visible.CodeSpan(clipRunes(ch.Problem, 2*maxFactValue)))
		}
		markdownDiff(&b, ch.Diff, h, o)
	}
	return b.String()
}
