package app

import (
	"testing"

	"github.com/mcpcode/mcpcode/audit"
)

// TestResourceReadsAreAudited: a program's readResource and listResources
// calls are in the run's audit record, as its tool calls are.
func TestResourceReadsAreAudited(t *testing.T) {
	t.Parallel()
	ws := openDir(t, &App{}, t.TempDir())
	src := `import { readResource, listResources } from "mcpcode:runtime";
await listResources("docs");
const r: any = await readResource("docs", "file:///secret.txt");
export default r.length;`
	res, err := ws.Run(t.Context(), RunRequest{Source: []byte(src), Isolation: IsolationNone, Caller: fullCaller{&scopeCaller{}}})
	if err != nil || !res.OK {
		t.Fatalf("run: %v %+v", err, res.Error)
	}
	recs, _, err := ws.Audit(audit.Query{})
	if err != nil || len(recs) != 1 {
		t.Fatalf("audit: %d records, %v", len(recs), err)
	}
	var ops []string
	for _, c := range recs[0].Calls {
		ops = append(ops, c.Server+" "+c.Op)
	}
	if len(ops) != 2 || ops[0] != "docs resources/list" || ops[1] != "docs resources/read" {
		t.Errorf("calls on record: %q, want the resource list and read", ops)
	}
}
