package skills

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mcpcode/mcpcode/internal/lazyregexp"
)

// Metadata keys mcpcode keeps under SKILL.md's "metadata" (the Agent Skills
// spec makes metadata a map of strings, so every value is a string).
const (
	metaTools      = "mcpcode-tools"       // space-separated server.tool the skill may call (all it calls, through skills too)
	metaWrite      = "mcpcode-write"       // "true" only when a person granted write
	metaSHA256     = "mcpcode-sha256"      // the approval hash: the files, name, description and grant (integrity.go)
	metaFiles      = "mcpcode-files"       // each file's sha256 as approved, to say what changed
	metaProposedBy = "mcpcode-proposed-by" // "agent"
	metaApprovedBy = "mcpcode-approved-by" // who approved ("Name <email>", an OS user), or "pull request"
	metaApprovedAt = "mcpcode-approved-at" // when, RFC 3339 in UTC: written once, by the approval
	// metaApprovedCommit is the commit checked out when a person approved
	// in a git repository: what the review stood on.
	metaApprovedCommit = "mcpcode-approved-commit"
	// The type check of the program when it was proposed, as the
	// proposal recorded it (TypeCheck): the compiler, the tree version,
	// and the sha256 of the index.ts it checked, so that the record is
	// shown only for that program. It is what mcpcode wrote when the
	// skill was proposed (kept by approval, and covered by the approval
	// hash like the rest of SKILL.md), but whoever wrote the branch could
	// have written it: a card says it is SKILL.md's word.
	metaTypeCheck        = "mcpcode-typecheck"
	metaTypeCheckTree    = "mcpcode-typecheck-tree"
	metaTypeCheckProgram = "mcpcode-typecheck-program"
)

// Frontmatter is SKILL.md's YAML header, per the Agent Skills spec.
type Frontmatter struct {
	Name          string            `yaml:"name"`
	Description   string            `yaml:"description"`
	License       string            `yaml:"license,omitempty"`
	Compatibility string            `yaml:"compatibility,omitempty"`
	AllowedTools  string            `yaml:"allowed-tools,omitempty"`
	Metadata      map[string]string `yaml:"metadata,omitempty"`

	// digest is skillMDDigest of the SKILL.md it was read from.
	digest string
}

// Write reports whether a person granted the skill write access.
func (f *Frontmatter) Write() bool {
	return strings.EqualFold(strings.TrimSpace(f.Metadata[metaWrite]), "true")
}

// Tools returns the tools recorded as used, as "server.tool".
func (f *Frontmatter) Tools() []string { return strings.Fields(f.Metadata[metaTools]) }

// TypeCheck returns the type check SKILL.md records for program (its
// index.ts): nil when it records none, or one of another program.
func (f *Frontmatter) TypeCheck(program []byte) *TypeCheck {
	compiler := f.Metadata[metaTypeCheck]
	if compiler == "" || f.Metadata[metaTypeCheckProgram] != hashOf(program) {
		return nil
	}
	return &TypeCheck{Compiler: compiler, Tree: f.Metadata[metaTypeCheckTree]}
}

// maxRecordText bounds a value mcpcode records in SKILL.md from elsewhere
// (a compiler's name): far above what one needs.
const maxRecordText = 200

// recordText is s as SKILL.md records it: valid UTF-8, at most
// maxRecordText runes.
func recordText(s string) string { return clipRunes(strings.ToValidUTF8(s, "\ufffd"), maxRecordText) }

// SHA256 returns the recorded approval hash.
func (f *Frontmatter) SHA256() string { return f.Metadata[metaSHA256] }

// Approval returns who approved the skill, when and at which commit, as
// SKILL.md records it. Whether the record is bound by the approval hash is
// for checkApproved to say (Approval.Unbound).
func (f *Frontmatter) Approval() Approval {
	return Approval{By: f.Metadata[metaApprovedBy], At: f.Metadata[metaApprovedAt], Commit: f.Metadata[metaApprovedCommit]}
}

// ParseSkillMD reads the frontmatter of a SKILL.md and checks it against the
// spec; the body is returned as is.
func ParseSkillMD(data []byte) (*Frontmatter, []byte, error) {
	data = bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n"))
	if !bytes.HasPrefix(data, []byte("---\n")) {
		return nil, nil, errors.New(`SKILL.md must start with a YAML frontmatter block between "---" lines`)
	}
	rest := data[len("---\n"):]
	end := bytes.Index(rest, []byte("\n---\n"))
	if end < 0 {
		if bytes.HasSuffix(rest, []byte("\n---")) {
			end = len(rest) - len("\n---")
		} else {
			return nil, nil, errors.New(`SKILL.md's frontmatter has no closing "---" line`)
		}
	}
	header, body := rest[:end], rest[min(end+len("\n---\n"), len(rest)):]
	dec := yaml.NewDecoder(bytes.NewReader(header))
	dec.KnownFields(true)
	var fm Frontmatter
	if err := dec.Decode(&fm); err != nil {
		return nil, nil, fmt.Errorf("SKILL.md frontmatter is not valid: %s", yamlMessage(err))
	}
	if err := ValidateName(fm.Name); err != nil {
		return nil, nil, fmt.Errorf("SKILL.md frontmatter: %w", err)
	}
	if err := ValidateDescription(fm.Description); err != nil {
		return nil, nil, fmt.Errorf("SKILL.md frontmatter: %w", err)
	}
	if n := len([]rune(fm.Compatibility)); n > 500 {
		return nil, nil, fmt.Errorf("SKILL.md frontmatter: compatibility is %d characters long, more than 500", n)
	}
	if w := strings.TrimSpace(fm.Metadata[metaWrite]); w != "" && !strings.EqualFold(w, "true") && !strings.EqualFold(w, "false") {
		return nil, nil, fmt.Errorf("SKILL.md frontmatter: metadata %s is %q; write \"true\" or \"false\"", metaWrite, w)
	}
	fm.digest = skillMDDigest(&fm, header, body)
	return &fm, body, nil
}

// skillMDDigest is the hash of everything a SKILL.md says but its
// approval hash: every field as parsed, the frontmatter as written (its
// comments, anything after a YAML end marker, which a parser may skip and
// a person or another tool may read) with the value of the approval
// hash's line left out, and the body, which agents read. The approval
// hash covers it, so that no part of SKILL.md changes silently.
func skillMDDigest(fm *Frontmatter, header, body []byte) string {
	fields := *fm
	fields.Metadata = maps.Clone(fm.Metadata)
	delete(fields.Metadata, metaSHA256)
	parsed, _ := json.Marshal(fields)
	lines := strings.Split(string(header), "\n")
	for i, l := range lines {
		lines[i] = approvalHashLine.ReplaceAllString(l, "$1")
	}
	return hashOf(fmt.Appendf(nil, "fields %s\nfrontmatter %s\nbody %s\n", hashOf(parsed), hashOf([]byte(strings.Join(lines, "\n"))), hashOf(body)))
}

// approvalHashLine matches the frontmatter line that holds the approval
// hash as mcpcode writes it, the key in group 1: only the hexadecimal
// value is left out (a comment after it is not). Any other line that looks
// like it, inside a multi-line value, is covered as a field.
var approvalHashLine = lazyregexp.New(`^(\s*` + regexp.QuoteMeta(metaSHA256) + `:) *"?[0-9a-f]*"?$`)

// yamlMessage shortens the YAML library's messages.
func yamlMessage(err error) string {
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), "yaml: unmarshal errors:\n  "), "yaml: ")
}

// renderSkillMD writes SKILL.md for an approved skill: the frontmatter, then
// what it does, why, its input, the tools it calls, and how to use it.
func renderSkillMD(fm Frontmatter, rationale string, schema []byte, tools []ToolUse) ([]byte, error) {
	var header bytes.Buffer
	enc := yaml.NewEncoder(&header)
	enc.SetIndent(2)
	if err := enc.Encode(fm); err != nil {
		return nil, fmt.Errorf("encoding SKILL.md frontmatter: %w", err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(header.Bytes())
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n%s\n", fm.Name, strings.TrimSpace(fm.Description))
	if r := strings.Join(strings.Fields(rationale), " "); r != "" {
		fmt.Fprintf(&b, "\n%s%s\n", rationalePrefix, r)
	}
	b.WriteString("\n## Input\n\n")
	if len(bytes.TrimSpace(schema)) > 0 {
		var pretty bytes.Buffer
		if jsonIndent(&pretty, schema) != nil {
			pretty.Reset()
			pretty.Write(schema)
		}
		fmt.Fprintf(&b, "One object matching this JSON Schema:\n\n```json\n%s```\n", pretty.String())
	} else {
		b.WriteString("One object; no schema was given.\n")
	}
	b.WriteString("\n## Tools it calls\n\n")
	if len(tools) == 0 {
		b.WriteString("None.\n")
	}
	for _, t := range tools {
		fmt.Fprintf(&b, "- `%s.%s`%s\n", t.Server, t.Tool, t.accessNote())
	}
	access := "It is read-only: the runtime refuses its calls to tools that are not read-only and its writes to workspace/."
	if fm.Write() {
		access = "A person granted it write access (metadata " + metaWrite + ": \"true\")."
	}
	fmt.Fprintf(&b, "\n%s It runs with the caller's permissions and the caller's mcp.json.\n", access)
	fmt.Fprintf(&b, "\n## Usage\n\n```ts\nimport %s from \"skills/%s\";\n\nconst result = await %s(%s);\n```\n\nFrom a shell: `mcpcode run --skill %s --input '%s'`\n",
		Identifier(fm.Name), fm.Name, Identifier(fm.Name), exampleInput(schema), fm.Name, exampleInput(schema))
	return b.Bytes(), nil
}

// rationalePrefix starts the line of SKILL.md's body that says why the
// skill exists.
const rationalePrefix = "Why it exists: "

// rationaleOf reads the rationale back from SKILL.md's body.
func rationaleOf(body []byte) string {
	for _, line := range strings.Split(string(body), "\n") {
		if r, ok := strings.CutPrefix(line, rationalePrefix); ok {
			return r
		}
	}
	return ""
}

// Identifier turns a skill name into the camelCase identifier examples
// import it as ("pending-orders" → pendingOrders).
func Identifier(name string) string {
	var b strings.Builder
	upper := false
	for _, r := range name {
		switch {
		case r == '-':
			upper = true
		case upper:
			b.WriteString(strings.ToUpper(string(r)))
			upper = false
		default:
			b.WriteRune(r)
		}
	}
	s := b.String()
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		s = "skill" + strings.ToUpper(s[:min(1, len(s))]) + s[min(1, len(s)):]
	}
	return s
}

// exampleInput builds a small example input from a schema's required
// properties (or {}).
func exampleInput(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type    any `json:"type"`
			Default any `json:"default"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Required) == 0 {
		return "{}"
	}
	ex := map[string]any{}
	for _, name := range s.Required {
		p := s.Properties[name]
		switch {
		case p.Default != nil:
			ex[name] = p.Default
		case p.Type == "number" || p.Type == "integer":
			ex[name] = 1
		case p.Type == "boolean":
			ex[name] = true
		case p.Type == "array":
			ex[name] = []any{}
		case p.Type == "object":
			ex[name] = map[string]any{}
		default:
			ex[name] = "..."
		}
	}
	out, _ := json.Marshal(ex)
	return string(out)
}
