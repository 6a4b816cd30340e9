package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Card is what a reviewer reads before deciding.
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
	SHA256      string          `json:"sha256"`
	// Changed is set when the program no longer matches the hash recorded
	// at proposal (or approval).
	Changed bool   `json:"changed,omitempty"`
	Program string `json:"program"`
	// UpdatesApproved is set when approving replaces an approved skill.
	UpdatesApproved bool `json:"updatesApproved,omitempty"`
}

// Show builds the review card of a skill: a pending proposal, a dismissed
// one, or an approved skill.
func (w Workspace) Show(name string) (*Card, error) {
	if err := ValidateName(name); err != nil {
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
		program, err := os.ReadFile(filepath.Join(dir, programFile))
		if err != nil {
			return nil, fmt.Errorf("the proposal %q has lost its program: %w", name, err)
		}
		c := &Card{Name: name, Status: status, Description: p.Description, Rationale: p.Rationale,
			ProposedBy: p.ProposedBy, ProposedAt: p.ProposedAt.Format("2006-01-02 15:04 MST"),
			Tools: p.Tools, Dynamic: p.Dynamic, Skills: p.Skills, InputSchema: p.InputSchema,
			SHA256: p.SHA256, Changed: hashOf(program) != p.SHA256, Program: string(program),
			UpdatesApproved: approved && pending}
		if c.Changed {
			// Show what is there now, analysed afresh, so nothing hides.
			if a, err := w.analyze(context.Background(), w.analysisEntry(name), program); err == nil {
				c.Tools, c.Dynamic, c.Skills = a.tools, a.dynamic, a.skills
			}
		}
		return c, nil
	case approved:
		fm, err := w.readSkillMD(name)
		if err != nil {
			return nil, err
		}
		program, err := os.ReadFile(filepath.Join(w.approvedDir(name), programFile))
		if err != nil {
			return nil, fmt.Errorf("skills/%s has no %s: %w", name, programFile, err)
		}
		c := &Card{Name: name, Status: StatusApproved, Description: fm.Description, ProposedBy: fm.Metadata[metaProposedBy],
			Write: fm.Write(), SHA256: fm.SHA256(), Changed: hashOf(program) != fm.SHA256(), Program: string(program)}
		c.InputSchema, _ = os.ReadFile(filepath.Join(w.approvedDir(name), schemaFile))
		a, err := w.analyze(context.Background(), w.approvedEntry(name), program)
		if err != nil {
			return nil, fmt.Errorf("skills/%s does not bundle: %w", name, err)
		}
		c.Tools, c.Dynamic, c.Skills = a.tools, a.dynamic, a.skills
		return c, nil
	}
	return nil, w.notPending(name)
}

// approvedEntry is an approved skill's program file.
func (w Workspace) approvedEntry(name string) string {
	return filepath.Join(w.approvedDir(name), programFile)
}

// Render writes the card as text.
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
		fmt.Fprintf(&b, "Approved skill (proposed by %s). It is %s and runs with the caller's permissions.\n", dash(c.ProposedBy), access)
	default:
		fmt.Fprintf(&b, "Proposed by %s on %s. A proposal runs nothing and grants nothing.\n", dash(c.ProposedBy), c.ProposedAt)
		b.WriteString("If approved, it becomes a read-only skill that runs with the caller's permissions.\n")
		if c.UpdatesApproved {
			fmt.Fprintf(&b, "Approving it REPLACES the approved skill %q.\n", c.Name)
		}
	}
	if c.Changed {
		b.WriteString("\n!! The program CHANGED since it was recorded (its hash no longer matches).\n!! Approval will be refused; what is shown below is the program as it is now.\n")
	}
	if c.Rationale != "" {
		fmt.Fprintf(&b, "\nWhy:\n%s\n", indent(wrap(c.Rationale, 70), "  "))
	}
	fmt.Fprintf(&b, "\nDoes:\n%s\n", indent(wrap(c.Description, 70), "  "))
	b.WriteString("\nTools it calls:\n")
	if len(c.Tools) == 0 && len(c.Dynamic) == 0 {
		b.WriteString("  none\n")
	}
	needsWrite := false
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
			needsWrite = true
		}
		fmt.Fprintf(&b, "  %-40s %s%s\n", t.String(), status, via)
	}
	for _, d := range c.Dynamic {
		why := "computed tool name or the call function passed around"
		if strings.HasPrefix(d, "analysis incomplete") {
			d, why = strings.TrimPrefix(d, "analysis incomplete: "), "the analysis could not look inside (nesting too deep)"
		}
		fmt.Fprintf(&b, "  %-40s UNVERIFIABLE: %s; the runtime still refuses non-read-only tools\n", d, why)
	}
	if len(c.Skills) > 0 {
		fmt.Fprintf(&b, "\nSkills it uses: %s\n", strings.Join(c.Skills, ", "))
	}
	b.WriteString("\nInput schema:\n")
	if len(bytes.TrimSpace(c.InputSchema)) == 0 {
		b.WriteString("  none given\n")
	} else {
		var pretty bytes.Buffer
		if jsonIndent(&pretty, c.InputSchema) != nil {
			pretty.Reset()
			pretty.Write(c.InputSchema)
		}
		b.WriteString(indent(strings.TrimRight(pretty.String(), "\n"), "  ") + "\n")
	}
	lines := strings.Split(strings.TrimRight(c.Program, "\n"), "\n")
	fmt.Fprintf(&b, "\nProgram (%d lines, %d bytes, sha256 %s):\n", len(lines), len(c.Program), shortHash(c.SHA256))
	for i, l := range lines {
		fmt.Fprintf(&b, "%4d │ %s\n", i+1, l)
	}
	b.WriteString(rule + "\n")
	if c.Status == StatusPending {
		fmt.Fprintf(&b, "Approve: mcpcode skills approve %s", c.Name)
		if needsWrite {
			b.WriteString(" --allow-write")
		}
		fmt.Fprintf(&b, "\nDismiss: mcpcode skills dismiss %s\n", c.Name)
	}
	return b.String()
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
	scalarArray = regexp.MustCompile(`\[\n(?:[ ]*` + scalarValue + `,?\n)+[ ]*\]`)
	scalarItem  = regexp.MustCompile(`[ ]*` + scalarValue + `,?\n`)
)
