package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/layout"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/typecheck"
	"github.com/mcpcode/mcpcode/skills"
)

// Type-check modes of a run (RunRequest.Check).
const (
	// CheckOff runs the program unchecked (mcpcode run without --check).
	CheckOff = ""
	// CheckAuto type-checks when a TypeScript compiler is found, and runs
	// unchecked when none is (serve's execute by default).
	CheckAuto = "auto"
	// CheckOn type-checks, and refuses the run when no compiler is found
	// (mcpcode run --check; execute with "check": true).
	CheckOn = "on"
)

// checkDir holds the type check's temporary configurations and its cache,
// in the state directory.
const checkDir = "check"

// CheckRequest says what to type-check: exactly one of File or Source.
type CheckRequest struct {
	// File is the program's path (relative to the current directory).
	File string
	// Source is the program's text; it is named stdin.ts at the workspace
	// root, as a run names it.
	Source []byte
}

// TypeErrors is the error of a use case refused because the program does
// not type-check (a proposal); its text is the report of the errors.
type TypeErrors struct {
	Result *typecheck.Result
}

func (e *TypeErrors) Error() string { return TypeErrorText(e.Result) }

// Compiler finds the TypeScript compiler that checks the workspace's
// programs: mcp.json's "typecheck": {"tsc": ...}, else the workspace's
// node_modules/.bin/tsc, else tsc on the host's PATH. Nothing is started.
// The error wraps typecheck.ErrNotFound, with how to install one, when
// there is none.
func (w *Workspace) Compiler() (*typecheck.Compiler, error) {
	o := typecheck.FindOptions{Workspace: w.Root}
	if tc := w.Config.TypeCheck; tc != nil {
		o.Configured = tc.TSC
	}
	if w.app != nil {
		o.PATH, _ = w.app.lookupEnv("PATH")
	}
	return typecheck.Find(o)
}

// Check type-checks a program against the tree, the skills and the files
// it imports, with the bundler's module resolution; nothing of it runs.
// Type errors are a Result with OK false. The error is a *UsageError when
// there is no compiler (its text says how to install one) or no such
// program, and another error when the check could not be made.
func (w *Workspace) Check(ctx context.Context, req CheckRequest) (*typecheck.Result, error) {
	c, err := w.Compiler()
	if err != nil {
		return nil, usageErrorf(err)
	}
	tr, err := w.checkRequest(req)
	if err != nil {
		return nil, err
	}
	return c.Check(ctx, tr)
}

// checkRequest says how to check a program: where it is, as the bundler
// places it.
func (w *Workspace) checkRequest(req CheckRequest) (typecheck.Request, error) {
	tr := typecheck.Request{
		Workspace:    w.Root,
		Declarations: generator.RuntimeDeclarations(),
		StateDir:     filepath.Join(w.State(), checkDir),
		Importable:   runtime.ImportRefusal,
	}
	switch {
	case req.Source != nil:
		tr.Program, tr.Source = "stdin.ts", req.Source
	case req.File != "":
		rel, err := w.programPath(req.File)
		if err != nil {
			return tr, usageErrorf(err)
		}
		tr.Program = rel
	default:
		return tr, usageErrorf(errors.New("nothing to check: give a program file or its text"))
	}
	return tr, nil
}

// programPath returns a program file's real, workspace-relative path: a
// program runs from inside its workspace.
func (w *Workspace) programPath(file string) (string, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("cannot read the program: %w", err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("the program %s is not a file", file)
	}
	root, err := filepath.EvalSymlinks(w.Root)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", fmt.Errorf("the program %s is outside the workspace %s: programs run from inside their workspace", file, w.Root)
	}
	return filepath.ToSlash(rel), nil
}

// checkBeforeRun type-checks a run's program as its Check mode says: nil
// when it may run, or the failed Result of a program that does not
// type-check.
func (w *Workspace) checkBeforeRun(ctx context.Context, req RunRequest) (*runtime.Result, error) {
	if req.Check == CheckOff {
		return nil, nil
	}
	if req.Check != CheckAuto && req.Check != CheckOn {
		return nil, usageErrorf(fmt.Errorf("type-check mode %q: use %q, %q or none", req.Check, CheckAuto, CheckOn))
	}
	c, err := w.Compiler()
	if err != nil {
		if req.Check == CheckAuto && errors.Is(err, typecheck.ErrNotFound) {
			return nil, nil // no compiler: runs as without the check
		}
		return nil, usageErrorf(fmt.Errorf("--check: %w", err))
	}
	var cr CheckRequest
	switch {
	case req.Skill != "":
		cr.File = filepath.Join(w.Skills(), req.Skill, "index.ts") // the skill's program
	case req.Source != nil:
		cr.Source = req.Source
	default:
		cr.File = req.File
	}
	tr, err := w.checkRequest(cr)
	if err != nil {
		return nil, err
	}
	res, err := c.Check(ctx, tr)
	if err != nil {
		return nil, fmt.Errorf("%w; to run the program unchecked, run it without --check (execute: \"check\": false)", err)
	}
	if res.OK {
		return nil, nil
	}
	return &runtime.Result{Result: json.RawMessage("null"), Logs: []runtime.LogEntry{}, ToolCalls: []runtime.ToolCallRecord{},
		Error: &runtime.RunError{Kind: runtime.KindTypeCheck, Message: TypeErrorText(res)}}, nil
}

// checkProposal type-checks a proposed program as the skill it would
// become (skills/<name>/index.ts, whose relative imports lead only to its
// own folder) when a compiler is found: what it checked against, or nil
// when there is no compiler; a *TypeErrors when it does not type-check.
func (w *Workspace) checkProposal(ctx context.Context, name string, program []byte) (*skills.TypeCheck, error) {
	c, err := w.Compiler()
	if errors.Is(err, typecheck.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, usageErrorf(err)
	}
	tr, err := w.checkRequest(CheckRequest{Source: program})
	if err != nil {
		return nil, err
	}
	tr.Program, tr.OwnFolder = layout.SkillsDir+"/"+name+"/index.ts", true
	res, err := c.Check(ctx, tr)
	if err != nil {
		return nil, err
	}
	if !res.OK {
		return nil, &TypeErrors{Result: res}
	}
	return &skills.TypeCheck{Compiler: res.Compiler, Tree: w.TreeVersion()}, nil
}

// TreeVersion identifies the generated tree: the SHA-256 of the generator
// manifest (.mcpcode/manifest.json), "" when the tree was never generated.
func (w *Workspace) TreeVersion() string {
	data, err := os.ReadFile(w.Manifest())
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// maxTypeErrorText bounds the report of a failed check (a run error's
// message keeps 8 KiB).
const maxTypeErrorText = 7 << 10

// TypeErrorText is the report of a check that found errors, for agents
// and people alike: one line per error with the file, line and column of
// the program, the compiler's message, the program's line and a hint.
// Its text came from the program and the compiler: a face that prints it
// on a terminal shows it visibly (internal/visible).
func TypeErrorText(res *typecheck.Result) string {
	var b strings.Builder
	n := res.Errors
	word := "errors"
	if n == 1 {
		word = "error"
	}
	fmt.Fprintf(&b, "the program does not type-check (%d %s, %s); nothing ran\n", n, word, res.Compiler)
	shown := 0
	for _, d := range res.Diagnostics {
		var one strings.Builder
		where := d.File
		if d.Line > 0 {
			where = fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Column)
		}
		code := ""
		if d.Code > 0 {
			code = fmt.Sprintf(" [TS%d]", d.Code)
		}
		fmt.Fprintf(&one, "%s: %s%s\n", where, strings.ReplaceAll(d.Message, "\n", "\n  "), code)
		if d.Source != "" {
			fmt.Fprintf(&one, "  %5d | %s\n", d.Line, d.Source)
		}
		if d.Hint != "" {
			fmt.Fprintf(&one, "  hint: %s\n", d.Hint)
		}
		if b.Len()+one.Len() > maxTypeErrorText {
			break
		}
		b.WriteString(one.String())
		shown++
	}
	if rest := n - shown; rest > 0 {
		fmt.Fprintf(&b, "… and %d more\n", rest)
	}
	return strings.TrimRight(b.String(), "\n")
}
