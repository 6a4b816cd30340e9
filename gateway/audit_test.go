package gateway

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/servers"
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

// TestExecuteTokenized: with privacy on in the workspace, serve's execute
// answer (its text and its structured run record) shows tokens.
func TestExecuteTokenized(t *testing.T) {
	ws, _ := demoWorkspace(t)
	ws.Config.Privacy = &servers.PrivacyConfig{Mode: servers.PrivacyTokenize}
	_, sess := connect(t, ws, Options{}, nil)
	res, text := call(t, sess, toolExecute, map[string]any{"code": `import { query } from "servers/salesforce/query";
const lead = (await query({ query: "SELECT Name, Email, Phone FROM Lead LIMIT 1" })).records[0];
console.log(lead.Name, lead.Email, lead.Phone);
export default lead;`})
	record, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.HasPrefix(text, "[NAME_1] [EMAIL_1] [PHONE_1]\n") || strings.Contains(text+string(record), "@") ||
		!strings.Contains(string(record), `"Email":"[EMAIL_1]"`) {
		t.Errorf("execute answer:\n%s\n%s", text, record)
	}
}
