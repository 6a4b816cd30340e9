package typecheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"
)

// DefaultTimeout bounds one compiler run: a check of a small program takes
// a fraction of a second; types can be written that take the compiler
// much longer.
const DefaultTimeout = 60 * time.Second

// DefaultMemoryLimit bounds the compiler's memory: a check of a program
// importing the whole 16-server corpus tree (196 files) takes under 60
// MiB; types can be written that take gigabytes within the timeout.
const DefaultMemoryLimit = 1 << 30

// maxCompilers bounds the compilers that run at once in this process (serve
// checks the programs of all its clients, each compiler may take
// DefaultMemoryLimit); a check waits for its turn.
const maxCompilers = 4

// compilerSlots holds a token per compiler running; waitingForCompiler
// counts the checks waiting for one.
var (
	compilerSlots      = make(chan struct{}, maxCompilers)
	waitingForCompiler atomic.Int32
)

// DefaultMaxDiagnostics is how many diagnostics a Result holds at most.
const DefaultMaxDiagnostics = 20

// maxOutput bounds what is read of the compiler's output: its file list
// (one line per file) and its diagnostics.
const maxOutput = 16 << 20

// Request says what to check.
type Request struct {
	// Workspace is the workspace root.
	Workspace string
	// Program is the program's workspace-relative, slash-separated path:
	// the file checked, or the name Source is checked and shown under.
	Program string
	// Source, when set, is the program's text, checked as if it were the
	// file Program (which need not exist); nil checks the file Program.
	Source []byte
	// OwnFolder makes Source's relative imports lead only to files of its
	// own (empty) folder, as a proposed skill's do; without it they lead
	// from Program's directory, as a program's do.
	OwnFolder bool
	// Declarations are the ambient types of the runtime (mcpcode.d.ts).
	Declarations []byte
	// StateDir is where the configuration handed to the compiler and the
	// cache of results are written (the workspace's .mcpcode/check).
	StateDir string
	// Importable says why a workspace-relative file may not be imported,
	// or "": the compiler may read only such files (besides its own and
	// the check's); nil allows every file of the workspace.
	Importable func(rel string) string
	// Timeout bounds the compiler run (0: DefaultTimeout).
	Timeout time.Duration
	// MemoryLimit bounds the compiler's memory in bytes, on Linux
	// (0: DefaultMemoryLimit).
	MemoryLimit int64
	// MaxDiagnostics bounds Result.Diagnostics (0: DefaultMaxDiagnostics).
	MaxDiagnostics int
}

// Result is the outcome of a check.
type Result struct {
	// OK is set when the compiler reported no error.
	OK bool `json:"ok"`
	// Errors counts every error the compiler reported (Diagnostics holds
	// the first of them).
	Errors int `json:"errors"`
	// Diagnostics are the first errors, in the compiler's order.
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Compiler names the compiler ("TypeScript 7.0.2").
	Compiler string `json:"compiler"`
	// Files are the workspace files checked besides the program: the tree
	// files, skills and own files it imports, directly or not; sorted.
	Files []string `json:"files"`
	// Cached is set when the result came from the cache: the compiler did
	// not run.
	Cached bool `json:"cached"`
}

// Diagnostic is one error, in a file of the workspace.
type Diagnostic struct {
	// File is the workspace-relative path of the file (the program's own
	// name for a program given as text); "" for an error of no file.
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
	// Code is the compiler's error number (2339 for TS2339).
	Code int `json:"code"`
	// Message is the compiler's message (several lines for a chain).
	Message string `json:"message"`
	// Source is the text of the line the error is on.
	Source string `json:"source,omitempty"`
	// Hint is one line that helps: a close declared name, the declared
	// type's properties.
	Hint string `json:"hint,omitempty"`
}

// compilerOptions are the options of every check: strict, but for what
// JavaScript-style code does everywhere (an untyped parameter is any; a
// caught value too), so that the check finds real errors against the
// tree's types and is no style gate; module resolution as the bundler's;
// the runtime's globals only (ES2022 and mcpcode.d.ts); nothing written.
var compilerOptions = map[string]any{
	"strict":                     true,
	"noImplicitAny":              false,
	"useUnknownInCatchVariables": false,
	"noEmit":                     true,
	"target":                     "ES2022",
	"lib":                        []string{"ES2022"},
	"module":                     "ESNext",
	"moduleResolution":           "Bundler",
	"moduleDetection":            "force",
	"allowImportingTsExtensions": true,
	"allowJs":                    true,
	"isolatedModules":            true,
	"types":                      []string{},
	"skipLibCheck":               true,
	"pretty":                     false,
	"listFiles":                  true,
}

// configVersion changes whenever what a check does changes in a way that
// makes cached results stale (options, parsing, hints).
const configVersion = "mcpcode-typecheck-2"

// programDir and configFile are the check's own files in its temporary
// directory: the program given as text goes in a folder of its own, so
// that its relative imports find nothing of the check's.
const (
	programDir   = "program"
	configFile   = "tsconfig.json"
	declFileName = "mcpcode.d.ts"
)

// Check type-checks a program. Type errors are a Result with OK false; the
// error is for a check that could not be made (the compiler failed, timed
// out or rejected the configuration).
func (c *Compiler) Check(ctx context.Context, req Request) (*Result, error) {
	ws, err := filepath.EvalSymlinks(req.Workspace)
	if err != nil {
		return nil, fmt.Errorf("type check: workspace: %w", err)
	}
	req.Workspace = ws
	if req.MaxDiagnostics <= 0 {
		req.MaxDiagnostics = DefaultMaxDiagnostics
	}
	if req.Timeout <= 0 {
		req.Timeout = DefaultTimeout
	}
	if req.MemoryLimit <= 0 {
		req.MemoryLimit = DefaultMemoryLimit
	}
	source := req.Source
	if source == nil {
		if source, err = os.ReadFile(filepath.Join(ws, filepath.FromSlash(req.Program))); err != nil {
			return nil, fmt.Errorf("type check: reading the program: %w", err)
		}
	}
	cache := resultCache{dir: filepath.Join(req.StateDir, "cache")}
	key := c.cacheKey(req, source)
	if res := cache.lookup(key, ws); res != nil {
		res.Cached = true
		return res, nil
	}
	res, deps, stable, err := c.check(ctx, req, source)
	if err != nil {
		return nil, err
	}
	if stable && cacheable(res) {
		cache.store(key, deps, res)
	}
	return res, nil
}

// cacheKey identifies a check by content: the compiler, the check's
// configuration, the runtime's declarations, where the program is and its
// text. The files it imports are recorded with the result and compared on
// lookup.
func (c *Compiler) cacheKey(req Request, source []byte) string {
	h := sha256.New()
	opts, _ := json.Marshal(compilerOptions)
	for _, part := range [][]byte{[]byte(configVersion), []byte(c.identity), opts, req.Declarations,
		[]byte(req.Program), []byte(fmt.Sprint(req.OwnFolder, req.Source != nil, req.MaxDiagnostics)), source} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cacheable: a result is kept unless an import was not found (the file may
// appear) or the compiler read a file it may not.
func cacheable(res *Result) bool {
	for _, d := range res.Diagnostics {
		if d.Code == codeCannotFindModule || d.Code == 0 {
			return false
		}
	}
	return true
}

// check runs the compiler once. stable is unset when a file it read
// changed while it ran: the result is not that of the files as they are.
func (c *Compiler) check(ctx context.Context, req Request, source []byte) (res *Result, deps []dep, stable bool, err error) {
	ws := req.Workspace
	if err := os.MkdirAll(req.StateDir, 0o755); err != nil {
		return nil, nil, false, fmt.Errorf("type check: %w", err)
	}
	removeStale(req.StateDir)
	tmp, err := os.MkdirTemp(req.StateDir, runDirPrefix)
	if err != nil {
		return nil, nil, false, fmt.Errorf("type check: %w", err)
	}
	defer os.RemoveAll(tmp)
	if tmp, err = filepath.EvalSymlinks(tmp); err != nil {
		return nil, nil, false, fmt.Errorf("type check: %w", err)
	}
	decl := filepath.Join(tmp, declFileName)
	if err := os.WriteFile(decl, req.Declarations, 0o644); err != nil {
		return nil, nil, false, fmt.Errorf("type check: %w", err)
	}
	opts := map[string]any{}
	for k, v := range compilerOptions {
		opts[k] = v
	}
	opts["paths"] = map[string][]string{
		"servers/*": {filepath.ToSlash(filepath.Join(ws, "servers")) + "/*"},
		"skills/*":  {filepath.ToSlash(filepath.Join(ws, "skills")) + "/*"},
	}
	// The program's path as the compiler sees it, and the name shown.
	program := filepath.Join(ws, filepath.FromSlash(req.Program))
	if req.Source != nil {
		dir := filepath.Join(tmp, programDir)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, nil, false, fmt.Errorf("type check: %w", err)
		}
		program = filepath.Join(dir, path.Base(req.Program))
		if err := os.WriteFile(program, req.Source, 0o644); err != nil {
			return nil, nil, false, fmt.Errorf("type check: %w", err)
		}
		if !req.OwnFolder {
			// Its relative imports lead from where it is shown to be.
			opts["rootDirs"] = []string{filepath.ToSlash(dir), filepath.ToSlash(filepath.Join(ws, filepath.FromSlash(path.Dir(req.Program))))}
		}
	}
	config, _ := json.MarshalIndent(map[string]any{
		"compilerOptions": opts,
		"files":           []string{filepath.ToSlash(decl), filepath.ToSlash(program)},
	}, "", "  ")
	configPath := filepath.Join(tmp, configFile)
	if err := os.WriteFile(configPath, config, 0o644); err != nil {
		return nil, nil, false, fmt.Errorf("type check: %w", err)
	}
	// When the compiler starts, by the file system's clock: a file it
	// reads that was modified later may have changed under it.
	cfg, err := os.Stat(configPath)
	if err != nil {
		return nil, nil, false, fmt.Errorf("type check: %w", err)
	}
	started := cfg.ModTime()

	out, runErr := c.run(ctx, ws, configPath, req.Timeout, req.MemoryLimit)
	if runErr != nil {
		// Whatever it printed before it failed can quote any file it
		// read, and its list of those files may be cut: nothing of it is
		// shown.
		return nil, nil, false, fmt.Errorf("type check: %s failed: %w", c, runErr)
	}
	parsed := parseOutput(out)
	// It lists the files it read last, the program itself last of all
	// (each file after those it imports): a list that does not end with
	// the program is not all it read.
	if n := len(parsed.files); n == 0 || !sameFile(parsed.files[n-1], ws, program) {
		if len(parsed.global) > 0 { // errors of no file: of the configuration
			return nil, nil, false, c.rejected(parsed.global[0])
		}
		return nil, nil, false, fmt.Errorf("type check: %s ended without listing all the files it read: is it a TypeScript compiler? (mcpcode needs TypeScript 5 or later, best 7: %s)", c, "npm i -D typescript@7")
	}
	parsed.configErrors(ws, tmp, program)

	res = &Result{OK: len(parsed.diags) == 0, Errors: len(parsed.diags), Compiler: c.String(), Files: []string{}, Diagnostics: []Diagnostic{}}
	stable = true
	if req.Source == nil {
		// The compiler read the program's file itself: the text the key
		// names, unless it was saved again meanwhile.
		now, err := os.ReadFile(program)
		stable = err == nil && bytes.Equal(now, source)
	}
	// Confinement: the compiler reads what the program names (imports,
	// references, type queries), anywhere. Nothing it said is shown
	// unless it read only what a program may import, and looked for
	// nothing elsewhere.
	var refused int
	for _, f := range parsed.files {
		abs := f
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(ws, abs)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			refused++
			continue
		}
		switch {
		case real == program || real == decl:
			continue
		case c.isLib(real):
			continue
		}
		rel, err := filepath.Rel(ws, real)
		if err != nil || !filepath.IsLocal(rel) {
			refused++
			continue
		}
		rel = filepath.ToSlash(rel)
		if req.Importable != nil && req.Importable(rel) != "" {
			refused++
			continue
		}
		data, err := os.ReadFile(real)
		if err != nil {
			refused++
			continue
		}
		if fi, err := os.Stat(real); err != nil || fi.ModTime().After(started) {
			stable = false
		}
		deps = append(deps, dep{Path: rel, SHA256: hashBytes(data), data: data})
		res.Files = append(res.Files, rel)
	}
	m := mapper{ws: ws, tmp: tmp, program: program, name: req.Program}
	for _, d := range parsed.diags {
		if m.lookedOutside(d, req.Importable) {
			refused++
		}
	}
	if refused > 0 {
		return &Result{Errors: 1, Compiler: c.String(), Files: []string{}, Diagnostics: []Diagnostic{{File: req.Program,
			Message: "the program (or a file it imports) names files that programs may not import: outside the workspace, in node_modules, hidden, under workspace/ or .mcpcode/, or not code (mcp.json, .cts and .cjs files); nothing else of the check is shown (not even which, nor whether they exist). Import only the tree (servers/...), approved skills (skills/<name>), the program's own files, mcpcode:runtime and mcpcode:fs, and reference no other files (/// <reference>, import(\"...\") types)"}}}, nil, false, nil
	}
	if len(parsed.global) > 0 {
		return nil, nil, false, c.rejected(parsed.global[0])
	}
	slices.Sort(res.Files)
	files := map[string][]byte{req.Program: source}
	for _, d := range deps {
		files[d.Path] = d.data
	}
	explain := newExplainer(files, ws)
	for _, d := range parsed.diags {
		if len(res.Diagnostics) == req.MaxDiagnostics {
			break
		}
		diag := m.diagnostic(d)
		diag.Source = sourceLine(files[diag.File], diag.Line)
		diag.Hint = explain.hint(diag)
		res.Diagnostics = append(res.Diagnostics, diag)
	}
	return res, deps, stable, nil
}

// rejected is the error of a compiler that rejected the check's own
// configuration or declarations (an old one does not know its options).
func (c *Compiler) rejected(msg string) error {
	return fmt.Errorf("type check: %s rejected the check's configuration: %s (mcpcode needs TypeScript 5 or later, best 7: %s)",
		c, firstLine(msg), "npm i -D typescript@7")
}

// sameFile reports whether the file the compiler listed (absolute, or
// relative to the workspace) is the file at abs.
func sameFile(listed, ws, abs string) bool {
	if !filepath.IsAbs(listed) {
		listed = filepath.Join(ws, listed)
	}
	real, err := filepath.EvalSymlinks(listed)
	return err == nil && real == abs
}

// runDirPrefix names a check's temporary directory in the state directory.
const runDirPrefix = "run-"

// staleAfter is when a check's temporary directory is surely left over by
// a process that ended before removing it.
const staleAfter = time.Hour

// removeStale removes the temporary directories of checks that ended
// without removing theirs (their process was killed).
func removeStale(stateDir string) {
	entries, err := os.ReadDir(stateDir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), runDirPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleAfter {
			_ = os.RemoveAll(filepath.Join(stateDir, e.Name()))
		}
	}
}

// isLib reports whether path is one of the compiler's own declaration
// files.
func (c *Compiler) isLib(p string) bool {
	base := filepath.Base(p)
	if !strings.HasPrefix(base, "lib.") || !strings.HasSuffix(base, ".d.ts") {
		return false
	}
	for _, dir := range c.libDirs {
		if real, err := filepath.EvalSymlinks(dir); err == nil && filepath.Dir(p) == real {
			return true
		}
	}
	return false
}

// run runs the compiler on the configuration, with at most memory bytes
// of data (on Linux), and returns its standard output (its diagnostics and
// the files it read), and an error when it did not end well: a timeout,
// its memory, a signal, an output larger than maxOutput, or an exit code
// other than 0 (no errors) and 1 or 2 (errors reported); the error quotes
// the start of its standard error (where a crash is told), never of its
// output.
func (c *Compiler) run(ctx context.Context, ws, config string, timeout time.Duration, memory int64) ([]byte, error) {
	waitingForCompiler.Add(1)
	select {
	case compilerSlots <- struct{}{}:
		waitingForCompiler.Add(-1)
		defer func() { <-compilerSlots }()
	case <-ctx.Done():
		waitingForCompiler.Add(-1)
		return nil, ctx.Err()
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Path, "-p", config)
	cmd.Dir = ws // paths in its messages are relative to it
	cmd.Env = []string{}
	if c.PATH != "" {
		cmd.Env = append(cmd.Env, "PATH="+c.PATH)
	}
	stdout, stderr := &limitedBuffer{max: maxOutput}, &limitedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownProcessGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	// Set at once, before the compiler has read its configuration.
	if err := limitMemory(cmd.Process.Pid, memory); err != nil {
		cancel()
		_ = cmd.Wait()
		return nil, fmt.Errorf("limiting its memory: %w", err)
	}
	err := cmd.Wait()
	out := stdout.buf.Bytes()
	if lowErr := strings.ToLower(stderr.buf.String()); strings.Contains(lowErr, "out of memory") || strings.Contains(lowErr, "cannot allocate memory") {
		return out, fmt.Errorf("it ran out of the %d MiB of memory it is given (a program whose types take this much cannot be checked; run it unchecked)", memory>>20)
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return out, fmt.Errorf("it did not finish within %v (a program whose types take this long cannot be checked; run it unchecked)", timeout)
		}
		return out, ctx.Err()
	}
	if stdout.cut {
		return out, fmt.Errorf("its output exceeded %d MiB (a program with this many errors cannot be checked)", maxOutput>>20)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() && (ee.ExitCode() == 1 || ee.ExitCode() == 2) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("%w%s", err, outputExcerpt(stderr.buf.Bytes()))
	}
	return out, nil
}

// limitedBuffer keeps the first max bytes written to it. It has no
// ReadFrom, so that os/exec copies the output through Write.
type limitedBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.cut = true
		if room > 0 {
			b.buf.Write(p[:room])
		}
		return len(p), nil
	}
	return b.buf.Write(p)
}

// outputExcerpt is the start of what the compiler wrote on its standard
// error, for an error.
func outputExcerpt(out []byte) string {
	s := strings.TrimSpace(string(out))
	if s == "" {
		return ""
	}
	return ":\n" + cut(s, 600)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sourceLine returns line n (1-based) of src, lines ending where
// JavaScript ends them (\n, \r\n, \r, U+2028, U+2029), as the compiler
// counts them.
func sourceLine(src []byte, n int) string {
	if n < 1 || src == nil {
		return ""
	}
	s := string(src)
	for line := 1; ; line++ {
		end, next := lineEnd(s)
		if line == n {
			return cut(s[:end], 300)
		}
		if next < 0 {
			return ""
		}
		s = s[next:]
	}
}

// lineEnd returns where the first line of s ends and where the next one
// starts (-1 when s has no further line).
func lineEnd(s string) (end, next int) {
	for i, r := range s {
		switch r {
		case '\n', '\u2028', '\u2029':
			return i, i + utf8.RuneLen(r)
		case '\r':
			if strings.HasPrefix(s[i+1:], "\n") {
				return i, i + 2
			}
			return i, i + 1
		}
	}
	return len(s), -1
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
