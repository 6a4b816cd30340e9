package generator

import (
	"sort"
	"strconv"
	"strings"
)

// maxNameLen bounds function, type-prefix and directory names so file names
// stay well under file system limits.
const maxNameLen = 64

// reservedIdents are names a generated function cannot take: JavaScript
// reserved and strict-mode words, globals a module must not shadow, the
// runtime import, and "index" (index.ts is the server's own file).
var reservedIdents = map[string]bool{
	"break": true, "case": true, "catch": true, "class": true, "const": true, "continue": true,
	"debugger": true, "default": true, "delete": true, "do": true, "else": true, "enum": true,
	"export": true, "extends": true, "false": true, "finally": true, "for": true, "function": true,
	"if": true, "import": true, "in": true, "instanceof": true, "new": true, "null": true,
	"return": true, "super": true, "switch": true, "this": true, "throw": true, "true": true,
	"try": true, "typeof": true, "var": true, "void": true, "while": true, "with": true,
	"yield": true, "let": true, "static": true, "implements": true, "interface": true,
	"package": true, "private": true, "protected": true, "public": true, "await": true,
	"arguments": true, "eval": true, "undefined": true, "async": true, "of": true,
	"callMCPTool": true, "index": true,
}

// windowsDevice reports whether base (case-insensitive, before the first dot)
// is a reserved Windows device name such as con, nul, com1 or lpt1.
func windowsDevice(name string) bool {
	base := strings.ToLower(name)
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	switch base {
	case "con", "prn", "aux", "nul", "conin$", "conout$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "com") || strings.HasPrefix(base, "lpt")) {
		return base[3] >= '0' && base[3] <= '9'
	}
	return false
}

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// camelName turns any tool name into a lowerCamel ASCII identifier base:
// runs of ASCII letters and digits are words, everything else separates
// them ("API-get-user" → "apiGetUser", "get_document" → "getDocument");
// a leading digit gets "_" ("3d-view" → "_3dView"); no word gives "tool".
// The result is at most maxNameLen bytes. It does not handle reserved words.
func camelName(name string) string {
	var words []string
	start := -1
	hasLower := false
	for i := 0; i <= len(name); i++ {
		if i < len(name) && isASCIIAlnum(name[i]) {
			if start < 0 {
				start = i
			}
			hasLower = hasLower || isLower(name[i])
			continue
		}
		if start >= 0 {
			words = append(words, name[start:i])
			start = -1
		}
	}
	if len(words) == 0 {
		return "tool"
	}
	var sb strings.Builder
	for i, w := range words {
		if !hasLower {
			w = strings.ToLower(w) // SCREAMING_CASE: treat as plain words
		}
		if i == 0 {
			sb.WriteString(lowerLead(w))
		} else {
			sb.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	s := sb.String()
	if isDigit(s[0]) {
		s = "_" + s
	}
	if len(s) > maxNameLen {
		s = s[:maxNameLen]
	}
	return s
}

// lowerLead lowercases the leading capitals of a word: "API" → "api",
// "GetUser" → "getUser", "XMLHttp" → "xmlHttp".
func lowerLead(w string) string {
	n := 0
	for n < len(w) && isUpper(w[n]) {
		n++
	}
	switch {
	case n == len(w):
		return strings.ToLower(w)
	case n > 1 && isLower(w[n]):
		n-- // keep the capital that starts the next word
	}
	return strings.ToLower(w[:n]) + w[n:]
}

// pascal upper-cases the first letter of an identifier.
func pascal(s string) string {
	if s != "" && isLower(s[0]) {
		return strings.ToUpper(s[:1]) + s[1:]
	}
	return s
}

// typePrefix is the prefix of a tool function's type names: PascalCase,
// without the "_" that only escapes reserved words ("delete_" → "Delete").
func typePrefix(fn string) string {
	return pascal(strings.TrimSuffix(fn, "_"))
}

// isIdentifier reports whether s is a plain ASCII JavaScript identifier.
func isIdentifier(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isASCIIAlnum(c) && c != '_' && c != '$' {
			return false
		}
	}
	return true
}

// toolName is the generated name of one tool.
type toolName struct {
	Function string // exported function, also the file name without ".ts"
	Type     string // prefix of its types: Type+"Input", Type+"Output"
	Renamed  bool   // a suffix was added because another tool has the same name
	// Held names the tool that keeps the plain name this tool wanted,
	// because it had the name before (previous); "" otherwise.
	Held string
}

// assignToolNames gives every tool name a unique function name. Uniqueness is
// case-insensitive, so file names do not collide on case-insensitive file
// systems. Reserved words get "_" ("delete" → "delete_"). A generated name
// never moves to another tool: a tool keeps the function name previous
// gives it (its name in the last manifest), and no other tool takes that
// name, so that code calling a function (an approved skill) keeps calling
// the same upstream tool. The other tools whose names collide after
// sanitizing keep the plain name in order of preference (a tool already
// named exactly so first, then by original name) and the others get "2",
// "3", … in that order.
func assignToolNames(names []string, previous map[string]string) map[string]toolName {
	type cand struct{ orig, base string }
	cands := make([]cand, len(names))
	for i, n := range names {
		cands[i] = cand{n, camelName(n)}
	}
	holder := map[string]string{} // lowercased function name → tool keeping it
	for _, n := range names {
		if fn, ok := previous[n]; ok && safeSegment(fn+".ts") && isIdentifier(fn) {
			if _, dup := holder[strings.ToLower(fn)]; !dup {
				holder[strings.ToLower(fn)] = n
			}
		}
	}
	sort.SliceStable(cands, func(i, j int) bool {
		ei, ej := cands[i].orig == cands[i].base, cands[j].orig == cands[j].base
		if ei != ej {
			return ei
		}
		return cands[i].orig < cands[j].orig
	})
	taken := map[string]bool{}
	out := make(map[string]toolName, len(names))
	// The names tools had before stay theirs.
	for key, n := range holder {
		fn := previous[n]
		taken[key] = true
		out[n] = toolName{Function: fn, Type: typePrefix(fn)}
	}
	take := func(c cand, base string, renamed bool) bool {
		fn := base
		if reservedIdents[fn] || windowsDevice(fn) {
			fn += "_"
		}
		key := strings.ToLower(fn)
		if taken[key] {
			return false
		}
		taken[key] = true
		out[c.orig] = toolName{Function: fn, Type: typePrefix(fn), Renamed: renamed}
		return true
	}
	var rest []cand
	for _, c := range cands {
		if _, ok := out[c.orig]; ok {
			continue
		}
		if !take(c, c.base, false) {
			rest = append(rest, c)
		}
	}
	for _, c := range rest {
		for n := 2; ; n++ {
			suffix := strconv.Itoa(n)
			base := c.base
			if len(base)+len(suffix) > maxNameLen {
				base = base[:maxNameLen-len(suffix)]
			}
			if take(c, base+suffix, true) {
				break
			}
		}
		// Say so when the plain name is another tool's from before.
		plain := c.base
		if reservedIdents[plain] || windowsDevice(plain) {
			plain += "_"
		}
		if h, ok := holder[strings.ToLower(plain)]; ok && h != c.orig {
			n := out[c.orig]
			n.Held = h
			out[c.orig] = n
		}
	}
	return out
}

// reservedRootNames are the out dir's own files, which no server directory may shadow.
var reservedRootNames = map[string]bool{"readme.md": true, "mcpcode.d.ts": true, "tsconfig.json": true}

// dirName turns a server name into a single safe path segment that stays
// readable ("google-drive" stays): characters other than ASCII letters,
// digits, ".", "_" and "-" become "-", leading and trailing dots and
// dashes are dropped, Windows device names and the root file names get "_",
// and the length is bounded. An empty result becomes "server".
func dirName(name string) string {
	var sb strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		if isASCIIAlnum(c) || c == '.' || c == '_' || c == '-' {
			sb.WriteByte(c)
			continue
		}
		if !strings.HasSuffix(sb.String(), "-") {
			sb.WriteByte('-')
		}
	}
	s := strings.TrimLeft(sb.String(), ".-")
	if len(s) > maxNameLen {
		s = s[:maxNameLen]
	}
	s = strings.TrimRight(s, ".-")
	if s == "" {
		return "server"
	}
	if windowsDevice(s) {
		if i := strings.IndexByte(s, '.'); i >= 0 {
			s = s[:i] + "_" + s[i:]
		} else {
			s += "_"
		}
	}
	if reservedRootNames[strings.ToLower(s)] {
		s += "_"
	}
	return s
}

// safeSegment reports whether s is a path segment gen may create: what
// dirName or a tool file name can produce, so a hand-edited manifest cannot
// point anywhere else.
func safeSegment(s string) bool {
	if s == "" || len(s) > maxNameLen+8 || s[0] == '.' || s[0] == '-' || strings.HasSuffix(s, ".") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isASCIIAlnum(c) && c != '.' && c != '_' && c != '-' && c != '$' {
			return false
		}
	}
	return !windowsDevice(s)
}

// safeRelPath reports whether p is a slash-separated relative path made of
// safe segments (no "..", no absolute path, no backslash, no empty segment).
func safeRelPath(p string) bool {
	if p == "" {
		return false
	}
	for _, seg := range strings.Split(p, "/") {
		if !safeSegment(seg) {
			return false
		}
	}
	return true
}
