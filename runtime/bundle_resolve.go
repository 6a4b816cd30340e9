package runtime

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
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
	// virtual is "runtime" or "fs" for the virtual modules, else "".
	virtual string
	// rel is the real, workspace-relative, slash-separated file path.
	rel   string
	scope *scope
}

// resolver confines the imports of one build to the workspace: generated
// servers/ files, approved skills, the program's own files, and the virtual
// modules. It is used from esbuild's goroutines concurrently.
type resolver struct {
	// ws is the workspace's real absolute path (symlinks evaluated).
	ws     string
	policy SkillPolicy

	mu     sync.Mutex
	scopes *scopeTable
	grants map[string]grantResult
}

type grantResult struct {
	grant SkillGrant
	err   error
}

func newResolver(ws string, policy SkillPolicy) *resolver {
	return &resolver{ws: ws, policy: policy, scopes: newScopeTable(), grants: map[string]grantResult{}}
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
	skillImportsHint   = `skill code may import "servers/...", approved skills as "skills/<name>", its own files, "mcpcode:runtime" and "mcpcode:fs"`
)

func (r *resolver) deny(from *scope, spec, reason string) error {
	hint := programImportsHint
	if from.skill != "" {
		hint = skillImportsHint
	}
	return &importError{spec: spec, reason: reason, hint: hint}
}

// resolve decides where spec, imported by the file importer (workspace-
// relative) in scope from, leads, or why it may not be imported.
func (r *resolver) resolve(from *scope, importer, spec string) (resolution, error) {
	switch {
	case spec == "mcpcode:runtime":
		return resolution{virtual: "runtime", scope: from}, nil
	case spec == "mcpcode:fs":
		return resolution{virtual: "fs", scope: from}, nil
	case strings.HasPrefix(spec, "mcpcode:"):
		return resolution{}, r.deny(from, spec, `the only mcpcode modules are "mcpcode:runtime" and "mcpcode:fs"`)
	case strings.ContainsAny(spec, "\x00\\"):
		return resolution{}, r.deny(from, spec, "import paths use forward slashes and contain no NUL")
	case strings.HasPrefix(spec, "node:") || isNodeBuiltin(spec):
		return resolution{}, r.deny(from, spec, `Node built-in modules do not exist here: there is no filesystem, network, process or environment access (files under workspace/ are reachable through "mcpcode:fs")`)
	case strings.Contains(spec, "://") || strings.HasPrefix(spec, "data:") || strings.HasPrefix(spec, "file:"):
		return resolution{}, r.deny(from, spec, "URLs cannot be imported")
	case path.IsAbs(spec) || filepath.IsAbs(spec) || filepath.VolumeName(spec) != "":
		return resolution{}, r.deny(from, spec, "absolute paths are not allowed")
	}
	var logical string
	switch {
	case spec == "." || spec == ".." || strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../"):
		logical = path.Join(path.Dir(importer), spec)
	case hasPathPrefix(spec, "servers") || hasPathPrefix(spec, "skills"):
		logical = path.Clean(spec)
	default:
		return resolution{}, r.deny(from, spec, "npm packages and bare module names are not available")
	}
	if logical == ".." || strings.HasPrefix(logical, "../") {
		return resolution{}, r.deny(from, spec, "it leads outside the workspace")
	}
	if reason := unimportable(logical); reason != "" {
		return resolution{}, r.deny(from, spec, reason)
	}
	// A skill that is not approved is explained by the policy, whether or
	// not its files happen to exist.
	if segs := strings.Split(logical, "/"); isSegment(segs[0], "skills") && len(segs) >= 2 {
		r.mu.Lock()
		_, err := r.grantLocked(segs[1])
		r.mu.Unlock()
		if err != nil {
			return resolution{}, fmt.Errorf("import %q: %w", spec, err)
		}
	}
	candidates := importCandidates(logical)
	for _, c := range candidates {
		abs := filepath.Join(r.ws, filepath.FromSlash(c))
		fi, err := os.Stat(abs)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		rel, err := r.realRel(abs)
		if err != nil {
			return resolution{}, r.deny(from, spec, err.Error())
		}
		if rel != c {
			if reason := unimportable(rel); reason != "" {
				return resolution{}, r.deny(from, spec, "it is a symbolic link to "+rel+": "+reason)
			}
		}
		if !slices.Contains(codeExtensions, path.Ext(rel)) {
			return resolution{}, r.deny(from, spec, "only "+strings.Join(codeExtensions, ", ")+" files can be imported")
		}
		sc, err := r.scopeOf(from, spec, rel)
		if err != nil {
			return resolution{}, err
		}
		return resolution{rel: rel, scope: sc}, nil
	}
	if fi, err := os.Stat(filepath.Join(r.ws, filepath.FromSlash(logical))); err == nil && fi.Mode().IsRegular() {
		return resolution{}, r.deny(from, spec, "only "+strings.Join(codeExtensions, ", ")+" files can be imported")
	}
	shown := candidates
	if len(shown) > 3 {
		shown = shown[:3]
	}
	hint := ""
	if hasPathPrefix(logical, "servers") {
		hint = "; list servers/ to see the tools there, or run `mcpcode gen` to generate the tree"
	}
	return resolution{}, fmt.Errorf("import %q: no such file in the workspace (looked for %s, ...)%s", spec, strings.Join(shown, ", "), hint)
}

// realRel returns the workspace-relative real path of abs, refusing files
// whose real location (after symlinks) is outside the workspace.
func (r *resolver) realRel(abs string) (string, error) {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("cannot read it: %v", err)
	}
	rel, err := filepath.Rel(r.ws, real)
	if err != nil || !filepath.IsLocal(rel) {
		return "", errors.New("it is a symbolic link to a file outside the workspace")
	}
	return filepath.ToSlash(rel), nil
}

// scopeOf returns the scope of the module at rel imported from scope from:
// skills/<name>/... belongs to that skill (which must be approved);
// servers/... stays in the importer's scope; other files are the program's
// and may not be imported by skill code. Reserved names are compared
// without case: on a case-insensitive file system Skills/ is skills/.
func (r *resolver) scopeOf(from *scope, spec, rel string) (*scope, error) {
	segs := strings.Split(rel, "/")
	switch {
	case isSegment(segs[0], "servers"):
		return from, nil
	case isSegment(segs[0], "skills"):
		if len(segs) < 3 {
			return nil, r.deny(from, spec, "skills/ holds one directory per skill: import a skill as skills/<name>")
		}
		name := segs[1]
		r.mu.Lock()
		defer r.mu.Unlock()
		sc, err := r.scopes.enter(from, name, r.grantLocked)
		if err != nil {
			return nil, fmt.Errorf("import %q: %w", spec, err)
		}
		return sc, nil
	}
	if from.skill != "" {
		return nil, r.deny(from, spec, fmt.Sprintf("it is outside servers/ and skills/, and skill %q may import only reviewed code", from.skill))
	}
	return from, nil
}

// grantLocked asks the policy for a skill's grant once per build.
func (r *resolver) grantLocked(name string) (SkillGrant, error) {
	if g, ok := r.grants[name]; ok {
		return g.grant, g.err
	}
	var g grantResult
	if r.policy == nil {
		g.err = fmt.Errorf("skills are not available here (no skill policy is configured), so skills/%s cannot be imported", name)
	} else {
		g.grant, g.err = r.policy.Skill(name)
	}
	r.grants[name] = g
	return g.grant, g.err
}

// unimportable says why a workspace-relative path may never be imported, or
// returns "". Reserved names are compared without case, as a
// case-insensitive file system (macOS, Windows) would resolve them.
func unimportable(rel string) string {
	segs := strings.Split(rel, "/")
	switch {
	case isSegment(segs[0], "workspace"):
		return `files under workspace/ are data for "mcpcode:fs", not code`
	case isSegment(segs[0], ".mcpcode"):
		return "files under .mcpcode/ are mcpcode's own"
	case isSegment(segs[0], "skills") && len(segs) > 1 && (isSegment(segs[1], ".proposals") || isSegment(segs[1], ".dismissed")):
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
	if segs := strings.Split(logical, "/"); len(segs) == 2 && isSegment(segs[0], "skills") {
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
