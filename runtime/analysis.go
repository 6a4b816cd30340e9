package runtime

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
)

// analyzeCalls finds, in the parsed bundle of one realm, every use of the
// realm's call function (named callName): calls with literal server and
// tool names become ToolRefs; any other use (non-literal arguments, the
// function aliased, passed around or put in an object) is reported as
// "file:line" of the original source. Because esbuild tree-shakes, only
// tools the code can actually reach remain, and where esbuild keeps a whole
// namespace object (import * as x, then destructured), the analysis follows
// the members the code takes from it (namespaceUses). The analysis fails
// closed: where the syntax tree is too deep to walk, it reports "analysis
// incomplete: nesting too deep at file:line", so that reviewers treat the
// program as unverifiable.
func analyzeCalls(prg *ast.Program, callName string) ([]ToolRef, []string) {
	return analyzeCallsWithin(prg, callName, maxASTDepth)
}

// analyzeCallsWithin is analyzeCalls with the walk bounded to maxDepth.
func analyzeCallsWithin(prg *ast.Program, callName string, maxDepth int) ([]ToolRef, []string) {
	a := &callAnalyzer{file: prg.File, callName: callName, calls: map[ToolRef]bool{}, unverifiable: map[string]bool{}, maxDepth: maxDepth}
	a.skip = unreachableNamespaceMembers(prg, maxDepth)
	a.walk(reflect.ValueOf(prg), 0, 0)
	calls := make([]ToolRef, 0, len(a.calls))
	for c := range a.calls {
		calls = append(calls, c)
	}
	sortCalls(calls)
	unverifiable := make([]string, 0, len(a.unverifiable))
	for d := range a.unverifiable {
		unverifiable = append(unverifiable, d)
	}
	slices.Sort(unverifiable)
	return calls, unverifiable
}

type callAnalyzer struct {
	file         *file.File
	callName     string
	calls        map[ToolRef]bool
	unverifiable map[string]bool
	maxDepth     int
	// skip are functions the code cannot reach: their calls are not the
	// code's.
	skip map[string]bool
}

// maxASTDepth bounds the walk (in reflection steps, a few per syntax
// level). Bundle's pre-check keeps what it accepts far shallower; a tree
// deeper than this is reported as not analyzed rather than walked.
const maxASTDepth = 50000

var (
	callExprType      = reflect.TypeOf(&ast.CallExpression{})
	identType         = reflect.TypeOf(&ast.Identifier{})
	bindingType       = reflect.TypeOf(&ast.Binding{})
	funcDeclType      = reflect.TypeOf(&ast.FunctionDeclaration{})
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
		case funcDeclType:
			if fd := v.Interface().(*ast.FunctionDeclaration); fd.Function != nil && fd.Function.Name != nil && a.skip[fd.Function.Name.Name.String()] {
				return // only a namespace's getter refers to it, and no code takes that member
			}
		case bindingType:
			bnd := v.Interface().(*ast.Binding)
			if id, ok := bnd.Target.(*ast.Identifier); ok && id.Name.String() == a.callName {
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
	if a.isCall(id, ok) {
		server, ok1 := literalString(c.ArgumentList, 0)
		tool, ok2 := literalString(c.ArgumentList, 1)
		if ok1 && ok2 {
			a.calls[ToolRef{Server: server, Tool: tool}] = true
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
	if a.isCall(id, true) {
		a.flag(id.Idx)
	}
}

// isCall reports whether id names the realm's call function.
func (a *callAnalyzer) isCall(id *ast.Identifier, ok bool) bool {
	return ok && id != nil && id.Name.String() == a.callName
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

// unreachableNamespaceMembers finds the functions that the bundle refers to
// only from a namespace object's table of getters and whose member no code
// takes from the namespace. esbuild keeps a whole namespace object when
// code uses it other than by plain member access (const { query } = ns,
// for one): it emits
//
//	var ns_exports = {};
//	__export(ns_exports, { query: () => query, update: () => update });
//
// and keeps every function in the table. The analysis follows what the
// code takes: members read by name (ns.x, ns["x"]) or destructured
// (const { x, y: z } = ns). A namespace used any other way (passed
// around, indexed with a computed key, destructured with a rest element)
// may give any of its members, so all of them count. Nil when the tree is
// too deep to walk (every call then counts).
func unreachableNamespaceMembers(prg *ast.Program, maxDepth int) map[string]bool {
	n := &nsAnalyzer{maxDepth: maxDepth, tables: map[string]map[string]string{}, refs: map[string]int{},
		taken: map[string]map[string]bool{}, escaped: map[string]bool{}}
	n.walk(reflect.ValueOf(prg), 0)
	if n.tooDeep {
		return nil
	}
	reachable := map[string]bool{}
	inTable := map[string]bool{}
	for ns, table := range n.tables {
		all := n.escaped[ns] || n.refs[ns] > 0
		for key, fn := range table {
			inTable[fn] = true
			if all || n.taken[ns][key] {
				reachable[fn] = true
			}
		}
	}
	skip := map[string]bool{}
	for fn := range inTable {
		if !reachable[fn] && n.refs[fn] == 0 {
			skip[fn] = true
		}
	}
	return skip
}

// nsAnalyzer collects, for unreachableNamespaceMembers, the namespace
// tables (namespace → member → function), every other reference to a
// name, and the members taken from each namespace.
type nsAnalyzer struct {
	maxDepth int
	tooDeep  bool
	tables   map[string]map[string]string
	refs     map[string]int
	taken    map[string]map[string]bool
	escaped  map[string]bool
}

var (
	dotExprType     = reflect.TypeOf(&ast.DotExpression{})
	bracketExprType = reflect.TypeOf(&ast.BracketExpression{})
	funcLitType     = reflect.TypeOf(&ast.FunctionLiteral{})
)

func (n *nsAnalyzer) take(ns, key string) {
	if n.taken[ns] == nil {
		n.taken[ns] = map[string]bool{}
	}
	n.taken[ns][key] = true
}

func (n *nsAnalyzer) walk(v reflect.Value, depth int) {
	if depth > n.maxDepth {
		n.tooDeep = true
		return
	}
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			n.walk(v.Elem(), depth+1)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		switch v.Type() {
		case fileType:
			return
		case identType:
			n.refs[v.Interface().(*ast.Identifier).Name.String()]++
			return
		case propertyShortType:
			p := v.Interface().(*ast.PropertyShort)
			n.refs[p.Name.Name.String()]++ // {f}: a reference (conservatively, in patterns too)
			n.walk(reflect.ValueOf(p.Initializer), depth+1)
			return
		case funcLitType:
			f := v.Interface().(*ast.FunctionLiteral)
			n.walk(reflect.ValueOf(f.ParameterList), depth+1)
			n.walk(reflect.ValueOf(f.Body), depth+1)
			return // its name is a declaration, not a reference
		case callExprType:
			if n.table(v.Interface().(*ast.CallExpression)) {
				return
			}
		case dotExprType:
			d := v.Interface().(*ast.DotExpression)
			if id, ok := d.Left.(*ast.Identifier); ok {
				n.take(id.Name.String(), d.Identifier.Name.String())
				return
			}
		case bracketExprType:
			b := v.Interface().(*ast.BracketExpression)
			if id, ok := b.Left.(*ast.Identifier); ok {
				if key, ok := b.Member.(*ast.StringLiteral); ok {
					n.take(id.Name.String(), key.Value.String())
					return
				}
			}
		case bindingType:
			b := v.Interface().(*ast.Binding)
			if _, ok := b.Target.(*ast.Identifier); ok {
				n.walk(reflect.ValueOf(b.Initializer), depth+1)
				return // a declaration, not a reference
			}
			if pat, ok := b.Target.(*ast.ObjectPattern); ok {
				if id, ok := b.Initializer.(*ast.Identifier); ok && n.destructure(id.Name.String(), pat) {
					n.walk(reflect.ValueOf(pat), depth+1)
					return
				}
			}
		}
		n.walk(v.Elem(), depth+1)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				n.walk(v.Field(i), depth+1)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			n.walk(v.Index(i), depth+1)
		}
	}
}

// table records a namespace's table of getters, __export(ns, { k: () =>
// f, ... }); false when the call is something else.
func (n *nsAnalyzer) table(c *ast.CallExpression) bool {
	if len(c.ArgumentList) != 2 {
		return false
	}
	ns, ok := c.ArgumentList[0].(*ast.Identifier)
	obj, ok2 := c.ArgumentList[1].(*ast.ObjectLiteral)
	if !ok || !ok2 || len(obj.Value) == 0 {
		return false
	}
	table := map[string]string{}
	for _, p := range obj.Value {
		kp, ok := p.(*ast.PropertyKeyed)
		if !ok || kp.Computed {
			return false
		}
		key, ok := kp.Key.(*ast.StringLiteral)
		arrow, ok2 := kp.Value.(*ast.ArrowFunctionLiteral)
		if !ok || !ok2 || arrow.ParameterList == nil || len(arrow.ParameterList.List) > 0 {
			return false
		}
		body, ok := arrow.Body.(*ast.ExpressionBody)
		if !ok {
			return false
		}
		fn, ok := body.Expression.(*ast.Identifier)
		if !ok {
			return false
		}
		table[key.Value.String()] = fn.Name.String()
	}
	name := ns.Name.String()
	if n.tables[name] != nil {
		return false // a second table for one name: not esbuild's
	}
	n.tables[name] = table
	return true
}

// destructure records the members a pattern takes from a namespace; false
// when it can take any (a rest element, a computed key).
func (n *nsAnalyzer) destructure(ns string, pat *ast.ObjectPattern) bool {
	if pat.Rest != nil {
		return false
	}
	var keys []string
	for _, p := range pat.Properties {
		switch p := p.(type) {
		case *ast.PropertyShort:
			keys = append(keys, p.Name.Name.String())
		case *ast.PropertyKeyed:
			key, ok := p.Key.(*ast.StringLiteral)
			if p.Computed || !ok {
				return false
			}
			keys = append(keys, key.Value.String())
		default:
			return false
		}
	}
	for _, k := range keys {
		n.take(ns, k)
	}
	return true
}
