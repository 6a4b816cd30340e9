package generator

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTaskOnlyToolIsMarkedUnusable: a tool that requires task augmentation
// (execution.taskSupport "required", which mcpcode cannot call) says so
// first in its doc comment and on its line of index.ts; other tools do not.
func TestTaskOnlyToolIsMarkedUnusable(t *testing.T) {
	t.Parallel()
	plan, err := Generate([]Server{{Name: "everything", Tools: []json.RawMessage{
		json.RawMessage(`{"name":"simulate-research-query","description":"Simulates a deep research operation.","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}}`),
		json.RawMessage(`{"name":"echo","description":"Echoes.","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}}`),
	}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range plan.Files {
		files[f.Path] = string(f.Content)
	}
	const reason = `UNUSABLE: mcpcode cannot call this tool: it can only be called as a task (execution.taskSupport "required"), which mcpcode does not support yet.`
	research := files["everything/simulateResearchQuery.ts"]
	if !strings.Contains(research, "/**\n * "+reason+"\n *\n * Simulates a deep research operation.") {
		t.Errorf("the task-only tool's doc comment does not start with the reason:\n%s", research)
	}
	index := files["everything/index.ts"]
	if !strings.Contains(index, "// UNUSABLE: it can only be called as a task (execution.taskSupport \"required\"), which mcpcode does not support yet.\n// Simulates a deep research operation.\nexport { simulateResearchQuery") {
		t.Errorf("index.ts does not mark the task-only tool:\n%s", index)
	}
	if strings.Count(index, "UNUSABLE") != 1 || strings.Contains(files["everything/echo.ts"], "UNUSABLE") {
		t.Errorf("a tool with optional task support is marked too:\n%s", index)
	}
	if !strings.Contains(files["everything/echo.ts"], `, options?: CallOptions): Promise<ToolResult> {
  return callMCPTool("everything", "echo", input, options);`) {
		t.Errorf("the function does not pass its call options on:\n%s", files["everything/echo.ts"])
	}
}
