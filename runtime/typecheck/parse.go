package typecheck

import (
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/lazyregexp"
)

// codeCannotFindModule is TS2307, "Cannot find module 'x' or its
// corresponding type declarations".
const codeCannotFindModule = 2307

// maxMessage bounds one diagnostic's message.
const maxMessage = 2000

// rawDiag is one diagnostic as the compiler printed it (--pretty false):
// FILE(LINE,COL): error TSCODE: MESSAGE, the message's further lines
// indented by two spaces.
type rawDiag struct {
	file         string
	line, column int
	code         int
	message      string
}

// output is the compiler's output, parsed.
type output struct {
	diags []rawDiag
	// global are errors of no file, or of the check's own configuration.
	global []string
	// files are the files of the program (--listFiles), as printed.
	files []string
}

var (
	diagLine   = lazyregexp.New(`^(.+)\((\d+),(\d+)\): error TS(\d+): (.*)$`)
	globalLine = lazyregexp.New(`^error TS(\d+): (.*)$`)
)

// parseOutput parses the compiler's output. Every line is a diagnostic, a
// further line of the one before (indented), an error of no file, or a
// file of the program.
func parseOutput(out []byte) output {
	var o output
	var last *rawDiag
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimRight(line, "\r")
		switch {
		case line == "":
			last = nil
		case strings.HasPrefix(line, "  ") && last != nil:
			if len(last.message) < maxMessage {
				last.message += "\n" + line
			}
		case diagLine.MatchString(line):
			m := diagLine.FindStringSubmatch(line)
			d := rawDiag{file: m[1], message: m[5]}
			d.line, _ = strconv.Atoi(m[2])
			d.column, _ = strconv.Atoi(m[3])
			d.code, _ = strconv.Atoi(m[4])
			o.diags = append(o.diags, d)
			last = &o.diags[len(o.diags)-1]
		case globalLine.MatchString(line):
			o.global = append(o.global, globalLine.FindStringSubmatch(line)[2])
			last = nil
		default:
			o.files = append(o.files, line)
			last = nil
		}
	}
	for i := range o.diags {
		o.diags[i].message = cut(o.diags[i].message, maxMessage)
	}
	return o
}

// configErrors moves the diagnostics of the check's own files other than
// the program (its configuration, the declarations) to global: they are
// the check's problem, not the program's.
func (o *output) configErrors(ws, tmp, program string) {
	kept := o.diags[:0]
	for _, d := range o.diags {
		abs := d.file
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(ws, abs)
		}
		if abs != program && isWithin(abs, tmp) {
			o.global = append(o.global, d.message)
			continue
		}
		kept = append(kept, d)
	}
	o.diags = kept
}

// Diagnostics of something not found where a program named it.
const (
	codeCannotFindModuleDid = 2792 // Cannot find module 'x'. Did you mean to set the 'moduleResolution' option ...
	codeFileNotFound        = 6053 // File '/abs/x.ts' not found.
)

var quoted = lazyregexp.New(`'([^']*)'`)

// lookedOutside reports whether d says that nothing was found where a
// program may not look: a module named by an absolute path, or by a
// relative one or one under servers/ or skills/ that leads out of the
// workspace; a referenced file (named as resolved) outside the workspace
// or that may not be imported. Where something is found there, the check
// refuses the program (the compiler listed the file): that nothing is
// there must not be told either.
func (m mapper) lookedOutside(d rawDiag, importable func(rel string) string) bool {
	if d.code != codeCannotFindModule && d.code != codeCannotFindModuleDid && d.code != codeFileNotFound {
		return false
	}
	q := quoted.FindStringSubmatch(d.message)
	if q == nil {
		return false
	}
	name := q[1]
	switch {
	case path.IsAbs(name) || filepath.IsAbs(name) || filepath.VolumeName(name) != "":
		if d.code != codeFileNotFound {
			return true // the bundler takes no absolute path
		}
		rel, err := filepath.Rel(m.ws, filepath.Clean(name))
		return err != nil || !filepath.IsLocal(rel) || importable != nil && importable(filepath.ToSlash(rel)) != ""
	case strings.HasPrefix(name, "./") || strings.HasPrefix(name, "../") || name == "..":
		// From the file as shown, in the workspace.
		return leaves(path.Join(path.Dir(m.path(d.file)), name))
	case strings.HasPrefix(name, "servers/") || strings.HasPrefix(name, "skills/"):
		// From the workspace (the configuration's paths).
		return leaves(path.Clean(name))
	}
	return false
}

// leaves reports whether a clean workspace-relative path leads out of it.
func leaves(logical string) bool {
	return logical == ".." || strings.HasPrefix(logical, "../") || path.IsAbs(logical)
}

// mapper turns the compiler's paths into the workspace's.
type mapper struct {
	ws, tmp string
	// program is the program's path as the compiler saw it, and name the
	// workspace-relative name it is shown under.
	program, name string
}

// diagnostic maps a diagnostic's file to its workspace-relative name and
// takes the check's temporary directory out of its message.
func (m mapper) diagnostic(d rawDiag) Diagnostic {
	out := Diagnostic{File: m.path(d.file), Line: d.line, Column: d.column, Code: d.code, Message: m.text(d.message)}
	return out
}

// path is a file's name as shown: the program's name, else relative to
// the workspace when inside it, else as printed.
func (m mapper) path(file string) string {
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(m.ws, abs)
	}
	abs = filepath.Clean(abs)
	if abs == m.program {
		return m.name
	}
	if rel, err := filepath.Rel(m.ws, abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return file
}

// text takes the check's own paths out of a message: the temporary folder
// of a program given as text, then the workspace's absolute path.
func (m mapper) text(s string) string {
	progDir := filepath.ToSlash(filepath.Dir(m.program))
	shownDir := path.Dir(m.name)
	if shownDir == "." {
		shownDir = ""
	} else {
		shownDir += "/"
	}
	if rel, err := filepath.Rel(m.ws, filepath.Dir(m.program)); err == nil && filepath.IsLocal(rel) && rel != "." {
		s = strings.ReplaceAll(s, filepath.ToSlash(rel)+"/", shownDir)
	}
	s = strings.ReplaceAll(s, progDir+"/", shownDir)
	s = strings.ReplaceAll(s, filepath.ToSlash(m.ws)+"/", "")
	return s
}

// isWithin reports whether p is dir or inside it.
func isWithin(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && filepath.IsLocal(rel)
}

// cut keeps at most n bytes of s, on a character boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
