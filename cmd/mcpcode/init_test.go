package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// forbiddenAtInit are what no package initialization may use: a package
// init that reads the command line or ends the process acts inside every
// binary that imports it (a worker, a test binary, a program that embeds
// mcpcode's packages) before its main has a say. Only main and
// internal/cli read os.Args and exit. Keys are import path and name.
var forbiddenAtInit = map[string]bool{
	"os.Args": true, "os.Exit": true, "syscall.Exit": true, "flag.Parse": true,
	"log.Fatal": true, "log.Fatalf": true, "log.Fatalln": true,
}

// forbiddenWords finds the names of forbiddenAtInit in source text.
var forbiddenWords = regexp.MustCompile(`\.(Args|Exit|Parse|Fatal|Fatalf|Fatalln)\b`)

// TestNoPackageInitReadsArgsOrExits lists every package the binary is
// built from (go list -deps ./...), parses the Go files of those outside
// the standard library, and follows each one's initialization (its init
// functions and package-level variable initializers) through the functions
// of the same package they call: none may reach os.Args, os.Exit and the
// like.
func TestNoPackageInitReadsArgsOrExits(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("the go command is needed to list the packages: ", err)
	}
	cmd := exec.Command(goTool, "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}\t{{.Dir}}\t{{join .GoFiles \" \"}}{{end}}", "../../...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	fset := token.NewFileSet()
	var found []string
	listed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.SplitN(line, "\t", 3)
		if len(fields) != 3 {
			continue
		}
		listed++
		// Only a package that names one of them anywhere can reach one.
		var srcs [][]byte
		mentions := false
		for _, name := range strings.Fields(fields[2]) {
			src, err := os.ReadFile(filepath.Join(fields[1], name))
			if err != nil {
				t.Fatal(err)
			}
			srcs = append(srcs, src)
			mentions = mentions || forbiddenWords.Match(src)
		}
		if !mentions {
			continue
		}
		var files []*ast.File
		for i, name := range strings.Fields(fields[2]) {
			f, err := parser.ParseFile(fset, filepath.Join(fields[1], name), srcs[i], parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		if len(files) == 0 || files[0].Name.Name == "main" {
			continue // a command's main package is where os.Args belong
		}
		for _, use := range initUses(files) {
			found = append(found, fields[0]+": "+use)
		}
	}
	if listed < 50 {
		t.Fatalf("go list found %d packages outside the standard library: not this module's\n%s", listed, out)
	}
	sort.Strings(found)
	for _, f := range found {
		t.Errorf("package initialization reaches %s", f)
	}
}

// initUses returns the forbidden names a package's initialization reaches,
// each with the function it is used in.
func initUses(files []*ast.File) []string {
	funcs := map[string]*ast.FuncDecl{}
	type root struct {
		node  ast.Node
		file  *ast.File
		where string
	}
	var roots []root
	fileOf := map[*ast.FuncDecl]*ast.File{}
	for _, f := range files {
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.Name == "init" {
					roots = append(roots, root{d, f, "init"})
				} else if d.Recv == nil {
					funcs[d.Name.Name] = d
					fileOf[d] = f
				}
			case *ast.GenDecl:
				if d.Tok == token.VAR {
					for _, spec := range d.Specs {
						for _, v := range spec.(*ast.ValueSpec).Values {
							roots = append(roots, root{v, f, "a package-level variable"})
						}
					}
				}
			}
		}
	}
	seen := map[ast.Node]bool{}
	var uses []string
	var visit func(n ast.Node, f *ast.File, where string)
	visit = func(n ast.Node, f *ast.File, where string) {
		if seen[n] {
			return
		}
		seen[n] = true
		imports := importNames(f)
		called := map[*ast.FuncLit]bool{}
		ast.Inspect(n, func(n ast.Node) bool {
			switch x := n.(type) {
			case *ast.CallExpr:
				if lit, ok := x.Fun.(*ast.FuncLit); ok {
					called[lit] = true
				}
			case *ast.FuncLit:
				// A function value made at init runs when called, later;
				// one called on the spot runs now.
				return called[x]
			}
			switch x := n.(type) {
			case *ast.SelectorExpr:
				if id, ok := x.X.(*ast.Ident); ok {
					if path, ok := imports[id.Name]; ok && forbiddenAtInit[path+"."+x.Sel.Name] {
						uses = append(uses, path+"."+x.Sel.Name+" (in "+where+")")
					}
				}
			case *ast.Ident:
				if fn, ok := funcs[x.Name]; ok {
					visit(fn, fileOf[fn], fn.Name.Name)
				}
			}
			return true
		})
	}
	for _, r := range roots {
		visit(r.node, r.file, r.where)
	}
	return uses
}

// importNames maps the names a file refers to its imports by to their
// paths.
func importNames(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	return names
}
