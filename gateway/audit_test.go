package gateway

import (
	"testing"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/internal/app"
)

// TestExecuteIsAudited: a run from serve is on record with the MCP client's
// name and session.
func TestExecuteIsAudited(t *testing.T) {
	ws, _ := demoWorkspace(t)
	_, sess := connect(t, ws, Options{}, nil)
	res, text := call(t, sess, toolExecute, map[string]any{"code": `import { listFiles } from "servers/google-drive/listFiles";
console.log((await listFiles({})).files.length > 0);`})
	if res.IsError {
		t.Fatalf("execute: %s", text)
	}
	recs, _, err := ws.Audit(app.AuditQuery{})
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records, %v", len(recs), err)
	}
	r := recs[0]
	want := audit.Who{Face: audit.FaceServe, Client: "test-host", Session: sess.ID()}
	if r.Who != want || r.Program.Entry != "stdin.ts" || len(r.Calls) != 1 || r.Calls[0].Tool != "listFiles" {
		t.Errorf("record %+v, want who %+v", r, want)
	}
}
