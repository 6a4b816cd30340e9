package runtime

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dop251/goja/parser"
)

// TestAnalysisFailsClosedWhenTooDeep hides a call under more nesting than
// the walk may follow: it must be reported as unverifiable, not dropped.
func TestAnalysisFailsClosedWhenTooDeep(t *testing.T) {
	t.Parallel()
	src := "import { callMCPTool } from \"mcpcode:runtime\";\nawait callMCPTool(\"slack\", \"getDeployment\", {});\nexport default " +
		strings.Repeat("[", 60) + "\n  await callMCPTool(\"salesforce\", \"updateRecord\", {})" + strings.Repeat("]", 60) + ";\n"
	p := bundleSource(t, newWorkspace(t, nil), src)
	all := []ToolRef{{Server: "salesforce", Tool: "updateRecord"}, {Server: "slack", Tool: "getDeployment"}}
	if !reflect.DeepEqual(p.Calls, all) || len(p.Unverifiable) != 0 {
		t.Fatalf("full analysis: Calls = %+v, Unverifiable = %v", p.Calls, p.Unverifiable)
	}
	prg, err := parser.ParseFile(nil, bundleFileName, p.Code, 0, parser.WithSourceMapLoader(refuseSourceMapFile))
	if err != nil {
		t.Fatal(err)
	}
	// The call function's random name is in the bundle; analyze with a
	// walk too short to reach the nested call.
	calls, unverifiable := analyzeCallsWithin(prg, callNameIn(t, p.Code), 150)
	if !reflect.DeepEqual(calls, []ToolRef{{Server: "slack", Tool: "getDeployment"}}) {
		t.Errorf("Calls = %+v, want only the shallow call", calls)
	}
	if len(unverifiable) != 1 || !strings.HasPrefix(unverifiable[0], "analysis incomplete: nesting too deep at prog.ts:") {
		t.Errorf("Unverifiable = %v, want the incomplete analysis flagged at a prog.ts line", unverifiable)
	}
}

func callNameIn(t *testing.T, code string) string {
	t.Helper()
	i := strings.Index(code, "__mcpcode_callMCPTool_")
	if i < 0 {
		t.Fatal("no call function in the bundle")
	}
	return code[i : i+len("__mcpcode_callMCPTool_")+16]
}

// TestAnalysisShorthandPropertyEscapes: {fn} puts the call function in an
// object, where it can be called with any names.
func TestAnalysisShorthandPropertyEscapes(t *testing.T) {
	t.Parallel()
	const name = "__mcpcode_callMCPTool_0123456789abcdef"
	code := "const " + name + " = f();\nconst o = {\n  " + name + "\n};\no.x(\"salesforce\", \"updateRecord\");\n"
	prg, err := parser.ParseFile(nil, "x.js", code, 0)
	if err != nil {
		t.Fatal(err)
	}
	calls, unverifiable := analyzeCalls(prg, name)
	if len(calls) != 0 || !reflect.DeepEqual(unverifiable, []string{"x.js:3"}) {
		t.Errorf("Calls = %+v, Unverifiable = %v, want the shorthand property flagged at x.js:3", calls, unverifiable)
	}
}
