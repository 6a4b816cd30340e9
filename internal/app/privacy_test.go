package app

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// liveDemo is a workspace over in-process demo servers that live as long as
// the test: salesforce keeps the updates of one run for the next.
type liveDemo struct {
	ws    *Workspace
	mu    sync.Mutex
	srv   map[string]*mcp.Server
	calls map[string]int // server.tool → calls that reached the server
	pool  *servers.Pool  // the test's own connections
}

// newLiveDemo writes mcp.json (the demo servers plus privacy, a JSON object
// or ""), generates the tree and opens the workspace with app a.
func newLiveDemo(t *testing.T, a *App, privacyJSON string) *liveDemo {
	t.Helper()
	d := &liveDemo{srv: map[string]*mcp.Server{}, calls: map[string]int{}}
	a.Dial = func(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
		d.mu.Lock()
		srv, ok := d.srv[cfg.Name]
		if !ok {
			var err error
			if srv, err = demo.New(cfg.Name); err != nil {
				d.mu.Unlock()
				return nil, err
			}
			name := cfg.Name
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
						d.mu.Lock()
						d.calls[name+"."+p.Name]++
						d.mu.Unlock()
					}
					return next(ctx, method, req)
				}
			})
			d.srv[cfg.Name] = srv
		}
		d.mu.Unlock()
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = srv.Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}
	dir := t.TempDir()
	var cfg map[string]any
	if err := json.Unmarshal(DemoConfig("unused"), &cfg); err != nil {
		t.Fatal(err)
	}
	if privacyJSON != "" {
		cfg["privacy"] = json.RawMessage(privacyJSON)
	}
	raw, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := a.Open(OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	pool := ws.Pool(PoolOptions{})
	defer pool.Close()
	rep, err := ws.Generate(context.Background(), pool, GenOptions{})
	if err != nil || rep.Failed() {
		t.Fatalf("gen: %v %+v", err, rep)
	}
	d.ws = ws
	return d
}

func (d *liveDemo) count(name string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.calls[name]
}

// call calls a tool directly, past privacy and audit (the test's own view
// of the servers).
func (d *liveDemo) call(t *testing.T, server, tool string, args any) json.RawMessage {
	t.Helper()
	d.mu.Lock()
	if d.pool == nil {
		d.pool = d.ws.Pool(PoolOptions{})
		t.Cleanup(func() { d.pool.Close() })
	}
	pool := d.pool
	d.mu.Unlock()
	raw, _ := json.Marshal(args)
	res, err := pool.CallTool(context.Background(), server, tool, raw)
	if err != nil || res.IsError {
		t.Fatalf("%s.%s: %v %s", server, tool, err, res.Text())
	}
	return res.StructuredContent
}

// run runs a program written to the workspace.
func (d *liveDemo) run(t *testing.T, isolation, privacyMode, src string) *runtime.Result {
	t.Helper()
	path := filepath.Join(d.ws.Root, fmt.Sprintf("prog-%d.ts", time.Now().UnixNano()))
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	lim := runtime.Limits{MaxToolCalls: 20000, Timeout: 10 * time.Minute}
	type outcome struct {
		res *runtime.Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := d.ws.Run(context.Background(), RunRequest{File: path, Isolation: isolation, Privacy: privacyMode, Limits: lim})
		done <- outcome{res, err}
	}()
	// The import's 10,000 calls take minutes under -race on a busy
	// machine: the guard against a hang is the run's own time limit, plus
	// a margin.
	select {
	case o := <-done:
		if o.err != nil {
			t.Fatal(o.err)
		}
		return o.res
	case <-time.After(lim.Timeout + time.Minute):
		t.Fatalf("the run did not end within its time limit (%s)", lim.Timeout)
		return nil
	}
}

type sheetRow struct {
	SalesforceID string `json:"salesforceId"`
	Name         string `json:"name"`
	Email        string `json:"email"`
	Phone        string `json:"phone"`
}

// articleImport is the article's sheet-to-CRM import, with two lines that
// show personal data (as programs often do) so that tokenizing has work.
const articleImport = `import { getSheet } from "servers/google-drive/getSheet";
import { updateRecord } from "servers/salesforce/updateRecord";

const sheet = await getSheet({ sheetId: "abc123" });
for (const row of sheet.rows) {
  await updateRecord({
    objectType: "Lead",
    recordId: row.salesforceId,
    data: { Email: row.email, Phone: row.phone, Name: row.name },
  });
}
console.log(` + "`Updated ${sheet.rows.length} leads`" + `);
const last = sheet.rows[sheet.rows.length - 1];
console.log(` + "`Last: ${last.name} <${last.email}> ${last.phone} (${last.salesforceId})`" + `);
export default { updated: sheet.rows.length, first: sheet.rows[0] };
`

// TestArticleImportTokenized is the acceptance test: the import
// over 10,000 rows with privacy on shows no email, phone or name of the
// sheet, neither in its output nor in the audit log; Salesforce holds the
// real values; a second program that uses a printed token updates the
// right record.
func TestArticleImportTokenized(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 tool calls")
	}
	a := newWorkerApp(t, 0)
	d := newLiveDemo(t, a, "")
	var sheet struct{ Rows []sheetRow }
	if err := json.Unmarshal(d.call(t, "google-drive", "getSheet", map[string]string{"sheetId": "abc123"}), &sheet); err != nil || len(sheet.Rows) != 10000 {
		t.Fatalf("sheet: %d rows, %v", len(sheet.Rows), err)
	}
	final := map[string]sheetRow{} // lead id → the last row that updates it
	for _, r := range sheet.Rows {
		final[r.SalesforceID] = r
	}
	// Make the import visible: every lead it touches starts with other values.
	for id := range final {
		d.call(t, "salesforce", "updateRecord", map[string]any{"objectType": "Lead", "recordId": id,
			"data": map[string]any{"Email": "before@old.example", "Phone": "(999) 555-0100", "Name": "Old Name"}})
	}

	res := d.run(t, IsolationWorker, PrivacyTokenize, articleImport)
	if !res.OK {
		t.Fatalf("import failed: %+v", res.Error)
	}
	record, _ := json.Marshal(res) // what --json prints and serve returns as structured content
	output := RunOutput(res) + "\n" + string(record)
	auditLog := readAll(t, d.ws.AuditLog().Dir)
	for _, where := range []struct{ name, text string }{{"the output", output}, {"the audit log", auditLog}} {
		lower := strings.ToLower(where.text)
		for _, r := range sheet.Rows {
			for _, v := range []string{r.Email, r.Phone, r.Name, digitsOf(r.Phone)} {
				if strings.Contains(lower, strings.ToLower(v)) {
					t.Fatalf("%s shows %q from the sheet:\n%.2000s", where.name, v, where.text)
				}
			}
		}
	}
	t.Logf("output of the import:\n%s", RunOutput(res))
	m := regexp.MustCompile(`Last: (\[NAME_\d+\]) <(\[EMAIL_\d+\])> (\[PHONE_\d+\]) \((\w+)\)`).FindStringSubmatch(output)
	if m == nil || !strings.Contains(output, "Updated 10000 leads") {
		t.Fatalf("output:\n%.3000s", output)
	}
	nameTok, emailTok, leadID := m[1], m[2], m[4]

	// Salesforce holds the real values of each lead's last row.
	var leads struct {
		Records []map[string]any `json:"records"`
	}
	json.Unmarshal(d.call(t, "salesforce", "query", map[string]string{"query": "SELECT Id, Name, Email, Phone FROM Lead"}), &leads)
	checked := 0
	for _, rec := range leads.Records {
		want, ok := final[rec["Id"].(string)]
		if !ok {
			continue
		}
		if rec["Email"] != want.Email || rec["Phone"] != want.Phone || rec["Name"] != want.Name {
			t.Fatalf("lead %v holds %v, %v, %v; want %s, %s, %s", rec["Id"], rec["Name"], rec["Email"], rec["Phone"], want.Name, want.Email, want.Phone)
		}
		checked++
	}
	if checked != len(final) {
		t.Fatalf("checked %d leads of %d", checked, len(final))
	}

	// A later program uses the printed tokens.
	second := fmt.Sprintf(`import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
const found = await query({ query: "SELECT Id FROM Lead WHERE Email = '%s'" });
await updateRecord({ objectType: "Lead", recordId: found.records[0].Id, data: { Description: "Called %s about the import" } });
console.log("updated", found.records[0].Id, "for %s");
`, emailTok, nameTok, nameTok)
	res2 := d.run(t, IsolationWorker, PrivacyTokenize, second)
	if !res2.OK {
		t.Fatalf("second run: %+v", res2.Error)
	}
	var lead map[string]any
	json.Unmarshal(d.call(t, "salesforce", "getRecord", map[string]string{"objectType": "Lead", "recordId": leadID}), &lead)
	want := final[leadID]
	if lead["Description"] != "Called "+want.Name+" about the import" || lead["Email"] != want.Email {
		t.Fatalf("lead %s: Description %q, Email %q; want the note about %s on %s", leadID, lead["Description"], lead["Email"], want.Name, want.Email)
	}
	if got := RunOutput(res2); got != fmt.Sprintf("updated %s for %s\n", leadID, nameTok) {
		t.Errorf("second output %q", got)
	}

	// The audit log has both runs, with their calls, and no values.
	recs, _, err := d.ws.Audit(AuditQuery{})
	if err != nil || len(recs) != 2 {
		t.Fatalf("audit: %d records, %v", len(recs), err)
	}
	// A record is bounded (audit.MaxLine): the calls that do not fit are
	// counted, not listed.
	if n, o := len(recs[0].Calls), recs[0].CallsOmitted; n+o != 10001 || n == 0 || recs[0].Privacy != PrivacyTokenize || recs[0].Who.Face != audit.FaceCLI {
		t.Errorf("first record: %d calls listed and %d omitted, privacy %q, who %+v; want 10,001 in all", n, o, recs[0].Privacy, recs[0].Who)
	}
	if recs[1].Calls[0].Server != "salesforce" || recs[1].Calls[0].Tool != "query" || recs[1].Calls[0].Outcome != audit.OutcomeOK {
		t.Errorf("second record's first call: %+v", recs[1].Calls[0])
	}
}

func digitsOf(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// readAll concatenates the files of dir.
func readAll(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

const flowRule = `{"flows": [{"from": "google-drive", "to": ["salesforce"]}]}`

// TestFlowRules: a Drive value may go to Salesforce, not to Slack, neither
// alone nor inside a longer message; a refused call sends nothing and is a
// policy error naming the rule. In both isolations (the worker relays the
// refusal to the program).
func TestFlowRules(t *testing.T) {
	for _, isolation := range []string{IsolationNone, IsolationWorker} {
		t.Run(isolation, func(t *testing.T) {
			a := newWorkerApp(t, 0)
			d := newLiveDemo(t, a, flowRule)
			toSlack := func(text string) string {
				return `import { getSheet } from "servers/google-drive/getSheet";
import { postMessage } from "servers/slack/postMessage";
const row = (await getSheet({ sheetId: "def456" })).rows[7];
await postMessage({ channel: "C0123SALES", text: ` + text + ` });
`
			}
			// The small sheet (16 rows): the rule, not the sheet's size, is
			// under test.
			for _, text := range []string{"row.ownerEmail", "`Targets: ${row.owner} (${row.ownerEmail}) booked ${row.booked}, say hi!`"} {
				res := d.run(t, isolation, "", toSlack(text))
				if res.OK || res.Error.Kind != runtime.KindPolicy {
					t.Fatalf("sending %s to slack: %+v", text, res.Error)
				}
				msg := res.Error.Message
				for _, want := range []string{"slack.postMessage was not called", "came from google-drive", `{"from": "google-drive", "to": ["salesforce"]}`, "nothing was sent"} {
					if !strings.Contains(msg, want) {
						t.Errorf("message %q lacks %q", msg, want)
					}
				}
			}
			if n := d.count("slack.postMessage"); n != 0 {
				t.Fatalf("%d messages reached slack", n)
			}
			res := d.run(t, isolation, "", `import { getSheet } from "servers/google-drive/getSheet";
import { updateRecord } from "servers/salesforce/updateRecord";
const row = (await getSheet({ sheetId: "def456" })).rows[7];
await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Description: "Targets owner: " + row.ownerEmail } });
`)
			if !res.OK || d.count("salesforce.updateRecord") != 1 {
				t.Fatalf("to salesforce: %+v, %d calls", res.Error, d.count("salesforce.updateRecord"))
			}
			recs, _, _ := d.ws.Audit(AuditQuery{})
			var outcomes []string
			for _, r := range recs {
				for _, c := range r.Calls {
					outcomes = append(outcomes, c.Server+"."+c.Tool+" "+c.Outcome)
				}
			}
			want := []string{"google-drive.getSheet ok", "slack.postMessage policy", "google-drive.getSheet ok", "slack.postMessage policy",
				"google-drive.getSheet ok", "salesforce.updateRecord ok"}
			if !slices.Equal(outcomes, want) {
				t.Errorf("audited calls %q, want %q", outcomes, want)
			}
		})
	}
}

// TestPrivacyConfig: the mode comes from mcp.json unless the request says;
// bad settings stop the run with a usage error.
func TestPrivacyConfig(t *testing.T) {
	a := &App{}
	d := newLiveDemo(t, a, `{"mode": "tokenize"}`)
	prog := `console.log("mail maya@harborview.example"); export default "call (206) 555-0142";`
	res := d.run(t, IsolationNone, "", prog)
	if got := RunOutput(res); got != "mail [EMAIL_1]\n\"call [PHONE_1]\"\n" {
		t.Errorf("mcp.json mode tokenize: %q", got)
	}
	res = d.run(t, IsolationNone, PrivacyOff, prog)
	if got := RunOutput(res); !strings.Contains(got, "maya@harborview.example") {
		t.Errorf("--privacy off: %q", got)
	}
	res = d.run(t, IsolationNone, "", `throw new Error("no lead for maya@harborview.example");`)
	if res.Error == nil || !strings.Contains(res.Error.Message, "no lead for [EMAIL_1]") || strings.Contains(res.Error.Stack, "maya@") {
		t.Errorf("error: %+v", res.Error)
	}
	if log := readAll(t, d.ws.AuditLog().Dir); !strings.Contains(log, "no lead for [EMAIL_1]") || strings.Contains(log, "maya@") {
		t.Errorf("the audit log holds the value, not its token:\n%s", log)
	}

	bad := newLiveDemo(t, &App{}, `{"patterns": [{"kind": "EMP", "regexp": "("}]}`)
	_, err := bad.ws.Run(context.Background(), RunRequest{Source: []byte(`1`), Isolation: IsolationNone})
	if !IsUsage(err) || !strings.Contains(err.Error(), "mcp.json: privacy: pattern EMP") {
		t.Errorf("a bad pattern: %v", err)
	}
	_, err = d.ws.Run(context.Background(), RunRequest{Source: []byte(`1`), Isolation: IsolationNone, Privacy: "maybe"})
	if !IsUsage(err) {
		t.Errorf("a bad mode: %v", err)
	}
}

// TestAuditRecord checks one record field by field.
func TestAuditRecord(t *testing.T) {
	d := newLiveDemo(t, &App{}, "")
	src := `import { getSheet } from "servers/google-drive/getSheet";
const s = await getSheet({ sheetId: "def456" });
console.log("rows", s.rows.length);
await getSheet({ sheetId: "nope" }).catch(() => {});
export default s.rows.length;`
	res := d.run(t, IsolationNone, "", src)
	if !res.OK {
		t.Fatal(res.Error)
	}
	recs, skipped, err := d.ws.Audit(AuditQuery{})
	if err != nil || len(skipped) != 0 || len(recs) != 1 {
		t.Fatalf("%d records, skipped %v, %v", len(recs), skipped, err)
	}
	r := recs[0]
	if r.Program.SHA256 != audit.HashProgram([]byte(src)) || r.Program.Bytes != len(src) || !strings.HasPrefix(r.Program.Entry, "./prog-") {
		t.Errorf("program %+v", r.Program)
	}
	if r.Who != (audit.Who{Face: audit.FaceCLI}) || r.Privacy != PrivacyOff || !r.OK || r.Error != nil {
		t.Errorf("record %+v", r)
	}
	if r.ResultBytes != len("16") || r.LogBytes != len("rows 16\n") {
		t.Errorf("sizes: result %d, logs %d", r.ResultBytes, r.LogBytes)
	}
	// The answer's size: its structured content and the text copy of it.
	structured := d.call(t, "google-drive", "getSheet", map[string]string{"sheetId": "def456"})
	if len(r.Calls) != 2 || r.Calls[0].Outcome != audit.OutcomeOK || r.Calls[1].Outcome != audit.OutcomeToolError ||
		r.Calls[0].Bytes <= 2*int64(len(structured)) || r.Calls[0].Args == r.Calls[1].Args || len(r.Calls[0].Args) != 16 {
		t.Errorf("calls %+v", r.Calls)
	}
	// The same arguments give the same digest in a later run.
	d.run(t, IsolationNone, "", `import { getSheet } from "servers/google-drive/getSheet"; await getSheet({ sheetId: "def456" });`)
	recs, _, _ = d.ws.Audit(AuditQuery{})
	if recs[1].Calls[0].Args != r.Calls[0].Args {
		t.Errorf("digests differ for equal arguments: %s, %s", recs[1].Calls[0].Args, r.Calls[0].Args)
	}
	// A limit is on record.
	lim := runtime.Limits{Timeout: 200 * time.Millisecond}
	res, _ = d.ws.Run(context.Background(), RunRequest{Source: []byte(`while (true) {}`), Isolation: IsolationNone, Limits: lim})
	recs, _, _ = d.ws.Audit(AuditQuery{})
	last := recs[len(recs)-1]
	if last.Error == nil || last.Error.Kind != runtime.KindLimit || !slices.Equal(last.Limits, []string{runtime.LimitTimeout}) || last.Program.Entry != "stdin.ts" {
		t.Errorf("limit record %+v", last)
	}
	if ids := slices.Collect(maps.Keys(map[string]bool{recs[0].ID: true, recs[1].ID: true, last.ID: true})); len(ids) != 3 {
		t.Errorf("run ids repeat: %v", ids)
	}
}
