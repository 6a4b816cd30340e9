package runtime

import (
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/mcpcode/mcpcode/internal/layout"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/evanw/esbuild/pkg/api"
	"github.com/mcpcode/mcpcode/runtime/internal/bundletrace"
	"github.com/mcpcode/mcpcode/runtime/internal/precheck"
)

// bundleFileName is the script name goja sees. It is relative on purpose:
// goja resolves source-map URLs against it.
const bundleFileName = "mcpcode-bundle.js"

// goSupported lowers the syntax goja lacks.
var goSupported = map[string]bool{
	"async-generator": false,
	"for-await":       false,
	"using":           false,
	"decorators":      false,
	"import-meta":     false,
	"dynamic-import":  false,
	"hashbang":        false,
}

// Bundle bundles a program and its imports into one script for Run, in
// this process, and every approved skill it imports (directly or through
// other skills) into a script of its own: a skill runs in a realm of its
// own. The error is a *BundleError whose diagnostics carry
// workspace-relative positions.
//
// Every file is checked before esbuild reads it, so that the common ways to
// give it too much get a diagnostic that says what to change: at most
// 1 MiB per program or skill file, 2 MiB and 1000 files in all outside
// servers/ (the generated servers/ tree: 16 MiB a file), and brackets,
// braces, parentheses and template substitutions nested at most 200 deep
// (servers/ files included).
//
// That check is no bound on what bundling costs: esbuild recurses on the
// syntax tree (a Go stack overflow ends the process and cannot be
// recovered), takes more than linear time on some shapes of code (a
// 2,000-deep arrow chain takes it many seconds) and cannot be interrupted.
// So Bundle is for trusted source (isolation "none"); untrusted source is
// bundled in a worker process by runtime/worker, where a crash or a hang
// costs only that process.
func Bundle(opts BundleOptions) (*Program, error) {
	bundletrace.Note(opts.Entry, opts.Source)
	ws, err := workspaceRoot(opts.Workspace)
	if err != nil {
		return nil, bundleErrorf("", "%v", err)
	}
	entry, err := entryPath(ws, opts)
	if err != nil {
		return nil, bundleErrorf(opts.Entry, "%v", err)
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, bundleErrorf("", "opening workspace: %v", err)
	}
	defer root.Close()

	skills := newSkillTable(opts.Skills)
	var files precheck.Build
	top := &realmSpec{entry: entry, source: opts.Source}
	if opts.Skill != "" {
		top.skill, top.folder = opts.Skill, path.Dir(entry)
	}
	out, err := bundleRealm(ws, root, top, skills, &files)
	if err != nil {
		return nil, err
	}
	p := &Program{Code: out.code, Entry: entry, compiled: out.compiled, Calls: out.calls, Unverifiable: out.unverifiable}
	// Every skill the program reaches, each bundled on its own; the table
	// grows while skills import skills.
	for i := 0; i < len(skills.order); i++ {
		name := skills.order[i]
		g, _ := skills.grant(name)
		spec, err := skillSpec(ws, root, name, g)
		if err != nil {
			return nil, err
		}
		sout, err := bundleRealm(ws, root, spec, skills, &files)
		if err != nil {
			return nil, err
		}
		g.Files = nil
		p.SkillCode = append(p.SkillCode, &SkillCode{Name: name, Code: sout.code, Grant: g, compiled: sout.compiled})
		for _, c := range sout.calls {
			c.Skill = name
			p.Calls = append(p.Calls, c)
		}
		p.Unverifiable = append(p.Unverifiable, sout.unverifiable...)
	}
	slices.SortFunc(p.SkillCode, func(a, b *SkillCode) int { return strings.Compare(a.Name, b.Name) })
	p.Skills = []string{}
	for _, c := range p.SkillCode {
		p.Skills = append(p.Skills, c.Name)
	}
	sortCalls(p.Calls)
	slices.Sort(p.Unverifiable)
	p.Unverifiable = slices.Compact(p.Unverifiable)
	if p.Unverifiable == nil {
		p.Unverifiable = []string{}
	}
	return p, nil
}

// realmSpec says what one realm's bundle holds: the program's own code, or
// one skill's.
type realmSpec struct {
	// entry is the workspace-relative path of the entry file.
	entry string
	// source is the entry's text; nil reads it (from files for a skill).
	source []byte
	// skill is the skill's name; "" for the program.
	skill string
	// folder is the skill's folder (workspace-relative): the only place
	// its relative imports may lead, besides the tree.
	folder string
	// files are the skill's files by path relative to folder, as its
	// policy checked them; nil reads them from disk (symbolic links
	// refused).
	files map[string][]byte
}

// realmOutput is one realm's bundle.
type realmOutput struct {
	code         string
	compiled     *goja.Program
	calls        []ToolRef
	unverifiable []string
}

// skillSpec is the realm of an approved skill: its folder skills/<name>,
// its entry the first of index.ts (.tsx, .js, ...) and <name>.ts that it
// has.
func skillSpec(ws string, root *os.Root, name string, g SkillGrant) (*realmSpec, error) {
	spec := &realmSpec{skill: name, folder: "skills/" + name, files: g.Files}
	for _, c := range importCandidates(spec.folder) {
		rel := strings.TrimPrefix(c, spec.folder+"/")
		if spec.files != nil {
			if _, ok := spec.files[rel]; ok {
				spec.entry = c
				break
			}
			continue
		}
		if fi, err := root.Lstat(filepath.FromSlash(c)); err == nil && fi.Mode().IsRegular() {
			spec.entry = c
			break
		}
	}
	if spec.entry == "" {
		return nil, bundleErrorf(spec.folder, "skill %q has no program (index.ts): approve it again with mcpcode skills approve", name)
	}
	if spec.files == nil {
		if err := noSymlinks(root, spec.entry); err != nil {
			return nil, bundleErrorf(spec.entry, "%v", err)
		}
	}
	return spec, nil
}

// bundleRealm bundles one realm's code with esbuild.
func bundleRealm(ws string, root *os.Root, spec *realmSpec, skills *skillTable, files *precheck.Build) (*realmOutput, error) {
	b := &build{
		ws:       ws,
		root:     root,
		spec:     spec,
		host:     "__mcpcode_" + randomHex(8),
		callName: "__mcpcode_callMCPTool_" + randomHex(8),
		skills:   skills,
		files:    files,
	}
	out := api.Build(api.BuildOptions{
		EntryPoints:    []string{"mcpcode-entry"},
		Bundle:         true,
		Write:          false,
		Format:         api.FormatESModule,
		Platform:       api.PlatformNeutral,
		Target:         api.ESNext,
		Supported:      goSupported,
		Sourcemap:      api.SourceMapExternal,
		SourcesContent: api.SourcesContentExclude,
		Outfile:        filepath.Join(ws, bundleFileName),
		AbsWorkingDir:  ws,
		LogLevel:       api.LogLevelSilent,
		LegalComments:  api.LegalCommentsNone,
		Charset:        api.CharsetUTF8,
		TsconfigRaw:    "{}",
		Plugins:        []api.Plugin{{Name: "mcpcode", Setup: b.setup}},
	})
	if len(out.Errors) > 0 {
		return nil, b.diagnostics(out.Errors)
	}
	var js, rawMap []byte
	for _, f := range out.OutputFiles {
		switch {
		case strings.HasSuffix(f.Path, ".map"):
			rawMap = f.Contents
		case strings.HasSuffix(f.Path, ".js"):
			js = f.Contents
		}
	}
	sm, err := parseSourceMap(rawMap)
	if err != nil {
		return nil, bundleErrorf(spec.entry, "%v", err)
	}
	code := wrapBundle(b.host, js, sm.encode(b.sourceName, 1))

	ast, err := parser.ParseFile(nil, bundleFileName, code, 0, parser.WithSourceMapLoader(refuseSourceMapFile))
	if err != nil {
		return nil, compileDiagnostics(err, sm, b.sourceName)
	}
	compiled, err := goja.CompileAST(ast, true)
	if err != nil {
		return nil, compileDiagnostics(err, sm, b.sourceName)
	}
	calls, unverifiable := analyzeCalls(ast, b.callName)
	return &realmOutput{code: code, compiled: compiled, calls: calls, unverifiable: unverifiable}, nil
}

// wrapBundle wraps esbuild's ESM output (which has no imports or exports
// left) in an async arrow function, so that top-level await works, whose one
// parameter is the host object; the source map goes inline on the last
// line, the only place goja looks for it.
func wrapBundle(host string, js, mapJSON []byte) string {
	var b strings.Builder
	b.Grow(len(js) + len(mapJSON)*4/3 + 128)
	b.WriteString("(async (" + host + ") => {\n")
	b.Write(js)
	b.WriteString("\n})\n//# sourceMappingURL=data:application/json;base64,")
	b.WriteString(base64.StdEncoding.EncodeToString(mapJSON))
	b.WriteString("\n")
	return b.String()
}

// refuseSourceMapFile keeps goja from reading any file named by a
// sourceMappingURL comment; the bundle's own map is inline.
func refuseSourceMapFile(string) ([]byte, error) {
	return nil, errors.New("mcpcode reads only inline source maps")
}

// build is the state of one realm's bundling shared by the plugin
// callbacks (which esbuild calls from several goroutines).
type build struct {
	ws   string
	root *os.Root
	spec *realmSpec
	host string
	// callName is the distinctive, random name of the realm's call
	// function in the bundle, which static analysis looks for.
	callName string
	skills   *skillTable
	// files counts the files outside servers/ of the whole Bundle call for
	// the pre-check.
	files *precheck.Build
}

// Namespaces of esbuild paths: workspace files (the path is workspace-
// relative) and the virtual modules.
const (
	nsFile    = "mcpcode-file"
	nsVirtual = "mcpcode-virtual"
)

func (b *build) setup(pb api.PluginBuild) {
	pb.OnResolve(api.OnResolveOptions{Filter: ".*"}, b.onResolve)
	pb.OnLoad(api.OnLoadOptions{Filter: ".*"}, b.onLoad)
}

// onResolve never calls esbuild's own resolver (which would recurse into
// this callback): every path is decided here, from the import esbuild
// parsed; nothing rewrites the source's text.
func (b *build) onResolve(a api.OnResolveArgs) (api.OnResolveResult, error) {
	if a.Kind == api.ResolveEntryPoint {
		return api.OnResolveResult{Path: "entry", Namespace: nsVirtual}, nil
	}
	if a.Namespace == nsVirtual && a.Importer == "entry" && a.Path == entrySpecifier {
		return api.OnResolveResult{Path: b.spec.entry, Namespace: nsFile}, nil
	}
	fail := func(err error) (api.OnResolveResult, error) {
		return api.OnResolveResult{Errors: []api.Message{{Text: err.Error()}}}, nil
	}
	switch a.Kind {
	case api.ResolveJSRequireCall, api.ResolveJSRequireResolve:
		return fail(fmt.Errorf("require(%q) is not available: use a static import at the top of the file", a.Path))
	case api.ResolveJSDynamicImport:
		return fail(fmt.Errorf("dynamic import(%q) is not available: use a static import at the top of the file", a.Path))
	}
	if a.Namespace != nsFile {
		return fail(fmt.Errorf("import %q from %s: virtual modules import nothing", a.Path, a.Importer))
	}
	r, err := b.resolve(a.Importer, a.Path)
	if err != nil {
		return fail(err)
	}
	switch {
	case r.virtual != "":
		return api.OnResolveResult{Path: r.virtual, Namespace: nsVirtual}, nil
	}
	return api.OnResolveResult{Path: r.rel, Namespace: nsFile}, nil
}

// onLoad serves the virtual modules and reads workspace files itself,
// through an os.Root so the OS refuses anything outside the workspace, and
// a skill's files from what its policy checked.
func (b *build) onLoad(a api.OnLoadArgs) (api.OnLoadResult, error) {
	if a.Namespace == nsVirtual {
		var src string
		switch {
		case a.Path == "entry":
			src = entryModule(b.host)
		case a.Path == "fs":
			src = fsModule(b.host)
		case a.Path == "runtime":
			src = runtimeModule(b.host, b.callName)
		case strings.HasPrefix(a.Path, "skill/"):
			src = skillModule(b.host, strings.TrimPrefix(a.Path, "skill/"))
		default:
			return api.OnLoadResult{}, fmt.Errorf("unknown virtual module %q", a.Path)
		}
		return api.OnLoadResult{Contents: &src, Loader: api.LoaderJS}, nil
	}
	src, msg := b.read(a)
	if msg != nil {
		return api.OnLoadResult{Errors: []api.Message{*msg}}, nil
	}
	if a.Path == b.spec.entry {
		// Programs are ES modules even without imports or exports
		// (esbuild would otherwise treat them as CommonJS). Appended last,
		// so line numbers stay.
		src += "\nexport {};\n"
	}
	return api.OnLoadResult{Contents: &src, Loader: loaderFor(a.Path)}, nil
}

// sourceName turns an esbuild source name ("mcpcode-file:servers/x/y.ts",
// "mcpcode-virtual:runtime") into what stack traces show.
func (b *build) sourceName(s string) string {
	ns, p, ok := strings.Cut(s, ":")
	if !ok {
		return s
	}
	switch ns {
	case nsVirtual:
		switch {
		case p == "runtime":
			return "mcpcode:runtime"
		case p == "fs":
			return "mcpcode:fs"
		case strings.HasPrefix(p, "skill/"):
			return "mcpcode:skills/" + strings.TrimPrefix(p, "skill/")
		}
		return "mcpcode:entry"
	case nsFile:
		return p
	}
	return s
}

// sortCalls orders tool references by skill, server and tool.
func sortCalls(calls []ToolRef) {
	slices.SortFunc(calls, func(x, y ToolRef) int {
		if c := strings.Compare(x.Skill, y.Skill); c != 0 {
			return c
		}
		if c := strings.Compare(x.Server, y.Server); c != 0 {
			return c
		}
		return strings.Compare(x.Tool, y.Tool)
	})
}

// read returns the source of a workspace file esbuild loads, after the
// pre-check (see Bundle): the file's size first, then its shape. The error
// is esbuild's message with the position of the problem.
func (b *build) read(a api.OnLoadArgs) (string, *api.Message) {
	// The program itself is never exempt, whatever its name.
	generated := a.Path != b.spec.entry && hasPathPrefix(a.Path, layout.ServersDir)
	limit := int64(precheck.MaxFileBytes)
	if generated {
		limit = precheck.MaxGeneratedFileBytes
	}
	fail := func(text string) *api.Message {
		return &api.Message{Text: text, Location: &api.Location{File: a.Path, Namespace: a.Namespace}}
	}
	var src string
	if a.Path == b.spec.entry && b.spec.source != nil {
		if int64(len(b.spec.source)) > limit {
			return "", fail(fmt.Sprintf("the program is %s, over the limit of %s: split it into several files", sizeText(int64(len(b.spec.source))), formatBytes(limit)))
		}
		src = string(b.spec.source)
	} else if data, ok := b.skillFile(a.Path); ok {
		if int64(len(data)) > limit {
			return "", fail(fmt.Sprintf("the file is over the limit of %s for program and skill files: split it into several files", formatBytes(limit)))
		}
		src = string(data)
	} else {
		data, err := readLimited(b.root, a.Path, limit)
		if err != nil {
			return "", &api.Message{Text: fmt.Sprintf("reading %s: %v", a.Path, unwrapPathError(err))}
		}
		if int64(len(data)) > limit {
			if generated {
				return "", fail(fmt.Sprintf("the generated file is over the limit of %s: regenerate the tree with `mcpcode gen`", formatBytes(limit)))
			}
			return "", fail(fmt.Sprintf("the file is over the limit of %s for program and skill files: split it into several files", formatBytes(limit)))
		}
		src = string(data)
	}
	if !generated {
		if e := b.files.Admit(int64(len(src))); e != nil {
			return "", fail(e.Message)
		}
	}
	if e := precheck.Nesting(src); e != nil {
		m := fail(e.Message)
		if e.Offset >= 0 {
			m.Location.Line, m.Location.Column, m.Location.LineText = sourcePosition(src, e.Offset)
		}
		return "", m
	}
	return src, nil
}

// readLimited reads at most limit+1 bytes of a workspace file, so that an
// oversized file is refused without being read whole.
func readLimited(root *os.Root, rel string, limit int64) ([]byte, error) {
	f, err := root.Open(filepath.FromSlash(rel))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// sourcePosition returns the 1-based line, the 0-based byte column and the
// line's text of a byte offset.
func sourcePosition(src string, off int) (line, col int, text string) {
	off = min(off, len(src))
	start := strings.LastIndexByte(src[:off], '\n') + 1
	end := strings.IndexByte(src[off:], '\n')
	if end < 0 {
		end = len(src)
	} else {
		end += off
	}
	return strings.Count(src[:start], "\n") + 1, off - start, strings.TrimSuffix(src[start:end], "\r")
}

// PrepareBundler has esbuild parse its runtime helpers, which it does once
// per process, at the first build: a worker waiting for its job does it
// then, so that the job's bundling does not (about half the CPU of
// bundling a small program in a fresh process). esbuild keeps one parse
// per set of unsupported features and minify settings: Target and
// Supported must stay Bundle's (and neither minifies), or the job parses
// its own variant again.
func PrepareBundler() {
	api.Transform("", api.TransformOptions{Target: api.ESNext, Supported: goSupported, Format: api.FormatESModule,
		Platform: api.PlatformNeutral, LogLevel: api.LogLevelSilent})
}
