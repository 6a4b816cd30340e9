// Package typecheck type-checks a program against the generated tree with
// an external TypeScript compiler (tsc; TypeScript 7 is the native, fast
// one), before anything of it runs.
//
// The program is checked with the bundler's module resolution ("servers/...",
// "./servers/...", "skills/<name>", "mcpcode:runtime", "mcpcode:fs") through
// a configuration written under the workspace's .mcpcode/ (the user's tree
// is never written to), strictly but for what plain JavaScript-style code
// does (implicit any, catch variables). Its diagnostics come back as data
// that points at the program's own files and lines, with a hint naming the
// declared type when that helps. The compiler is an external process: it
// gets an empty environment but PATH, no standard input, a timeout, a
// memory limit (on Linux) and noEmit, and at most four run at once; its
// output is untrusted text, read up to a bound. What it read is checked
// against the files a program may import: a program that makes it read
// anything else, or look for a file outside the workspace, gets no
// diagnostics at all, nor does a run that failed or did not list all it
// read. Results are cached by content.
package typecheck

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
)

// InstallHint says how to get a compiler.
const InstallHint = "install one in the workspace with `npm i -D typescript@7`, put tsc on PATH, " +
	`or set "typecheck": {"tsc": "/path/to/tsc"} in mcp.json`

// ErrNotFound is returned by Find when no compiler is found; its message
// says how to install one.
var ErrNotFound = errors.New("no TypeScript compiler found (looked in mcp.json's \"typecheck\", the workspace's node_modules/.bin and PATH): " + InstallHint)

// Where a compiler was found (Compiler.From).
const (
	FromConfig      = "mcp.json"
	FromNodeModules = "node_modules"
	FromPATH        = "PATH"
)

// Compiler is a TypeScript compiler found on this machine.
type Compiler struct {
	// Path is the executable that is run: TypeScript 7's native compiler
	// when the npm package's launcher (a Node.js script) leads to it, so
	// that no Node.js is needed; else the file found.
	Path string
	// Version is the npm package's version ("7.0.2"); "" when unknown.
	Version string
	// From says where it was found: FromConfig, FromNodeModules or FromPATH.
	From string
	// PATH is handed to the compiler's process (a launcher script finds
	// node with it); nothing else of the environment is.
	PATH string

	// identity is the executable's real path, size, modification time and
	// version: the compiler, in cache keys.
	identity string
	// libDirs hold the compiler's own declaration files (lib.*.d.ts).
	libDirs []string
}

// String names the compiler for people: "TypeScript 7.0.2" or "tsc at PATH".
func (c *Compiler) String() string {
	if c.Version != "" {
		return "TypeScript " + c.Version
	}
	return "tsc at " + c.Path
}

// FindOptions say where to look for a compiler.
type FindOptions struct {
	// Configured is the path from configuration (mcp.json's
	// "typecheck": {"tsc": ...}); when set, it is the only candidate.
	Configured string
	// Workspace is the workspace root: its node_modules/.bin/tsc comes next.
	Workspace string
	// PATH is the search path looked through last (the host's PATH);
	// relative entries are skipped.
	PATH string
}

// Find finds a compiler: the configured one, else the workspace's
// node_modules/.bin/tsc, else tsc on PATH. It only looks at files: nothing
// is started. The error is ErrNotFound when there is none, or says what is
// wrong with the configured one.
func Find(o FindOptions) (*Compiler, error) {
	if o.Configured != "" {
		c, err := inspect(o.Configured, FromConfig)
		if err != nil {
			return nil, fmt.Errorf("the TypeScript compiler in mcp.json's \"typecheck\" (%s): %w; %s", o.Configured, err, InstallHint)
		}
		c.PATH = o.PATH
		return c, nil
	}
	var candidates []struct{ path, from string }
	if o.Workspace != "" {
		candidates = append(candidates, struct{ path, from string }{filepath.Join(o.Workspace, "node_modules", ".bin", exeName("tsc")), FromNodeModules})
	}
	for _, dir := range filepath.SplitList(o.PATH) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative entry would find a file of the current directory
		}
		candidates = append(candidates, struct{ path, from string }{filepath.Join(dir, exeName("tsc")), FromPATH})
	}
	for _, cand := range candidates {
		if !isExecutable(cand.path) {
			continue
		}
		c, err := inspect(cand.path, cand.from)
		if err != nil {
			continue
		}
		c.PATH = o.PATH
		return c, nil
	}
	return nil, ErrNotFound
}

// inspect describes the compiler at path: an npm package's launcher
// (typescript/bin/tsc) leads to the package's native executable when it
// has one.
func inspect(path, from string) (*Compiler, error) {
	if !isExecutable(path) {
		return nil, errors.New("no executable file there")
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	c := &Compiler{Path: real, From: from}
	binDir := filepath.Dir(real)
	pkgDir := filepath.Dir(binDir)
	pkg := readPackage(filepath.Join(pkgDir, "package.json"))
	switch {
	case pkg.Name == "typescript" && filepath.Base(binDir) == "bin":
		// The launcher of the npm package: TypeScript 7's runs a native
		// executable from a package per platform, found beside it.
		c.Version = pkg.Version
		c.libDirs = []string{filepath.Join(pkgDir, "lib")}
		if native := nativeCompiler(pkgDir); native != "" {
			c.Path = native
			c.libDirs = []string{filepath.Dir(native)}
		}
	case strings.HasPrefix(pkg.Name, "@typescript/typescript-") && filepath.Base(binDir) == "lib":
		// The native executable itself.
		c.Version = pkg.Version
		c.libDirs = []string{binDir}
	default:
		c.libDirs = []string{binDir, filepath.Join(pkgDir, "lib")}
	}
	fi, err := os.Stat(c.Path)
	if err != nil {
		return nil, err
	}
	c.identity = fmt.Sprintf("%s\x00%d\x00%d\x00%s", c.Path, fi.Size(), fi.ModTime().UnixNano(), c.Version)
	return c, nil
}

// nativeCompiler returns the native executable of the typescript package
// in pkgDir, from the package of this platform ("" when there is none):
// where npm puts it, beside the package or inside it.
func nativeCompiler(pkgDir string) string {
	platform := "@typescript/typescript-" + nodePlatform() + "-" + nodeArch()
	for _, dir := range []string{
		filepath.Join(filepath.Dir(pkgDir), filepath.FromSlash(platform)),
		filepath.Join(pkgDir, "node_modules", filepath.FromSlash(platform)),
	} {
		exe := filepath.Join(dir, "lib", exeName("tsc"))
		if isExecutable(exe) {
			if real, err := filepath.EvalSymlinks(exe); err == nil {
				return real
			}
		}
	}
	return ""
}

// npmPackage is what Find reads of a package.json.
type npmPackage struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func readPackage(path string) npmPackage {
	var p npmPackage
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 1<<20 {
		return p
	}
	_ = json.Unmarshal(data, &p)
	return p
}

// nodePlatform and nodeArch are Node.js's names of this platform, as the
// TypeScript packages are named.
func nodePlatform() string {
	if goruntime.GOOS == "windows" {
		return "win32"
	}
	return goruntime.GOOS
}

func nodeArch() string {
	switch goruntime.GOARCH {
	case "amd64":
		return "x64"
	case "386":
		return "ia32"
	}
	return goruntime.GOARCH
}

func exeName(name string) string {
	if goruntime.GOOS == "windows" {
		return name + ".exe"
	}
	return name
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	return goruntime.GOOS == "windows" || fi.Mode()&0o111 != 0
}
