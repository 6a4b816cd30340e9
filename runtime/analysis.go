package runtime

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
)

// analyzeCalls finds, in the parsed bundle, every use of the scopes' call
// functions: calls with literal server and tool names become ToolRefs with
// their scope; any other use (non-literal arguments, the function aliased,
// passed around or put in an object) is reported as "file:line" of the
// original source. Because esbuild tree-shakes, only tools the program can
// actually reach remain. The analysis fails closed: where the syntax tree is
// too deep to walk, it reports "analysis incomplete: nesting too deep at
// file:line", so that reviewers treat the program as unverifiable.
func analyzeCalls(prg *ast.Program, scopes []*scope) ([]ToolRef, []string) {
	return analyzeCallsWithin(prg, scopes, maxASTDepth)
}

// analyzeCallsWithin is analyzeCalls with the walk bounded to maxDepth.
func analyzeCallsWithin(prg *ast.Program, scopes []*scope, maxDepth int) ([]ToolRef, []string) {
	a := &callAnalyzer{file: prg.File, byName: map[string]*scope{}, calls: map[ToolRef]bool{}, unverifiable: map[string]bool{}, maxDepth: maxDepth}
	for _, s := range scopes {
		a.byName[s.callName] = s
	}
	a.walk(reflect.ValueOf(prg), 0, 0)
	calls := make([]ToolRef, 0, len(a.calls))
	for c := range a.calls {
		calls = append(calls, c)
	}
	slices.SortFunc(calls, func(x, y ToolRef) int {
		if c := strings.Compare(x.Skill, y.Skill); c != 0 {
			return c
		}
		if c := strings.Compare(x.Server, y.Server); c != 0 {
			return c
		}
		return strings.Compare(x.Tool, y.Tool)
	})
	unverifiable := make([]string, 0, len(a.unverifiable))
	for d := range a.unverifiable {
		unverifiable = append(unverifiable, d)
	}
	slices.Sort(unverifiable)
	return calls, unverifiable
}

type callAnalyzer struct {
	file         *file.File
	byName       map[string]*scope
	calls        map[ToolRef]bool
	unverifiable map[string]bool
	maxDepth     int
}

// maxASTDepth bounds the walk (in reflection steps, a few per syntax
// level). Bundle's pre-check keeps what it accepts far shallower; a tree
// deeper than this is reported as not analyzed rather than walked.
const maxASTDepth = 50000

var (
	callExprType      = reflect.TypeOf(&ast.CallExpression{})
	identType         = reflect.TypeOf(&ast.Identifier{})
	bindingType       = reflect.TypeOf(&ast.Binding{})
	propertyShortType = reflect.TypeOf(&ast.PropertyShort{})
	fileType          = reflect.TypeOf(&file.File{})
	nodeType          = reflect.TypeOf((*ast.Node)(nil)).Elem()
)

// walk visits every node of the AST by reflection (goja's ast package has no
// visitor), treating call expressions, identifiers and bindings specially.
// at is the position of the innermost node around v, for reporting.
func (a *callAnalyzer) walk(v reflect.Value, depth int, at file.Idx) {
	if depth > a.maxDepth {
		a.incomplete(at)
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			a.walk(v.Elem(), depth+1, at)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if v.Type().Implements(nodeType) {
			if idx := v.Interface().(ast.Node).Idx0(); idx > 0 {
				at = idx
			}
		}
		switch v.Type() {
		case fileType:
			return
		case callExprType:
			a.call(v.Interface().(*ast.CallExpression), depth, at)
			return
		case identType:
			a.ident(v.Interface().(*ast.Identifier))
			return
		case propertyShortType:
			// {callMCPTool} puts the function in an object: it escapes.
			p := v.Interface().(*ast.PropertyShort)
			a.ident(&p.Name)
			a.walk(reflect.ValueOf(p.Initializer), depth+1, at)
			return
		case bindingType:
			bnd := v.Interface().(*ast.Binding)
			if id, ok := bnd.Target.(*ast.Identifier); ok && a.byName[id.Name.String()] != nil {
				// The declaration of the call function itself.
				a.walk(reflect.ValueOf(bnd.Initializer), depth+1, at)
				return
			}
		}
		a.walk(v.Elem(), depth+1, at)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				a.walk(v.Field(i), depth+1, at)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			a.walk(v.Index(i), depth+1, at)
		}
	}
}

// incomplete records that the walk stopped at a too-deep subtree: a call
// hidden there could be neither listed nor flagged.
func (a *callAnalyzer) incomplete(at file.Idx) {
	a.unverifiable["analysis incomplete: nesting too deep at "+a.position(at)] = true
}

// call records a call of a call function with literal names, or flags it.
func (a *callAnalyzer) call(c *ast.CallExpression, depth int, at file.Idx) {
	id, ok := c.Callee.(*ast.Identifier)
	if sc := a.scopeOf(id, ok); sc != nil {
		server, ok1 := literalString(c.ArgumentList, 0)
		tool, ok2 := literalString(c.ArgumentList, 1)
		if ok1 && ok2 {
			a.calls[ToolRef{Server: server, Tool: tool, Skill: sc.skill}] = true
		} else {
			a.flag(id.Idx)
		}
	} else {
		a.walk(reflect.ValueOf(c.Callee), depth+1, at)
	}
	for _, arg := range c.ArgumentList {
		a.walk(reflect.ValueOf(arg), depth+1, at)
	}
}

// ident flags any other reference to a call function: it escapes.
func (a *callAnalyzer) ident(id *ast.Identifier) {
	if a.scopeOf(id, true) != nil {
		a.flag(id.Idx)
	}
}

func (a *callAnalyzer) scopeOf(id *ast.Identifier, ok bool) *scope {
	if !ok || id == nil {
		return nil
	}
	return a.byName[id.Name.String()]
}

// flag records the original file:line of a bundle position.
func (a *callAnalyzer) flag(idx file.Idx) {
	a.unverifiable[a.position(idx)] = true
}

// position is the original "file:line" of a bundle position.
func (a *callAnalyzer) position(idx file.Idx) string {
	p := a.file.Position(int(idx) - a.file.Base())
	return fmt.Sprintf("%s:%d", p.Filename, p.Line)
}

// literalString returns argument i when it is a string literal (or a
// template literal without substitutions).
func literalString(args []ast.Expression, i int) (string, bool) {
	if i >= len(args) {
		return "", false
	}
	switch e := args[i].(type) {
	case *ast.StringLiteral:
		return e.Value.String(), true
	case *ast.TemplateLiteral:
		if e.Tag == nil && len(e.Expressions) == 0 && len(e.Elements) == 1 && e.Elements[0].Valid {
			return e.Elements[0].Parsed.String(), true
		}
	}
	return "", false
}
