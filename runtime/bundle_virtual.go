package runtime

import (
	"encoding/json"
	"strings"
)

// The virtual modules are generated per build. They read the host object
// (the wrapper's parameter, whose name is random per build) only at their top
// level, never inside a function body, so that no function's source text
// (Function.prototype.toString) reveals the name.

const (
	nsVirtual      = "mcpcode-virtual"
	entrySpecifier = "mcpcode-entry:program"
)

// entryModule imports the program and hands its default export to the host.
func entryModule(host string) string {
	return `import * as __mcpcode_program from "` + entrySpecifier + `";
` + host + `.main(__mcpcode_program.default);
`
}

// runtimeModule is "mcpcode:runtime" for one scope: its callMCPTool is the
// host's call function bound to the scope (a distinctive, random symbol so
// that static analysis finds every use after esbuild's renaming).
func runtimeModule(host string, sc *scope) string {
	var b strings.Builder
	b.WriteString("const " + sc.callName + " = " + host + ".caller(" + scopeLiteral(sc) + ");\n")
	b.WriteString("export const ToolError = " + host + ".ToolError;\n")
	b.WriteString("export { " + sc.callName + " as callMCPTool };\n")
	return b.String()
}

// scopeLiteral is the scope descriptor a virtual module hands the host:
// null for the program's own scope.
func scopeLiteral(sc *scope) string {
	if sc.skill == "" {
		return "null"
	}
	b, _ := json.Marshal(scopeDescriptor{Skill: sc.skill, Skills: sc.skills, Write: sc.write})
	return string(b)
}

// fsModule is "mcpcode:fs" for one scope: in a skill's scope without a
// write grant, its functions that change files reject.
func fsModule(host string, sc *scope) string {
	var b strings.Builder
	b.WriteString("const __mcpcode_fs = " + host + ".fs(" + scopeLiteral(sc) + ");\n")
	for _, name := range fsFunctionNames {
		b.WriteString("export const " + name + " = __mcpcode_fs." + name + ";\n")
	}
	return b.String()
}

// scopeDescriptor tells the host which skill a call function or a
// "mcpcode:fs" module is bound to. It is embedded in the bundle at build
// time, with the grants as they were then.
type scopeDescriptor struct {
	Skill  string   `json:"skill"`
	Skills []string `json:"skills"`
	Write  bool     `json:"write"`
}

// fsFunctionNames are the exports of "mcpcode:fs" (see mcpcode.d.ts).
var fsFunctionNames = []string{"readFile", "writeFile", "appendFile", "readdir", "exists", "rm", "readJSON", "writeJSON"}
