package typecheck

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/mcpcode/mcpcode/internal/lazyregexp"
	"github.com/mcpcode/mcpcode/runtime/internal/argcheck"
)

// maxHint bounds a hint's length: one line an agent reads at a glance.
const maxHint = 400

// explainer writes the hints of diagnostics from the files the check read:
// the declared properties of a type a message names, and the declared name
// closest to a misspelled one.
type explainer struct {
	// files are the checked files by workspace-relative path (the
	// program under its name).
	files map[string][]byte
	// ws is the workspace root, for listing servers/ and skills/ when an
	// import was not found; "" lists nothing.
	ws string

	once  sync.Once
	types map[string][]declaration
}

// declaration is an interface declared in a checked file.
type declaration struct {
	file    string
	line    int
	members []string
}

func newExplainer(files map[string][]byte, ws string) *explainer {
	return &explainer{files: files, ws: ws}
}

// Messages the hints read (the compiler's English messages).
var (
	quotedName      = `'([A-Za-z_$][\w$]*)'`
	quotedType      = `'(.*?)'\.(?: |$)`
	noProperty      = lazyregexp.New(`^Property ` + quotedName + ` does not exist on type ` + quotedType)
	unknownProperty = lazyregexp.New(quotedName + ` does not exist in type ` + quotedType)
	typeNamed       = lazyregexp.New(`type ` + quotedName)
	noExport        = lazyregexp.New(`^(?:Module )?'"([^"']+)"' has no exported member(?: named)? ` + quotedName)
	noModule        = lazyregexp.New(`^Cannot find module '([^']+)'`)
	didYouMean      = lazyregexp.New(`Did you mean`)
	objectProperty  = lazyregexp.New(`^\s*["']?([A-Za-z_$][\w$-]*)["']?\s*:`)
	notAssignableTo = lazyregexp.New(`^Type '([^']+)' is not assignable to type '([^']+)'`)
)

// Diagnostics whose hint is about a property or a type.
const (
	codeNoProperty          = 2339 // Property 'x' does not exist on type 'T'.
	codeNoPropertyDidYou    = 2551 // ... Did you mean 'y'?
	codeExcessProperty      = 2353 // Object literal may only specify known properties, and 'x' does not exist in type 'T'.
	codeExcessPropertyDid   = 2561 // ... Did you mean to write 'y'?
	codeNotAssignable       = 2322
	codeNoExportedMember    = 2305
	codeNoExportedMemberDid = 2724
)

// hint returns the hint of a diagnostic, or "".
func (e *explainer) hint(d Diagnostic) string {
	msg := firstLine(d.Message)
	tsSuggests := didYouMean.MatchString(msg)
	var h string
	switch d.Code {
	case codeNoProperty, codeNoPropertyDidYou:
		if m := noProperty.FindStringSubmatch(msg); m != nil {
			h = e.aboutType(m[2], m[1], !tsSuggests)
		}
	case codeExcessProperty, codeExcessPropertyDid:
		if m := unknownProperty.FindStringSubmatch(msg); m != nil {
			h = e.aboutType(m[2], m[1], !tsSuggests)
		}
	case codeNoExportedMember, codeNoExportedMemberDid:
		if m := noExport.FindStringSubmatch(msg); m != nil {
			h = e.aboutModule(d.File, m[1], m[2], !tsSuggests)
		}
	case codeCannotFindModule:
		if m := noModule.FindStringSubmatch(msg); m != nil {
			h = e.aboutMissingModule(d.File, m[1])
		}
	case codeNotAssignable:
		h = e.aboutProperty(d, msg)
	}
	if h == "" {
		// Any other message that names a declared type: its properties.
		for _, m := range typeNamed.FindAllStringSubmatch(d.Message, -1) {
			if h = e.aboutType(m[1], "", false); h != "" {
				break
			}
		}
	}
	return cut(h, maxHint)
}

// aboutType describes the declared type name: where it is declared and its
// properties, with the closest to prop first when suggest is set. A type
// the message spells out ({ a: string; ... }) gets the closest of its
// properties only.
func (e *explainer) aboutType(name, prop string, suggest bool) string {
	if strings.HasPrefix(name, "{") {
		if suggest && prop != "" {
			if best := argcheck.Closest(prop, memberNames(members(name[1:])), 1); len(best) > 0 {
				return fmt.Sprintf("did you mean '%s'?", best[0])
			}
		}
		return ""
	}
	d, ok := e.declared(name)
	if !ok {
		return ""
	}
	var b strings.Builder
	if suggest && prop != "" {
		if best := argcheck.Closest(prop, memberNames(d.members), 1); len(best) > 0 {
			fmt.Fprintf(&b, "did you mean '%s'? ", best[0])
		}
	}
	fmt.Fprintf(&b, "%s (%s:%d) declares: %s", name, d.file, d.line, strings.Join(d.members, "; "))
	if len(d.members) == 0 {
		b.WriteString("no properties")
	}
	return b.String()
}

// aboutProperty explains "Type 'A' is not assignable to type 'B'" at a
// property of an object literal: the property's declaration, when exactly
// one declared type has a property of that name and type (an input type
// when there are several).
func (e *explainer) aboutProperty(d Diagnostic, msg string) string {
	m := notAssignableTo.FindStringSubmatch(msg)
	if m == nil || d.Column < 1 || d.Column > len(d.Source)+1 {
		return ""
	}
	p := objectProperty.FindStringSubmatch(d.Source[d.Column-1:])
	if p == nil {
		return ""
	}
	prop, want := p[1], m[2]
	type found struct {
		typ    string
		decl   declaration
		member string
	}
	var all []found
	e.index()
	for _, typ := range sortedKeys(e.types) {
		decls := e.types[typ]
		if len(decls) != 1 {
			continue
		}
		for _, mem := range decls[0].members {
			if memberName(mem) == prop && strings.TrimSpace(memberType(mem)) == want {
				all = append(all, found{typ, decls[0], mem})
			}
		}
	}
	if len(all) > 1 {
		inputs := slices.DeleteFunc(slices.Clone(all), func(f found) bool { return !strings.HasSuffix(f.typ, "Input") })
		all = inputs
	}
	if len(all) != 1 {
		return ""
	}
	f := all[0]
	return fmt.Sprintf("%s is declared `%s` in %s (%s:%d)", prop, f.member, f.typ, f.decl.file, f.decl.line)
}

// aboutModule lists the exports of a module that has no member name,
// closest first when suggest is set.
func (e *explainer) aboutModule(from, spec, name string, suggest bool) string {
	file, ok := e.moduleFile(from, spec)
	if !ok {
		return ""
	}
	exports := exportedNames(e.files[file])
	if len(exports) == 0 {
		return ""
	}
	var b strings.Builder
	if suggest {
		if best := argcheck.Closest(name, exports, 1); len(best) > 0 {
			fmt.Fprintf(&b, "did you mean '%s'? ", best[0])
		}
	}
	fmt.Fprintf(&b, "%s exports: %s", spec, strings.Join(exports, ", "))
	return b.String()
}

// aboutMissingModule names what exists where an import of servers/... or
// skills/... found nothing: the closest tool file or server, or skill.
func (e *explainer) aboutMissingModule(from, spec string) string {
	if e.ws == "" {
		return ""
	}
	logical := spec
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
		logical = path.Join(path.Dir(from), spec)
	}
	logical = strings.TrimSuffix(strings.TrimSuffix(path.Clean(logical), ".ts"), ".js")
	segs := strings.Split(logical, "/")
	// prefix is how the import writes the folder it looks in.
	var dir, want, prefix string
	switch {
	case segs[0] == "servers" && len(segs) == 3:
		dir, want = "servers/"+segs[1], segs[2]
		prefix = spec[:strings.LastIndex(spec, "/")+1]
		if !isDir(filepath.Join(e.ws, "servers", segs[1])) {
			dir, want = "servers", segs[1]
			prefix = spec[:strings.LastIndex(spec, "servers/")+len("servers/")]
		}
	case segs[0] == "servers" && len(segs) == 2, segs[0] == "skills" && len(segs) == 2:
		dir, want = segs[0], segs[1]
		prefix = spec[:strings.LastIndex(spec, "/")+1]
	default:
		return ""
	}
	abs := filepath.Join(e.ws, filepath.FromSlash(dir))
	if real, err := filepath.EvalSymlinks(abs); err != nil || !isWithin(real, e.ws) {
		return "" // a symbolic link out of the workspace: not listed
	}
	names := listModules(abs)
	if len(names) == 0 {
		if dir == "servers" {
			return "servers/ is empty: run `mcpcode gen` to generate the tree"
		}
		return ""
	}
	var b strings.Builder
	if best := argcheck.Closest(want, names, 1); len(best) > 0 {
		fmt.Fprintf(&b, "did you mean '%s'? ", prefix+best[0])
	}
	fmt.Fprintf(&b, "%s/ has: %s", dir, strings.Join(names, ", "))
	return b.String()
}

// moduleFile finds the checked file an import of spec from the file from
// leads to.
func (e *explainer) moduleFile(from, spec string) (string, bool) {
	logical := spec
	if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
		logical = path.Join(path.Dir(from), spec)
	}
	logical = path.Clean(logical)
	for _, c := range []string{logical, logical + ".ts", logical + "/index.ts", strings.TrimSuffix(logical, ".js") + ".ts"} {
		if _, ok := e.files[c]; ok {
			return c, true
		}
	}
	return "", false
}

// declared returns the one declaration of the interface name among the
// checked files; a name declared differently in several files (two
// servers' CreateIssueInput) is not explained.
func (e *explainer) declared(name string) (declaration, bool) {
	e.index()
	decls := e.types[name]
	if len(decls) == 0 {
		return declaration{}, false
	}
	for _, d := range decls[1:] {
		if !slices.Equal(d.members, decls[0].members) {
			return declaration{}, false
		}
	}
	return decls[0], true
}

// index reads the interfaces of every checked file, once.
func (e *explainer) index() {
	e.once.Do(func() {
		e.types = map[string][]declaration{}
		for _, file := range sortedKeys(e.files) {
			for _, d := range interfacesOf(file, e.files[file]) {
				e.types[d.name] = append(e.types[d.name], d.declaration)
			}
		}
	})
}

var interfaceStart = lazyregexp.New(`(?m)^[ \t]*(?:export[ \t]+)?(?:declare[ \t]+)?interface[ \t]+([A-Za-z_$][\w$]*)[^{\n]*\{`)

type namedDeclaration struct {
	name string
	declaration
}

// interfacesOf finds the interfaces declared in a file and their members
// (one line each: nested object types shown as {…}).
func interfacesOf(file string, src []byte) []namedDeclaration {
	var out []namedDeclaration
	text := string(src)
	for _, loc := range interfaceStart.FindAllStringSubmatchIndex(text, -1) {
		name := text[loc[2]:loc[3]]
		line := 1 + strings.Count(text[:loc[2]], "\n")
		out = append(out, namedDeclaration{name, declaration{file: file, line: line, members: members(text[loc[1]:])}})
	}
	return out
}

// maxMembers bounds the members read of one interface.
const maxMembers = 64

// members reads the members of a type literal whose "{" was just before
// body: each member's text, whitespace collapsed, nested braces as {…};
// comments left out.
func members(body string) []string {
	var out []string
	var cur strings.Builder
	depth, nested := 1, 0
	flush := func() {
		m := strings.Join(strings.Fields(cur.String()), " ")
		m = strings.TrimRight(m, ";,")
		if m != "" && len(out) < maxMembers {
			out = append(out, m)
		}
		cur.Reset()
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case strings.HasPrefix(body[i:], "//"):
			j := strings.IndexByte(body[i:], '\n')
			if j < 0 {
				return out
			}
			i += j - 1
		case strings.HasPrefix(body[i:], "/*"):
			j := strings.Index(body[i+2:], "*/")
			if j < 0 {
				return out
			}
			i += j + 3
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(body) && body[j] != c && body[j] != '\n' {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 1 {
				cur.WriteString(body[i:min(j+1, len(body))])
			}
			i = j
		case c == '{':
			depth++
			if depth == 2 {
				nested = i
			}
		case c == '}':
			depth--
			switch depth {
			case 0:
				flush()
				return out
			case 1:
				// A short type literal on one line is shown; a longer one
				// as {…}.
				if raw := body[nested : i+1]; !strings.Contains(raw, "\n") && len(raw) <= 80 {
					cur.WriteString(raw)
				} else {
					cur.WriteString("{…}")
				}
			}
		case depth > 1:
		case c == ';' || c == ',':
			flush()
		case c == '\n':
			if t := strings.TrimSpace(cur.String()); t != "" && !continues(t, body[i+1:]) {
				flush()
			}
		default:
			cur.WriteByte(c)
		}
	}
	return out
}

// continues reports whether a member whose text so far is t goes on after
// the end of its line (a type on the next line, a union's next member).
func continues(t, rest string) bool {
	for _, suffix := range []string{":", "|", "&", "(", "<", "=>", "?"} {
		if strings.HasSuffix(t, suffix) {
			return true
		}
	}
	next := strings.TrimLeft(rest, " \t\r\n")
	return strings.HasPrefix(next, "|") || strings.HasPrefix(next, "&")
}

// memberName is the name of a member ("sheetId" of "sheetId?: string").
func memberName(m string) string {
	end := strings.IndexAny(m, "?:(<")
	if end < 0 {
		end = len(m)
	}
	return strings.Trim(strings.TrimSpace(strings.TrimPrefix(m[:end], "readonly ")), `"'`)
}

// memberType is the declared type of a property member ("string").
func memberType(m string) string {
	_, t, ok := strings.Cut(m, ":")
	if !ok {
		return ""
	}
	return t
}

func memberNames(members []string) []string {
	names := make([]string, 0, len(members))
	for _, m := range members {
		if n := memberName(m); n != "" && !strings.HasPrefix(n, "[") {
			names = append(names, n)
		}
	}
	return names
}

var (
	exportList = lazyregexp.New(`(?m)^[ \t]*export[ \t]*(?:type[ \t]+)?\{([^}]*)\}`)
	exportDecl = lazyregexp.New(`(?m)^[ \t]*export[ \t]+(?:declare[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?(?:function\*?|const|let|var|class|interface|type|enum)[ \t]+([A-Za-z_$][\w$]*)`)
)

// exportedNames lists what a module exports by name, sorted: functions
// first is not needed; an agent scans the list.
func exportedNames(src []byte) []string {
	text := string(src)
	seen := map[string]bool{}
	for _, m := range exportList.FindAllStringSubmatch(text, -1) {
		for _, item := range strings.Split(m[1], ",") {
			item = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(item), "type "))
			if _, as, ok := strings.Cut(item, " as "); ok {
				item = strings.TrimSpace(as)
			}
			if item != "" {
				seen[item] = true
			}
		}
	}
	for _, m := range exportDecl.FindAllStringSubmatch(text, -1) {
		seen[m[1]] = true
	}
	return sortedKeys(seen)
}

// listModules lists the importable names in a directory of the workspace:
// its .ts files (but index.ts) and its folders, not hidden ones.
func listModules(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, en := range entries {
		n := en.Name()
		switch {
		case strings.HasPrefix(n, "."):
		case en.IsDir():
			names = append(names, n)
		case strings.HasSuffix(n, ".ts") && !strings.HasSuffix(n, ".d.ts") && n != "index.ts":
			names = append(names, strings.TrimSuffix(n, ".ts"))
		}
	}
	slices.Sort(names)
	if len(names) > 200 {
		names = names[:200]
	}
	return names
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
