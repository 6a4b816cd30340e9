package runtime

import (
	"errors"
	"fmt"
	"github.com/mcpcode/mcpcode/internal/layout"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// codeExtensions are the files an import may name, in probing order.
var codeExtensions = []string{".ts", ".tsx", ".mts", ".js", ".mjs", ".jsx"}

// nodeBuiltins are Node's core modules; importing one gets a message that
// says why nothing like it exists here.
var nodeBuiltins = []string{
	"assert", "async_hooks", "buffer", "child_process", "cluster", "console", "constants",
	"crypto", "dgram", "diagnostics_channel", "dns", "domain", "events", "fs", "http", "http2",
	"https", "inspector", "module", "net", "os", "path", "perf_hooks", "process", "punycode",
	"querystring", "readline", "repl", "stream", "string_decoder", "sys", "timers", "tls",
	"trace_events", "tty", "url", "util", "v8", "vm", "wasi", "worker_threads", "zlib",
}

// resolution is where one import leads.
type resolution struct {
	// virtual is the virtual module ("runtime", "fs", "skill/<name>"), or
	// "" for a file.
	virtual string
	// rel is the real, workspace-relative, slash-separated file path.
	rel string
}

// importError is an import that is refused or not found.
type importError struct {
	spec   string
	reason string
	hint   string
}

func (e *importError) Error() string {
	msg := fmt.Sprintf("import %q is not allowed: %s", e.spec, e.reason)
	if e.hint != "" {
		msg += "; " + e.hint
	}
	return msg
}

const (
	programImportsHint = `programs may import "./servers/<server>/<tool>" (or "servers/..."), approved skills as "skills/<name>", their own files inside the workspace, "mcpcode:runtime" and "mcpcode:fs"`
	skillImportsHint   = `skill code may import the tree as "servers/...", approved skills as "skills/<name>", the files of its own folder, "mcpcode:runtime" and "mcpcode:fs"`
)

func (b *build) deny(spec, reason string) error {
	hint := programImportsHint
	if b.spec.skill != "" {
		hint = skillImportsHint
	}
	return &importError{spec: spec, reason: reason, hint: hint}
}

// resolve decides where spec, imported by the file importer (workspace-
// relative), leads, or why it may not be imported.
func (b *build) resolve(importer, spec string) (resolution, error) {
	switch {
	case spec == "mcpcode:runtime":
		return resolution{virtual: "runtime"}, nil
	case spec == "mcpcode:fs":
		return resolution{virtual: "fs"}, nil
	case strings.HasPrefix(spec, "mcpcode:"):
		return resolution{}, b.deny(spec, `the only mcpcode modules are "mcpcode:runtime" and "mcpcode:fs"`)
	case strings.ContainsAny(spec, "\x00\\"):
		return resolution{}, b.deny(spec, "import paths use forward slashes and contain no NUL")
	case strings.HasPrefix(spec, "node:") || isNodeBuiltin(spec):
		return resolution{}, b.deny(spec, `Node built-in modules do not exist here: there is no filesystem, network, process or environment access (files under workspace/ are reachable through "mcpcode:fs")`)
	case strings.Contains(spec, "://") || strings.HasPrefix(spec, "data:") || strings.HasPrefix(spec, "file:"):
		return resolution{}, b.deny(spec, "URLs cannot be imported")
	case path.IsAbs(spec) || filepath.IsAbs(spec) || filepath.VolumeName(spec) != "":
		return resolution{}, b.deny(spec, "absolute paths are not allowed")
	}
	var logical string
	relative := spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../")
	switch {
	case relative:
		logical = path.Join(path.Dir(importer), spec)
	case hasPathPrefix(spec, layout.ServersDir) || hasPathPrefix(spec, layout.SkillsDir):
		logical = path.Clean(spec)
	default:
		return resolution{}, b.deny(spec, "npm packages and bare module names are not available")
	}
	if logical == ".." || strings.HasPrefix(logical, "../") {
		return resolution{}, b.deny(spec, "it leads outside the workspace")
	}
	// A skill's own folder first: a proposal's folder is hidden, and its
	// files are the skill's own.
	if sk := b.spec; sk.skill != "" && hasPathPrefix(logical, sk.folder) && logical != sk.folder {
		return b.resolveOwn(spec, logical)
	}
	if reason := unimportable(logical); reason != "" {
		return resolution{}, b.deny(spec, reason)
	}
	segs := strings.Split(logical, "/")
	if isSegment(segs[0], layout.SkillsDir) {
		return b.resolveSkill(spec, segs)
	}
	if b.spec.skill != "" && !isSegment(segs[0], layout.ServersDir) {
		reason := fmt.Sprintf("it is outside servers/ and skills/, and skill %q may import only reviewed code: the files of its own folder %s/", b.spec.skill, b.spec.folder)
		if relative && (strings.Contains(spec, "servers/") || strings.Contains(spec, "skills/")) {
			reason = fmt.Sprintf("relative paths from a skill lead from its own folder %s/; write the tree as \"servers/<server>/<tool>\" and skills as \"skills/<name>\"", b.spec.folder)
		}
		return resolution{}, b.deny(spec, reason)
	}
	candidates := importCandidates(logical)
	for _, c := range candidates {
		abs := filepath.Join(b.ws, filepath.FromSlash(c))
		fi, err := os.Stat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		rel, err := b.realRel(abs)
		if err != nil {
			return resolution{}, b.deny(spec, err.Error())
		}
		if rel != c {
			if reason := unimportable(rel); reason != "" {
				return resolution{}, b.deny(spec, "it is a symbolic link to "+rel+": "+reason)
			}
			if hasPathPrefix(rel, layout.SkillsDir) {
				return resolution{}, b.deny(spec, "it is a symbolic link into skills/: import a skill as skills/<name>")
			}
		}
		if !slices.Contains(codeExtensions, path.Ext(rel)) {
			return resolution{}, b.deny(spec, "only "+strings.Join(codeExtensions, ", ")+" files can be imported")
		}
		return resolution{rel: rel}, nil
	}
	if fi, err := os.Stat(filepath.Join(b.ws, filepath.FromSlash(logical))); err == nil && fi.Mode().IsRegular() {
		return resolution{}, b.deny(spec, "only "+strings.Join(codeExtensions, ", ")+" files can be imported")
	}
	return resolution{}, notFound(spec, logical, candidates)
}

// notFound is the error of an import that leads nowhere.
func notFound(spec, logical string, candidates []string) error {
	shown := candidates
	if len(shown) > 3 {
		shown = shown[:3]
	}
	hint := ""
	if hasPathPrefix(logical, layout.ServersDir) {
		hint = "; list servers/ to see the tools there, or run `mcpcode gen` to generate the tree"
	}
	return fmt.Errorf("import %q: no such file in the workspace (looked for %s, ...)%s", spec, strings.Join(shown, ", "), hint)
}

// resolveSkill resolves an import of skills/...: exactly skills/<name>,
// an approved skill, which becomes a virtual module whose default export
// calls the skill in a realm of its own.
func (b *build) resolveSkill(spec string, segs []string) (resolution, error) {
	if len(segs) < 2 {
		return resolution{}, b.deny(spec, "skills/ holds one directory per skill: import a skill as skills/<name>")
	}
	name := segs[1]
	if _, err := b.skills.grant(name); err != nil {
		return resolution{}, fmt.Errorf("import %q: %w", spec, err)
	}
	if len(segs) > 2 {
		return resolution{}, b.deny(spec, fmt.Sprintf("a skill runs in a realm of its own and only its default export can be imported: import it as \"skills/%s\"", name))
	}
	b.skills.use(name)
	return resolution{virtual: "skill/" + name}, nil
}

// resolveOwn resolves an import inside a skill's own folder: from the
// files its policy checked, or from disk without symbolic links.
func (b *build) resolveOwn(spec, logical string) (resolution, error) {
	candidates := importCandidates(logical)
	for _, c := range candidates {
		if b.spec.files != nil {
			if _, ok := b.spec.files[strings.TrimPrefix(c, b.spec.folder+"/")]; ok {
				return resolution{rel: c}, nil
			}
			continue
		}
		fi, err := b.root.Lstat(filepath.FromSlash(c))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		if err := noSymlinks(b.root, c); err != nil {
			return resolution{}, b.deny(spec, err.Error())
		}
		return resolution{rel: c}, nil
	}
	if _, ok := b.skillFile(logical); ok {
		return resolution{}, b.deny(spec, "only "+strings.Join(codeExtensions, ", ")+" files can be imported")
	}
	err := notFound(spec, logical, candidates)
	if strings.Contains(spec, "servers/") || strings.Contains(spec, "skills/") {
		err = fmt.Errorf("%w; relative paths from a skill lead from its own folder %s/: write the tree as \"servers/<server>/<tool>\" and skills as \"skills/<name>\"", err, b.spec.folder)
	}
	return resolution{}, err
}

// skillFile returns a file of the skill's own folder from the files its
// policy checked; ok is false for other paths, and for every path when the
// skill's files are read from disk.
func (b *build) skillFile(rel string) ([]byte, bool) {
	sk := b.spec
	if sk.skill == "" || sk.files == nil || !strings.HasPrefix(rel, sk.folder+"/") {
		return nil, false
	}
	data, ok := sk.files[strings.TrimPrefix(rel, sk.folder+"/")]
	return data, ok
}

// noSymlinks refuses a workspace-relative path any of whose components is
// a symbolic link: a skill's files are exactly the files in its folder.
func noSymlinks(root *os.Root, rel string) error {
	p := ""
	for _, seg := range strings.Split(rel, "/") {
		p = path.Join(p, seg)
		fi, err := root.Lstat(filepath.FromSlash(p))
		if err != nil {
			return fmt.Errorf("cannot read %s: %v", p, unwrapPathError(err))
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: symbolic links under skills/ are refused (replace it with the file itself)", p)
		}
	}
	return nil
}

// realRel returns the workspace-relative real path of abs, refusing files
// whose real location (after symlinks) is outside the workspace.
func (b *build) realRel(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("cannot read it: %v", err)
	}
	rel, err := filepath.Rel(b.ws, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", errors.New("it is a symbolic link to a file outside the workspace")
	}
	return filepath.ToSlash(rel), nil
}

// ImportRefusal says why a workspace-relative, slash-separated path of a
// file may never be imported by a program or a skill (it is under
// workspace/ or .mcpcode/, hidden, in node_modules or a proposal, or no
// code file: mcp.json, a .cts or .cjs file), or returns "". The type check
// (runtime/typecheck) confines what the compiler may read with it: the
// compiler also reads JSON, .cts and .cjs files, and shows their types.
func ImportRefusal(rel string) string {
	if reason := unimportable(rel); reason != "" {
		return reason
	}
	if !slices.Contains(codeExtensions, path.Ext(rel)) {
		return "only " + strings.Join(codeExtensions, ", ") + " files can be imported"
	}
	return ""
}

// unimportable says why a workspace-relative path may never be imported, or
// returns "". Reserved names are compared without case, as a
// case-insensitive file system (macOS, Windows) would resolve them.
func unimportable(rel string) string {
	segs := strings.Split(rel, "/")
	switch {
	case isSegment(segs[0], layout.FilesDir):
		return `files under workspace/ are data for "mcpcode:fs", not code`
	case isSegment(segs[0], layout.StateDir):
		return "files under .mcpcode/ are mcpcode's own"
	case isSegment(segs[0], layout.SkillsDir) && len(segs) > 1 && (isSegment(segs[1], layout.ProposalsDir) || isSegment(segs[1], layout.DismissedDir)):
		return "skills/" + strings.ToLower(segs[1]) + "/ holds proposals that are not approved; only approved skills (skills/<name>) can be imported"
	}
	for _, s := range segs {
		if strings.HasPrefix(s, ".") && s != "." {
			return "hidden files and directories cannot be imported"
		}
		if isSegment(s, "node_modules") {
			return "npm packages are not available"
		}
	}
	return ""
}

// isSegment reports whether a path segment is the reserved name, in any
// case.
func isSegment(seg, reserved string) bool { return strings.EqualFold(seg, reserved) }

// importCandidates lists the files an import of logical may mean, in the
// order TypeScript would look for them.
func importCandidates(logical string) []string {
	ext := path.Ext(logical)
	if slices.Contains(codeExtensions, ext) {
		out := []string{logical}
		base := strings.TrimSuffix(logical, ext)
		switch ext { // TypeScript's ESM style: import "./x.js" means x.ts
		case ".js":
			out = append(out, base+".ts", base+".tsx")
		case ".mjs":
			out = append(out, base+".mts")
		case ".jsx":
			out = append(out, base+".tsx")
		}
		return out
	}
	var out []string
	for _, e := range codeExtensions {
		out = append(out, logical+e)
	}
	for _, e := range codeExtensions {
		out = append(out, logical+"/index"+e)
	}
	if segs := strings.Split(logical, "/"); len(segs) == 2 && isSegment(segs[0], layout.SkillsDir) {
		out = append(out, logical+"/"+segs[1]+".ts") // skills/<name>/<name>.ts
	}
	return out
}

func hasPathPrefix(spec, dir string) bool {
	return spec == dir || strings.HasPrefix(spec, dir+"/")
}

func isNodeBuiltin(spec string) bool {
	first, _, _ := strings.Cut(spec, "/")
	return slices.Contains(nodeBuiltins, first)
}
