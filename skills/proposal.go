package skills

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
)

// Proposal is a pending (or dismissed) skill: what the agent said about it
// and what static analysis found, next to its program.
type Proposal struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Rationale   string          `json:"rationale"`
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	ProposedAt  time.Time       `json:"proposedAt"`
	ProposedBy  string          `json:"proposedBy"`
	// SHA256 is the hash of the program file (index.ts) as proposed and
	// analysed; approval refuses a program that no longer matches it.
	SHA256 string `json:"sha256"`
	// Source is where the program came from, for the record.
	Source  string    `json:"source,omitempty"`
	Tools   []ToolUse `json:"tools"`
	Dynamic []string  `json:"dynamic,omitempty"`
	Skills  []string  `json:"skills,omitempty"`
	// TypeCheck records that the program type-checked when it was
	// proposed; nil when it was not checked (no compiler was found).
	TypeCheck *TypeCheck `json:"typeCheck,omitempty"`
}

// TypeCheck says that a program type-checked against the tree, and with
// what.
type TypeCheck struct {
	// Compiler names the compiler ("TypeScript 7.0.2").
	Compiler string `json:"compiler"`
	// Tree is the version of the tree it was checked against: the SHA-256
	// of the generator manifest (.mcpcode/manifest.json); "" when the
	// tree was never generated.
	Tree string `json:"tree"`
}

// ProposeOptions describe a program an agent proposes as a skill.
type ProposeOptions struct {
	Name        string
	Description string
	Rationale   string
	InputSchema []byte // a JSON Schema of the input object, or nil
	// Program is the program, stored as it is: it will be
	// skills/<name>/index.ts, so it imports the tree as "servers/...",
	// skills as "skills/<name>", and nothing else.
	Program []byte
	// ProgramPath is where the program file came from, for the record.
	ProgramPath string
	// Examples are recordings of runs of the program (mcpcode run --record
	// FILE), each a successful run: the card shows their inputs and
	// results, and once the skill is approved `skills verify` replays them.
	Examples   [][]byte
	ProposedBy string           // "agent" when empty
	Now        func() time.Time // time.Now when nil
	// TypeCheck, when set, records that the program type-checked (the
	// caller checked it).
	TypeCheck *TypeCheck
}

// ProposeResult says what Propose did.
type ProposeResult struct {
	Proposal *Proposal
	// Replaced is set when a pending proposal of that name was replaced.
	Replaced bool
	// UpdatesApproved is set when an approved skill of that name exists:
	// approving the proposal will replace it.
	UpdatesApproved bool
	// Program is the program as stored.
	Program []byte
}

// Propose checks a program and stores it as a pending proposal. It never
// executes the program: the name, description and input schema are checked,
// the program is bundled (so its imports are confined to the tree, approved
// skills and mcpcode: modules) and its tool calls are found by static
// analysis. A proposal grants nothing until a person approves it.
func (w Workspace) Propose(opts ProposeOptions) (*ProposeResult, error) {
	p, program, _, err := w.prepare(context.Background(), opts)
	if err != nil {
		return nil, err
	}
	examples, err := parseExamples(opts.Examples)
	if err != nil {
		return nil, err
	}
	if err := w.noSymlinkDirs(SkillsDir+"/"+proposalsDir, SkillsDir+"/"+proposalsDir+"/"+opts.Name); err != nil {
		return nil, err
	}
	res := &ProposeResult{Proposal: p, Program: program, UpdatesApproved: w.status(opts.Name) == StatusApproved}
	res.Replaced = isFile(filepath.Join(w.proposalDir(opts.Name), recordFile))
	// A new proposal replaces the old one whole: no file of it stays.
	if err := os.RemoveAll(w.proposalDir(opts.Name)); err != nil {
		return nil, err
	}
	if err := writeProposal(w.proposalDir(opts.Name), p, program, examples); err != nil {
		return nil, err
	}
	return res, nil
}

// examplesDir holds a skill's recorded examples, examples/1.json, ...
const examplesDir = "examples"

// parseExamples checks recorded examples and returns them as stored: each
// a recording of a successful run.
func parseExamples(raw [][]byte) ([][]byte, error) {
	var out [][]byte
	for i, data := range raw {
		rec, err := ParseRecording(data)
		if err != nil {
			return nil, fmt.Errorf("example %d: %w", i+1, err)
		}
		if !rec.OK {
			return nil, fmt.Errorf("example %d is a run that failed: an example shows the skill working; record a successful run (mcpcode run --record FILE)", i+1)
		}
		out = append(out, rec.Marshal())
	}
	return out, nil
}

// prepare checks a proposal and analyses its program, writing nothing.
func (w Workspace) prepare(ctx context.Context, opts ProposeOptions) (*Proposal, []byte, *analysis, error) {
	if err := ValidateName(opts.Name); err != nil {
		return nil, nil, nil, err
	}
	if err := ValidateDescription(opts.Description); err != nil {
		return nil, nil, nil, err
	}
	if strings.TrimSpace(opts.Rationale) == "" {
		return nil, nil, nil, errors.New("a proposal needs a rationale: say why this program deserves to be a skill (what recurring task it saves)")
	}
	schema, err := checkInputSchema(opts.InputSchema)
	if err != nil {
		return nil, nil, nil, err
	}
	if !hasDefaultExport.Match(opts.Program) {
		return nil, nil, nil, errors.New("a skill's program must `export default` an async function that takes one input object and returns a JSON-serializable value")
	}
	program := opts.Program
	a, err := w.analyze(ctx, w.proposalEntry(opts.Name), program, opts.Name)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("the program does not bundle, so it cannot be proposed:\n%w", err)
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	by := opts.ProposedBy
	if by == "" {
		by = "agent"
	}
	p := &Proposal{
		Name: opts.Name, Description: strings.TrimSpace(opts.Description), Rationale: strings.TrimSpace(opts.Rationale),
		InputSchema: schema, ProposedAt: now().UTC().Truncate(time.Second), ProposedBy: by,
		SHA256: hashOf(program), Source: opts.ProgramPath,
		Tools: a.tools, Dynamic: a.dynamic, Skills: a.skills, TypeCheck: opts.TypeCheck,
	}
	return p, program, a, nil
}

// checkInputSchema accepts nothing or a JSON object, returned compacted.
func checkInputSchema(data []byte) (json.RawMessage, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("the input schema must be a JSON Schema object, like {\"type\":\"object\",\"properties\":{...}}: %v", errOr(err, "got something else"))
	}
	if t, ok := obj["type"]; ok && t != "object" {
		return nil, fmt.Errorf("the input schema has type %v: a skill takes one input object, so use \"type\": \"object\"", t)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, data); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

// writeProposal stores a proposal's program, examples and record. The
// record goes last: it only ever sits next to what it describes.
func writeProposal(dir string, p *Proposal, program []byte, examples [][]byte) error {
	if err := atomicfile.Write(filepath.Join(dir, programFile), program, 0o644); err != nil {
		return err
	}
	for i, ex := range examples {
		if err := atomicfile.Write(filepath.Join(dir, examplesDir, fmt.Sprintf("%d.json", i+1)), ex, 0o644); err != nil {
			return err
		}
	}
	record, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, recordFile), append(record, '\n'), 0o644)
}

// readProposal reads the record in a proposal directory.
func readProposal(dir string) (*Proposal, error) {
	data, err := os.ReadFile(filepath.Join(dir, recordFile))
	if err != nil {
		return nil, err
	}
	var p Proposal
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): propose the skill again", filepath.Join(dir, recordFile), err)
	}
	return &p, nil
}

// Pending returns a pending proposal and its program as stored now.
func (w Workspace) Pending(name string) (*Proposal, []byte, error) {
	if err := ValidateName(name); err != nil {
		return nil, nil, err
	}
	dir := w.proposalDir(name)
	p, err := readProposal(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, w.notPending(name)
	}
	if err != nil {
		return nil, nil, err
	}
	program, err := os.ReadFile(filepath.Join(dir, programFile))
	if err != nil {
		return nil, nil, fmt.Errorf("the proposal %q has lost its program (%v): propose it again", name, err)
	}
	return p, program, nil
}

// notPending explains why there is no pending proposal of that name.
func (w Workspace) notPending(name string) error {
	switch w.status(name) {
	case StatusApproved:
		return fmt.Errorf("skill %q is already approved and has no pending proposal", name)
	case StatusDismissed:
		return fmt.Errorf("the proposal %q was dismissed; the agent can propose it again", name)
	case StatusRevoked:
		return fmt.Errorf("skill %q was revoked (its files are in skills/.revoked/%s); a new version must be proposed and approved", name, name)
	}
	return fmt.Errorf("no skill or proposal named %q (see mcpcode skills list)", name)
}

// proposalEntry is a proposal's program file: it is analysed where it is,
// as the code of the skill it proposes (its relative imports lead into its
// own folder).
func (w Workspace) proposalEntry(name string) string {
	return filepath.Join(w.proposalDir(name), programFile)
}

// proposalFiles are the files a proposal would install as skills/<name>/
// (its program, input schema and examples, and anything else in its
// folder): what the review hash covers.
func (w Workspace) proposalFiles(dir string, p *Proposal) (map[string][]byte, error) {
	rel, err := filepath.Rel(w.Root, dir)
	if err != nil {
		return nil, err
	}
	files, err := w.readFolder(filepath.ToSlash(rel), recordFile)
	if err != nil {
		return nil, err
	}
	delete(files, schemaFile)
	if len(p.InputSchema) > 0 {
		var pretty bytes.Buffer
		if err := jsonIndent(&pretty, p.InputSchema); err != nil {
			return nil, err
		}
		files[schemaFile] = pretty.Bytes()
	}
	return files, nil
}
