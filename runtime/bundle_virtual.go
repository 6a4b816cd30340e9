package runtime

import "strconv"

// The virtual modules are generated per realm's bundle. They read the host
// object (the wrapper's parameter, whose name is random per bundle) only at
// their top level, never inside a function body, so that no function's
// source text (Function.prototype.toString) reveals the name. Each realm
// has one host object, bound to the realm's own grant: nothing in the code
// says whose it is.

const entrySpecifier = "mcpcode-entry:program"

// entryModule imports the realm's entry and hands its default export to the
// host.
func entryModule(host string) string {
	return `import * as __mcpcode_program from "` + entrySpecifier + `";
` + host + `.main(__mcpcode_program.default);
`
}

// runtimeModule is "mcpcode:runtime" of one realm: its callMCPTool is the
// host's call function of the realm (a distinctive, random symbol so that
// static analysis finds every use after esbuild's renaming).
func runtimeModule(host, callName string) string {
	return "const " + callName + " = " + host + ".caller();\n" +
		"export const ToolError = " + host + ".ToolError;\n" +
		"export { " + callName + " as callMCPTool };\n" +
		"const __mcpcode_upstream = " + host + ".upstream();\n" +
		"export const readResource = __mcpcode_upstream.readResource;\n" +
		"export const listResources = __mcpcode_upstream.listResources;\n" +
		"export const AbortController = __mcpcode_upstream.AbortController;\n"
}

// skillModule is "skills/<name>" as the importing realm sees it: its
// default export calls the skill, in a realm of its own, with one JSON
// input, and resolves to the skill's JSON result.
func skillModule(host, name string) string {
	return "export default " + host + ".skill(" + strconv.Quote(name) + ");\n"
}

// fsModule is "mcpcode:fs" of one realm: in the realm of a skill without a
// write grant, its functions that change files reject.
func fsModule(host string) string {
	s := "const __mcpcode_fs = " + host + ".fs();\n"
	for _, name := range fsFunctionNames {
		s += "export const " + name + " = __mcpcode_fs." + name + ";\n"
	}
	return s
}

// scopeDescriptor says whose code a realm runs: the skill (innermost of a
// chain of skills calling skills), the grants of every skill in the chain,
// and whether all of them grant write. The program's own realm has none.
type scopeDescriptor struct {
	Skill  string   `json:"skill"`
	Skills []string `json:"skills"`
	Write  bool     `json:"write"`
	// chain are the skills from the outermost caller to this one, and
	// tools, for each, the tools it may call.
	chain []string
	tools [][]string
}

// fsFunctionNames are the exports of "mcpcode:fs" (see mcpcode.d.ts).
var fsFunctionNames = []string{"readFile", "writeFile", "appendFile", "readdir", "exists", "rm", "readJSON", "writeJSON"}
