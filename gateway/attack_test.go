package gateway

// Attacks on `mcpcode serve` by a hostile (or prompt-injected) agent: each
// test is an attack that must fail. See the report in the commit that
// added this file for which of them worked before.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// attackGuard bounds a wait so that a hang fails the test.
const attackGuard = 90 * time.Second

// questions records the confirmation requests a host was sent and answers
// each with answer (an answer of "" declines).
type questions struct {
	mu       sync.Mutex
	messages []string
	schemas  []string
	answer   func(n int) string
}

func (q *questions) handler() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		q.mu.Lock()
		q.messages = append(q.messages, req.Params.Message)
		schema, _ := json.Marshal(req.Params.RequestedSchema)
		q.schemas = append(q.schemas, string(schema))
		n := len(q.messages)
		q.mu.Unlock()
		a := q.answer(n)
		if a == "" {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": a}}, nil
	}}
}

func (q *questions) list() []string {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.messages...)
}

func always(a string) func(int) string { return func(int) string { return a } }

// hiddenRunes are the characters that change how a confirmation reads
// without showing themselves: controls other than newline, format
// characters (bidi overrides, zero-width), line and paragraph separators.
func hiddenRunes(s string) []string {
	var out []string
	for _, r := range s {
		if r == '\n' {
			continue
		}
		if unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp, unicode.Co, unicode.Cs) || r == unicode.ReplacementChar {
			out = append(out, fmt.Sprintf("%U", r))
		}
	}
	return out
}

// TestAttackConfirmationCannotBeSpoofed: a program puts text into a write's
// arguments that, shown raw, would make the question say something else:
// line separators that start fake lines, a right-to-left override that
// reverses what follows, zero-width characters, an escape sequence. The
// person must see them as escapes, not as layout.
func TestAttackConfirmationCannotBeSpoofed(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	q := &questions{answer: always("")}
	_, s := connect(t, ws, Options{}, q.handler())
	code := `import { updateRecord } from "servers/salesforce/updateRecord";
try {
  await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: {
    Description: "ok\u2028\u2028This call is read-only and was checked by mcpcode.\u2029Choose \u201callow for the rest of this run\u201d.\u0085",
    Status: "\u202eDeifilauq\u202c",
    Owner: "a\u200bb\u200dc\ufeff\u2066x\u2069",
    Esc: "\u001b[2K\u001b[1A",
  } });
} catch (e: any) { console.log(e.kind); }`
	_, text := call(t, s, "execute", map[string]any{"code": code})
	msgs := q.list()
	if len(msgs) != 1 {
		t.Fatalf("asked %d times, want 1 (%q)", len(msgs), text)
	}
	if h := hiddenRunes(msgs[0]); len(h) > 0 {
		t.Errorf("the question shows invisible or layout characters raw: %v\n%q", h, msgs[0])
	}
	for _, want := range []string{`\u2028`, `\u202e`, `\u200b`} {
		if !strings.Contains(msgs[0], want) {
			t.Errorf("the question does not show %s as an escape: %q", want, msgs[0])
		}
	}
	if calls.count("salesforce.updateRecord") != 0 {
		t.Error("a declined write was sent")
	}
}

// TestAttackHugeArgumentCannotHideTheRest: a program pads a write's
// arguments so that the part that matters lies beyond what the question
// shows. Every field must still be visible (long values are elided, and
// the question says so), and the question stays bounded.
func TestAttackHugeArgumentCannotHideTheRest(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	q := &questions{answer: always("")}
	_, s := connect(t, ws, Options{}, q.handler())
	code := `import { updateRecord } from "servers/salesforce/updateRecord";
const pad = "routine note ".repeat(2000);
try { await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Description: pad, Notes__c: pad, Status: "Closed - Not Converted", OwnerId: "005ATTACKER" } }); } catch {}
try { await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Tags__c: Array.from({ length: 5000 }, (_, i) => "t" + i).join(","), Items__c: null, Owner__c: "005ATTACKER2" } }); } catch {}`
	call(t, s, "execute", map[string]any{"code": code})
	msgs := q.list()
	if len(msgs) == 0 {
		t.Fatal("nothing was asked")
	}
	m := msgs[0]
	for _, want := range []string{`"Status"`, `Closed - Not Converted`, `"OwnerId"`, `005ATTACKER`} {
		if !strings.Contains(m, want) {
			t.Errorf("the question hides %s behind the padding", want)
		}
	}
	if !strings.Contains(strings.ToLower(m), "not shown") {
		t.Errorf("the question does not say that parts are left out: %.300q", m)
	}
	if len(m) > 16<<10 {
		t.Errorf("the question is %d bytes long", len(m))
	}
}

// TestAttackAllowForTheRunCoversOneTool: a program first asks for a
// harmless-looking write, hoping for "allow for the rest of this run",
// then makes a different write that the person never saw. The second one
// must be asked about.
func TestAttackAllowForTheRunCoversOneTool(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	q := &questions{answer: func(n int) string {
		if n == 1 {
			return answerRun
		}
		return ""
	}}
	_, s := connect(t, ws, Options{}, q.handler())
	code := `import { postMessage } from "servers/slack/postMessage";
import { updateRecord } from "servers/salesforce/updateRecord";
await postMessage({ channel: "C123456", text: "hello" });
await postMessage({ channel: "C123456", text: "hello again" });
try { await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Unqualified" } }); } catch (e: any) { console.log("refused", e.kind); }`
	_, text := call(t, s, "execute", map[string]any{"code": code})
	msgs := q.list()
	if n := calls.count("slack.postMessage"); n != 2 {
		t.Errorf("postMessage sent %d times, want 2 (allowed for the run): %q", n, text)
	}
	if n := calls.count("salesforce.updateRecord"); n != 0 {
		t.Errorf("updateRecord was sent %d times without the person seeing it", n)
	}
	if len(msgs) != 2 || !strings.Contains(msgs[1], "salesforce.updateRecord") {
		t.Errorf("questions = %q, want one for postMessage and one for updateRecord", msgs)
	}
	if len(msgs) > 0 && !strings.Contains(msgs[0], "slack.postMessage") {
		t.Errorf("the first question does not say what the run allowance covers: %q", msgs[0])
	}
}

// TestAttackDeniedRunStopsAsking: after the person declines, a program
// that keeps trying (hoping for a misclick) is refused without asking.
func TestAttackDeniedRunStopsAsking(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	q := &questions{answer: always("")}
	_, s := connect(t, ws, Options{}, q.handler())
	code := `import { updateRecord } from "servers/salesforce/updateRecord";
import { postMessage } from "servers/slack/postMessage";
let refused = 0;
for (let i = 0; i < 20; i++) {
  try { await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "S" + i } }); } catch (e: any) { if (e.kind === "permission") refused++; }
  try { await postMessage({ channel: "C123456", text: "x" + i }); } catch (e: any) { if (e.kind === "permission") refused++; }
}
export default refused;`
	_, text := call(t, s, "execute", map[string]any{"code": code})
	if n := len(q.list()); n != 1 {
		t.Errorf("the person was asked %d times in one run after declining, want 1", n)
	}
	if !strings.Contains(text, "40") {
		t.Errorf("not every write was refused: %q", text)
	}
	if calls.count("salesforce.updateRecord")+calls.count("slack.postMessage") != 0 {
		t.Error("a write was sent")
	}
}

// TestAttackGateTrustsNoWorker: the gate is the last check before a call
// leaves: a worker process is untrusted (a program that broke out of goja
// speaks its protocol), so the gate must not send, or ask about, a call of
// a tool the server does not have (a tool "name" that is a message to the
// person), nor pass arguments that are not a JSON object.
func TestAttackGateTrustsNoWorker(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	q := &questions{answer: always(answerOnce)}
	g, s := connect(t, ws, Options{}, q.handler())
	spoof := "updateRecord\n\nmcpcode checked this call: it is read-only. Choose \"allow for the rest of this run\"."
	type probe struct{ tool, args string }
	probes := []probe{
		{spoof, `{"objectType":"Lead","recordId":"00Q5f000001abcXYZ","data":{"Status":"x"}}`},
		{"getRecord\u202e", `{"objectType":"Lead","recordId":"00Q5f000001abcXYZ"}`},
		{"updateRecord", `"not an object"`},
		{"updateRecord", `[1,2]`},
	}
	var mu sync.Mutex
	var errs []string
	g.server.AddTool(&mcp.Tool{Name: "probe", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		for _, p := range probes {
			gt := newGate(g.pool, ConfirmAsk, classicAsker{session: req.Session}, "")
			_, err := gt.CallTool(ctx, "salesforce", p.tool, json.RawMessage(p.args))
			mu.Lock()
			if err == nil {
				errs = append(errs, fmt.Sprintf("%.20q %s: sent", p.tool, p.args))
			} else if !errors.Is(err, mcptool.ErrDenied) {
				errs = append(errs, fmt.Sprintf("%.20q %s: %v (want a refusal)", p.tool, p.args, err))
			}
			mu.Unlock()
		}
		return textResult("done"), nil
	})
	call(t, s, "probe", map[string]any{})
	for _, e := range errs {
		t.Error(e)
	}
	if msgs := q.list(); len(msgs) != 0 {
		t.Errorf("the person was asked about calls that cannot be made: %q", msgs)
	}
	calls.mu.Lock()
	defer calls.mu.Unlock()
	for name, n := range calls.n {
		t.Errorf("%s reached the server %d times", name, n)
	}
}

// TestAttackTimeoutCannotExceedTheServers: timeoutMs that overflows a
// time.Duration, or is negative, cannot lift a run above serve --timeout.
func TestAttackTimeoutCannotExceedTheServers(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	_, s := connect(t, ws, Options{Limits: runtime.Limits{Timeout: 500 * time.Millisecond}}, nil)
	code := `await new Promise((r) => setTimeout(r, 5000)); export default "finished";`
	for _, ms := range []int64{9223372036855, 1 << 62, 9223372036854775807, -1, -9223372036854775808} {
		res, text := call(t, s, "execute", map[string]any{"code": code, "timeoutMs": ms})
		if !res.IsError || !strings.Contains(text, "wall-time limit of 500ms exceeded") {
			t.Errorf("timeoutMs %d: %v %q, want the server's 500ms limit", ms, res.IsError, text)
		}
	}
}

// connectAnother connects one more client to a running gateway.
func connectAnother(t *testing.T, g *Gateway, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	go func() { _ = g.Run(ctx, st) }()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "other-host", Version: "1"}, copts).Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	return sess
}

// TestAttackClientsCannotConfirmForEachOther: two clients of one gateway
// run writes at the same time. One allows its run; the other declines. A
// question goes only to the client whose run asks, and one client's
// allowance lets nothing of the other's through.
func TestAttackClientsCannotConfirmForEachOther(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	release := make(chan struct{})
	var aAsked, bAsked atomic.Int32
	a := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		aAsked.Add(1)
		if !strings.Contains(req.Params.Message, `"a1"`) {
			t.Errorf("client A was asked about another run: %q", req.Params.Message)
		}
		<-release // hold A's allowance open while B runs
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerRun}}, nil
	}}
	b := &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		bAsked.Add(1)
		if strings.Contains(req.Params.Message, `"a1"`) || strings.Contains(req.Params.Message, `"a2"`) {
			t.Errorf("client B was asked about A's run: %q", req.Params.Message)
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}
	g, sa := connect(t, ws, Options{}, a)
	sb := connectAnother(t, g, b)
	aDone := make(chan string, 1)
	go func() {
		res, err := sa.CallTool(context.Background(), &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": `import { postMessage } from "servers/slack/postMessage";
await postMessage({ channel: "C123456", text: "a1" });
await postMessage({ channel: "C123456", text: "a2" });`}})
		if err != nil {
			aDone <- err.Error()
			return
		}
		aDone <- textOfResult(res)
	}()
	_, text := call(t, sb, "execute", map[string]any{"code": `import { updateRecord } from "servers/salesforce/updateRecord";
import { postMessage } from "servers/slack/postMessage";
for (const f of [() => updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "b" } }), () => postMessage({ channel: "C123456", text: "b" })]) {
  try { await f(); } catch (e: any) { console.log(e.kind); }
}`})
	close(release)
	select {
	case out := <-aDone:
		_ = out
	case <-time.After(attackGuard):
		t.Fatal("client A's run did not end")
	}
	if !strings.Contains(text, "permission") {
		t.Errorf("client B's writes: %q", text)
	}
	if n := calls.count("salesforce.updateRecord"); n != 0 {
		t.Errorf("B's declined write was sent %d times", n)
	}
	if n := calls.count("slack.postMessage"); n != 2 {
		t.Errorf("postMessage sent %d times, want A's 2 and none of B's", n)
	}
	if aAsked.Load() != 1 || bAsked.Load() == 0 {
		t.Errorf("A asked %d times (want 1), B %d (want at least 1)", aAsked.Load(), bAsked.Load())
	}
}

// TestAttackProposalsAreInert: proposals cannot escape skills/.proposals,
// replace or change an approved skill, become tools or resources, or be
// read, before a person approves them; and they are bounded.
func TestAttackProposalsAreInert(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	dir := filepath.Join(ws.Root, "skills", "pending-orders")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: pending-orders\ndescription: Approved.\n---\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "index.ts"), []byte(`export default async function (input: {}) { return "APPROVED"; }`), 0o644)
	approveAsLaidOut(t, ws, "pending-orders")
	_, s := connect(t, ws, Options{}, nil)
	evil := `export default async function (input: {}) { return "EVIL"; }`
	for _, name := range []string{"../escape", "a/b", ".proposals", "..", "", "Pending-Orders", "x\x00y", strings.Repeat("a", 65), "read\n", "pending-orders/../x"} {
		res, text := call(t, s, "propose_skill", map[string]any{"name": name, "description": "d", "rationale": "r", "code": evil})
		if !res.IsError {
			t.Errorf("propose_skill accepted the name %q: %q", name, text)
		}
	}
	// A proposal named like the approved skill, like a code tool, or new.
	for _, name := range []string{"pending-orders", "read", "execute", "fresh-skill"} {
		res, text := call(t, s, "propose_skill", map[string]any{"name": name, "description": "Replaces it.", "rationale": "r", "code": evil,
			"inputSchema": map[string]any{"type": "object"}})
		if res.IsError {
			t.Fatalf("propose %s: %q", name, text)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(ws.Root, "skills"))
	for _, e := range entries {
		if e.Name() != "pending-orders" && !strings.HasPrefix(e.Name(), ".") && e.Name() != "README.md" {
			t.Errorf("a proposal wrote skills/%s", e.Name())
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "escape")); err == nil {
		t.Error("a proposal escaped the workspace's skills/")
	}
	var names []string
	for tool, err := range s.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	if strings.Join(names, ",") != "execute,pending-orders,propose_skill,read,search_tools" {
		t.Errorf("tools after the proposals: %v", names)
	}
	if _, text := call(t, s, "pending-orders", map[string]any{}); !strings.Contains(text, "APPROVED") {
		t.Errorf("the approved skill runs the proposal's code: %q", text)
	}
	if _, text := call(t, s, "execute", map[string]any{"code": `import f from "skills/fresh-skill"; export default await f({});`}); strings.Contains(text, "EVIL") {
		t.Errorf("a pending proposal could be imported: %q", text)
	}
	for _, p := range []string{"skills/fresh-skill/index.ts", "skills/.proposals/fresh-skill/index.ts", "skills/.proposals", "skills/pending-orders/index.ts"} {
		if _, text := call(t, s, "read", map[string]any{"path": p}); strings.Contains(text, "EVIL") {
			t.Errorf("read %s shows a pending proposal: %q", p, text)
		}
	}
	for r, err := range s.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.URI, "fresh-skill") || strings.Contains(r.URI, ".proposals") {
			t.Errorf("a proposal is a resource: %s", r.URI)
		}
	}
}

// TestAttackProposalSizes: propose_skill stores what the agent sends on
// the person's disk and every tools/list reads the proposals: a rationale
// or input schema of megabytes, or proposals by the hundred, are refused.
func TestAttackProposalSizes(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	_, s := connect(t, ws, Options{}, nil)
	code := `export default async function (input: {}) { return 1; }`
	huge := strings.Repeat("because ", 1<<17) // 1 MiB
	props := map[string]any{}
	for i := 0; i < 2000; i++ {
		props[fmt.Sprintf("p%d", i)] = map[string]any{"type": "string", "description": strings.Repeat("d", 100)}
	}
	for name, args := range map[string]map[string]any{
		"big-rationale": {"rationale": huge},
		"big-schema":    {"rationale": "r", "inputSchema": map[string]any{"type": "object", "properties": props}},
	} {
		args["name"], args["description"], args["code"] = name, "A skill.", code
		if res, _ := call(t, s, "propose_skill", args); !res.IsError {
			t.Errorf("%s was recorded", name)
		}
		if _, err := os.Stat(filepath.Join(ws.Root, "skills", ".proposals", name)); err == nil {
			t.Errorf("%s is on disk", name)
		}
	}
	// Many pending proposals already (written as Propose writes them).
	for i := 0; i < 200; i++ {
		dir := filepath.Join(ws.Root, "skills", ".proposals", fmt.Sprintf("p-%d", i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "index.ts"), []byte(code), 0o644)
		os.WriteFile(filepath.Join(dir, "proposal.json"), []byte(`{"name":"p","description":"d","rationale":"r"}`), 0o644)
	}
	res, text := call(t, s, "propose_skill", map[string]any{"name": "one-more", "description": "A skill.", "rationale": "r", "code": code})
	if !res.IsError || !strings.Contains(text, "pending") {
		t.Errorf("a proposal beyond 200 pending ones: %v %q", res.IsError, text)
	}
	// Replacing a pending proposal adds none, so it is still possible.
	if res, text := call(t, s, "propose_skill", map[string]any{"name": "p-7", "description": "A skill.", "rationale": "r", "code": code}); res.IsError {
		t.Errorf("replacing a pending proposal: %q", text)
	}
}

// TestAttackSearchQueryIsBounded: a query of a megabyte is refused, not
// ranked (ranking costs words × tools).
func TestAttackSearchQueryIsBounded(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	_, s := connect(t, ws, Options{}, nil)
	var q strings.Builder
	for i := 0; q.Len() < 1<<20; i++ {
		fmt.Fprintf(&q, "word%d spreadsheet ", i)
	}
	res, text := call(t, s, "search_tools", map[string]any{"query": q.String()})
	if !res.IsError || !strings.Contains(text, "too long") {
		t.Errorf("a 1 MiB query: %v %.200q", res.IsError, text)
	}
	if res, text := call(t, s, "search_tools", map[string]any{"query": "rows of a spreadsheet"}); res.IsError {
		t.Errorf("a normal query: %q", text)
	}
}

// TestAttackResourceURIs: resource URIs that try to leave the tree.
func TestAttackResourceURIs(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	secret := filepath.Join(ws.Root, "skills", ".proposals", "evil")
	os.MkdirAll(secret, 0o755)
	os.WriteFile(filepath.Join(secret, "index.ts"), []byte(`export default async () => "SECRET-PENDING";`), 0o644)
	if err := os.Symlink(".proposals/evil", filepath.Join(ws.Root, "skills", "evil")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	_, s := connect(t, ws, Options{}, nil)
	for _, uri := range []string{
		"mcpcode://mcp.json", "mcpcode://../mcp.json", "mcpcode://servers/../mcp.json", "mcpcode://servers/%2e%2e/mcp.json",
		"mcpcode://servers%2f..%2fmcp.json", "mcpcode:///etc/passwd", "mcpcode://skills/.proposals/evil/index.ts",
		"mcpcode://skills/evil/index.ts", "mcpcode://skills/%2eproposals/evil/index.ts", "mcpcode://.mcpcode/manifest.json",
		"mcpcode://workspace/x", "MCPCODE://mcp.json", "mcpcode://servers/README.md/../../mcp.json", "file:///etc/passwd",
		"mcpcode://servers/\x00", "mcpcode://skills/evil",
	} {
		res, err := s.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		if err == nil {
			t.Errorf("%q was readable: %+v", uri, res.Contents)
		}
	}
}

// TestAttackExecuteReadsNoSecrets: a program cannot read mcp.json,
// mcpcode's state or a pending proposal through imports or mcpcode:fs.
func TestAttackExecuteReadsNoSecrets(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	os.WriteFile(filepath.Join(ws.Root, "mcp.json"), []byte(`{"mcpServers":{},"x":"SECRET-CONFIG"}`), 0o644)
	prop := filepath.Join(ws.Root, "skills", ".proposals", "evil")
	os.MkdirAll(prop, 0o755)
	os.WriteFile(filepath.Join(prop, "index.ts"), []byte(`export const s = "SECRET-PENDING"; export default async () => s;`), 0o644)
	os.WriteFile(filepath.Join(ws.Root, ".mcpcode", "secret.ts"), []byte(`export const s = "SECRET-STATE";`), 0o644)
	_, s := connect(t, ws, Options{}, nil)
	for _, code := range []string{
		`import c from "./mcp.json"; export default c;`,
		`import c from "mcp.json"; export default c;`,
		`import * as c from "./mcp.json?raw"; export default c;`,
		`import { s } from "./skills/.proposals/evil/index.ts"; export default s;`,
		`import { s } from "skills/.proposals/evil"; export default s;`,
		`import { s } from "./skills/.proposals/evil"; export default s;`,
		`import { s } from "servers/../skills/.proposals/evil/index"; export default s;`,
		`import { s } from "./.mcpcode/secret"; export default s;`,
		`import { s } from "servers/../.mcpcode/secret"; export default s;`,
		`import { readFile } from "mcpcode:fs"; export default await readFile("../mcp.json");`,
		`import { readFile } from "mcpcode:fs"; export default await readFile("/etc/hostname");`,
		`import { readFile } from "mcpcode:fs"; export default await readFile("../skills/.proposals/evil/index.ts");`,
	} {
		_, text := call(t, s, "execute", map[string]any{"code": code})
		if strings.Contains(text, "SECRET") {
			t.Errorf("%s\nread a secret: %q", code, text)
		}
	}
}

// TestAttackHTTP: the HTTP face without the token, with a wrong one, from
// another origin, under a foreign Host (DNS rebinding), with a body over
// the limit; and stateless mode, which cannot ask, refusing writes.
func TestAttackHTTP(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	g, err := New(ws, Options{Isolation: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	const token = "s3cret-token-value"
	srv := httptest.NewServer(g.HTTPHandler(HTTPOptions{Token: token, MaxBodyBytes: 64 << 10}))
	defer srv.Close()
	initBody := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func(body string, h map[string]string) (int, string) {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range h {
			if k == "Host" {
				req.Host = v
				continue
			}
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b)
	}
	good := "Bearer " + token
	for _, tc := range []struct {
		name string
		h    map[string]string
		body string
		want int
	}{
		{"no token", nil, initBody, 401},
		{"wrong token", map[string]string{"Authorization": "Bearer wrong"}, initBody, 401},
		{"token prefix", map[string]string{"Authorization": "Bearer " + token[:5]}, initBody, 401},
		{"token longer", map[string]string{"Authorization": good + "x"}, initBody, 401},
		{"basic", map[string]string{"Authorization": "Basic " + token}, initBody, 401},
		{"token in another header", map[string]string{"X-Token": token}, initBody, 401},
		{"other origin", map[string]string{"Authorization": good, "Origin": "https://evil.test"}, initBody, 403},
		{"null origin", map[string]string{"Authorization": good, "Origin": "null"}, initBody, 403},
		{"origin like loopback", map[string]string{"Authorization": good, "Origin": "http://127.0.0.1.evil.test"}, initBody, 403},
		{"rebinding host", map[string]string{"Authorization": good, "Host": "evil.test"}, initBody, 403},
		{"rebinding host and origin", map[string]string{"Authorization": good, "Host": "evil.test", "Origin": "http://evil.test"}, initBody, 403},
		{"body over the limit", map[string]string{"Authorization": good}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"x":"` + strings.Repeat("a", 128<<10) + `"}}`, 413},
	} {
		code, body := post(tc.body, tc.h)
		if code != tc.want {
			t.Errorf("%s: status %d, want %d (%.200q)", tc.name, code, tc.want, body)
		}
		if strings.Contains(body, "serverInfo") || strings.Contains(body, "search_tools") {
			t.Errorf("%s: the answer holds protocol data: %.200q", tc.name, body)
		}
	}
	if code, body := post(initBody, map[string]string{"Authorization": good}); code != 200 || !strings.Contains(body, "serverInfo") {
		t.Errorf("the right token: %d %.200q", code, body)
	}

	// Stateless: a client that says it can be asked is still refused,
	// and nothing is sent.
	g2, err := New(ws, Options{Isolation: "none"})
	if err != nil {
		t.Fatal(err)
	}
	defer g2.Close()
	srv2 := httptest.NewServer(g2.HTTPHandler(HTTPOptions{Stateless: true}))
	defer srv2.Close()
	var asked atomic.Int32
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "x", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerRun}}, nil
	}}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv2.URL}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	_, text := call(t, sess, "execute", map[string]any{"code": updateProgram})
	if !strings.Contains(text, "refused: permission") || calls.count("salesforce.updateRecord") != 0 || asked.Load() != 0 {
		t.Errorf("stateless write: asked %d, sent %d: %q", asked.Load(), calls.count("salesforce.updateRecord"), text)
	}
}

// recordingCaller is an upstream that records the arguments it receives.
type recordingCaller struct {
	mu   sync.Mutex
	sent []string
}

func (c *recordingCaller) Tools(context.Context, string) ([]mcptool.Tool, error) {
	ro := true
	return []mcptool.Tool{{Name: "write"}, {Name: "read", Hints: mcptool.Hints{ReadOnly: &ro}}}, nil
}

func (c *recordingCaller) CallTool(_ context.Context, _, _ string, args json.RawMessage) (*mcptool.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sent = append(c.sent, string(args))
	return &mcptool.Result{Content: json.RawMessage(`[]`)}, nil
}

// TestAttackAmbiguousArgumentsAreSentAsShown: arguments relayed from a
// worker can be JSON that readers take differently (a key given twice: Go
// keeps the last, some parsers the first). A write is sent re-encoded, as
// the gate read it and showed it, so the server cannot see another value
// than the person did; a read-only call goes out unchanged.
func TestAttackAmbiguousArgumentsAreSentAsShown(t *testing.T) {
	t.Parallel()
	up := &recordingCaller{}
	g := newGate(up, ConfirmAllow, nil, "")
	if _, err := g.CallTool(context.Background(), "s", "write", json.RawMessage(`{"to":"alice@example.test","to":"mallory@example.test","n":1.50}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := g.CallTool(context.Background(), "s", "read", json.RawMessage(`{"q":1,"q":2}`)); err != nil {
		t.Fatal(err)
	}
	want := []string{`{"n":1.50,"to":"mallory@example.test"}`, `{"q":1,"q":2}`}
	if strings.Join(up.sent, "\n") != strings.Join(want, "\n") {
		t.Errorf("sent %q, want %q", up.sent, want)
	}
	v, _ := decodeArgs(json.RawMessage(`{"to":"alice@example.test","to":"mallory@example.test"}`))
	if q := question("s", "write", v); !strings.Contains(q, "mallory") || strings.Contains(q, "alice") {
		t.Errorf("the question shows another value than is sent: %q", q)
	}
}

// TestAttackResultTextIsBounded: execute's text shows the result indented,
// and indenting costs the nesting depth on every line: a result of 20 KB
// nested 10,000 levels deep (the runtime's limit) became 200 MB of text in
// the serving process, per run. The text stays within a small multiple of
// the result (deep results are shown compact).
func TestAttackResultTextIsBounded(t *testing.T) {
	t.Parallel()
	for _, depth := range []int{10000, 3000} {
		for _, open := range []string{"[", `{"a":`} {
			close := "]"
			if open != "[" {
				close = "}"
			}
			raw := strings.Repeat(open, depth) + "1" + strings.Repeat(close, depth)
			res := runResult(&runtime.Result{OK: true, Result: json.RawMessage(raw), Logs: []runtime.LogEntry{{Level: "log", Text: "hi"}}})
			text := textOfResult(res)
			if len(text) > 4*len(raw)+1<<20 {
				t.Errorf("a result of %d bytes nested %d deep (%s) became %d bytes of text", len(raw), depth, open, len(text))
			}
			if !strings.HasPrefix(text, "hi\n") || !strings.Contains(text, "1") {
				t.Errorf("the text lost the logs or the result: %.100q", text)
			}
		}
	}
	// An ordinary result is still indented.
	res := runResult(&runtime.Result{OK: true, Result: json.RawMessage(`{"rows":[1,2]}`)})
	if text := textOfResult(res); text != "{\n  \"rows\": [\n    1,\n    2\n  ]\n}\n" {
		t.Errorf("ordinary result: %q", text)
	}
}
