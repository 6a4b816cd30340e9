package app

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestResourcesWithheldUnderFlowRules: flow rules hold with privacy off
// too, and they see only tool calls: a resource read would carry a value
// to a server in its URI, and bring values in that no rule knows the
// source of. So with flow rules a run gets no resources, and the reason
// names the flow rules (privacy does not tokenize here).
func TestResourcesWithheldUnderFlowRules(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "mcp.json"), `{"mcpServers":{},"privacy":{"mode":"off","flows":[{"from":"crm","to":["mail"]}]}}`)
	ws := openDir(t, &App{}, root)
	src := `import { readResource } from "mcpcode:runtime";
let out = "read";
try { await readResource("slack", "slack://lookup?email=maya.okafor@harborview.example"); } catch (e) { out = e.message; }
export default out;`
	res, err := ws.Run(t.Context(), RunRequest{Source: []byte(src), Isolation: IsolationNone, Caller: fullCaller{&scopeCaller{}}})
	if err != nil || !res.OK {
		t.Fatalf("run: %v %+v", err, res)
	}
	var got string
	json.Unmarshal(res.Result, &got)
	if got == "read" {
		t.Fatal("a resource was read past the flow rules")
	}
	if !strings.Contains(got, "flow rules") || strings.Contains(got, "tokenizes") {
		t.Errorf("the reason does not name the flow rules: %q", got)
	}
}
