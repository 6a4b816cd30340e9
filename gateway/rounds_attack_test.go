package gateway

// Attacks on the input_required rounds of 2026-07-28 hosts (rounds.go,
// state.go, journal.go): a hostile host, a hostile program, a hostile
// upstream server. Each test fails if its attack works.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// waitRunEnds waits until a gateway no longer holds a run.
func waitRunEnds(t *testing.T, g *Gateway, run string) {
	t.Helper()
	deadline := time.Now().Add(attackGuard)
	for g.held.get(run) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("run %s is still held after %s", run, attackGuard)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// abandonProgram gives up on its write while the person is being asked
// (the call's own timeoutMs; an AbortSignal does the same), then reads.
// Run again from the journal (the file it wrote exists then), it waits
// for the write as a program would.
const abandonProgram = `import { exists, writeFile } from "mcpcode:fs";
import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
const again = await exists("abandon-started");
await writeFile("abandon-started", "1");
try {
  await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Qualified" } }, again ? {} : { timeoutMs: 300 });
} catch (e: any) {
  console.log("gave up:", e.message);
}
const r: any = await query({ query: "SELECT Status, Id FROM Lead WHERE Id = '00Q5f000001abcXYZ'" });
export default r.records[0].Status;`

// TestAttackAbandonedRoundSendsNothingTwice: a program that abandons the
// write it is being asked about (its call's timeoutMs or signal) must not
// go on sending requests on the replica that holds it: the round's
// requestState stays valid, and its answer resumes the run from the
// journal, which does not hold those requests, so they would be sent a
// second time.
func TestAttackAbandonedRoundSendsNothingTwice(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	sa, sb := manualHost(t, a), manualHost(t, b)
	args := map[string]any{"code": abandonProgram, "check": false}
	token := firstRound(t, sa, args).RequestState
	waitRunEnds(t, a, decodeState(t, token).Run)
	res, err := retry(sb, args, token)
	if err != nil {
		t.Fatalf("the answer: %v", err)
	}
	if text := resultText(res); res.IsError || !strings.Contains(text, "Qualified") {
		t.Errorf("the resumed run: %s", text)
	}
	for k, n := range calls.snapshot() {
		if n != 1 {
			t.Errorf("%s reached the server %d times, want once", k, n)
		}
	}
	if n := calls.total(); n != 2 {
		t.Errorf("the server saw %v, want the write and the query", calls.snapshot())
	}
}

// TestAttackRetryCannotSwapTheProgramByKeyCase: encoding/json matches
// object keys to fields case-insensitively, and the last key wins. A host
// that sends {"CODE": evil, "code": benign} runs the benign program and
// gets a round; its retry {"code": benign, "CODE": evil} has the same keys
// and values (so the same canonical arguments) but would run the evil
// program, resumed from the benign one's journal with the person's
// answer. Such arguments are refused, and nothing of the evil program is
// sent.
func TestAttackRetryCannotSwapTheProgramByKeyCase(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	sa, sb := manualHost(t, a), manualHost(t, b)
	evil := updateProgram + `
import { query } from "servers/salesforce/query";
await query({ query: "SELECT Id FROM Lead WHERE Name = 'evil'" });`
	raw := func(first, firstCode, second, secondCode string) json.RawMessage {
		return mustJSON(t, json.RawMessage(`{`+strconv.Quote(first)+`:`+strconv.Quote(firstCode)+`,`+strconv.Quote(second)+`:`+strconv.Quote(secondCode)+`}`))
	}
	for _, variant := range []struct{ name, key string }{{"upper case", "CODE"}, {"title case", "Code"}} {
		benign := raw(variant.key, evil, "code", updateProgram) // the last key wins: updateProgram runs
		swapped := raw("code", updateProgram, variant.key, evil)
		res, err := sa.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: benign})
		if err != nil {
			t.Fatal(err)
		}
		if !res.NeedsInput() {
			// Refused at once: the attack cannot start.
			if !res.IsError || !strings.Contains(resultText(res), "invalid arguments") {
				t.Errorf("%s: %s", variant.name, resultText(res))
			}
			continue
		}
		res, err = sb.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: swapped, RequestState: res.RequestState,
			InputResponses: mcp.InputResponseMap{inputConfirm: &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}})
		if err == nil && !res.IsError {
			t.Errorf("%s: the retry with the other program was accepted: %s", variant.name, resultText(res))
		}
	}
	for k := range calls.snapshot() {
		if strings.Contains(k, "evil") {
			t.Errorf("the evil program's call was sent: %s", k)
		}
	}
}

// TestAttackRetryCannotSwapTheInputByLoneSurrogates: Go decodes every lone
// UTF-16 surrogate escape ("\ud800", "\udbff") to U+FFFD, so two inputs
// that differ only there have the same canonical arguments, and a retry
// with the other input resumes the run. That is safe only as long as the
// program cannot tell them apart either (goja's JSON.parse decodes them
// the same way): the retry must not take the program another way.
func TestAttackRetryCannotSwapTheInputByLoneSurrogates(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	sa, sb := manualHost(t, a), manualHost(t, b)
	code := `import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
export default async function (input: any) {
  await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Qualified" } });
  if (input.k.charCodeAt(0) === 0xdbff) await query({ query: "SELECT Id FROM Lead WHERE Name = 'evil'" });
  return "done";
}`
	args := func(k string) json.RawMessage {
		return json.RawMessage(`{"code":` + strconv.Quote(code) + `,"check":false,"input":{"k":"` + k + `"}}`)
	}
	res, err := sa.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: args(`\ud800`)})
	if err != nil || !res.NeedsInput() {
		t.Fatalf("the first round: %v %+v", err, res)
	}
	res, err = sb.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: args(`\udbff`), RequestState: res.RequestState,
		InputResponses: mcp.InputResponseMap{inputConfirm: &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}})
	if err != nil && !strings.Contains(err.Error(), "belongs to another call") {
		t.Errorf("the retry was refused with %v, want a refusal saying it belongs to another call", err)
	}
	if err == nil && (res.IsError || !strings.Contains(resultText(res), "done")) {
		t.Errorf("the retry: %s", resultText(res))
	}
	for k, n := range calls.snapshot() {
		if strings.Contains(k, "evil") || n != 1 {
			t.Errorf("%s was sent %d times", k, n)
		}
	}
}

// TestAttackDeletedSecretRefusesPendingStates: the documented way to
// rotate the signing secret (a leaked secret lets anyone sign states) is
// to delete the file: confirmations pending then are refused, by the
// replicas already running too, and the next round is signed with a new
// secret that every replica uses. A secret made readable by others is
// refused by a running replica as by a new one.
func TestAttackDeletedSecretRefusesPendingStates(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	sa, sb := manualHost(t, a), manualHost(t, b)
	args := map[string]any{"code": updateProgram}
	old := firstRound(t, sa, args).RequestState
	if _, err := b.states.secret(false); err != nil { // b has read the first secret
		t.Fatal(err)
	}
	secret := filepath.Join(ws.State(), serveStateDir, secretName)
	if err := os.Remove(secret); err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*mcp.ClientSession{"the replica that signed it": sa, "another replica": sb} {
		if _, err := retry(s, args, old); err == nil || !strings.Contains(err.Error(), "was not issued by this server") {
			t.Errorf("%s: a state signed with the deleted secret: %v, want a refusal", name, err)
		}
	}
	if n := calls.total(); n != 0 {
		t.Fatalf("the server saw %v, want nothing", calls.snapshot())
	}
	// The next round is signed with a new secret, which the other replica
	// uses.
	fresh := firstRound(t, sa, args).RequestState
	if res, err := retry(sb, args, fresh); err != nil || res.IsError {
		t.Errorf("a state signed with the new secret, on the other replica: %v %+v", err, res)
	}
	if err := os.Chmod(secret, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := a.states.sign(roundState{Run: newRunID(), Round: 1}); err == nil {
		t.Error("a running replica signed with a secret others may read")
	}
}

// journals lists the journal files of a workspace.
func journals(t *testing.T, g *Gateway) []string {
	t.Helper()
	entries, _ := os.ReadDir(g.states.runsDir())
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".journal") {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestAttackJournalGoesWithItsRun: a journal holds real tool results. A
// host that answers a round and then drops its call stops the run; the
// journal goes with it (no state that could resume the run is left), not
// 20 minutes later at the next round or start.
func TestAttackJournalGoesWithItsRun(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	g := newTestGateway(t, ws, Options{})
	s := manualHost(t, g)
	code := `import { updateRecord } from "servers/salesforce/updateRecord";
await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Qualified" } });
await new Promise((resolve) => setTimeout(resolve, 600000));`
	args := map[string]any{"code": code, "check": false}
	token := firstRound(t, s, args).RequestState
	if j := journals(t, g); len(j) != 1 {
		t.Fatalf("journals %q, want the round's", j)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: toolExecute, Arguments: args, RequestState: token,
			InputResponses: mcp.InputResponseMap{inputConfirm: &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}})
		done <- err
	}()
	deadline := time.Now().Add(attackGuard)
	for calls.total() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the write was not sent")
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-done
	waitRunEnds(t, g, decodeState(t, token).Run)
	if j := journals(t, g); len(j) != 0 {
		t.Errorf("the stopped run's journal is left: %q", j)
	}
}

// TestAttackRoundsDoNotMixRevisions: a round of a 2026-07-28 host's call
// cannot be answered by a call on an older revision (another host's
// session with the state, or the same host downgrading), and the state
// stays unused for the genuine retry.
func TestAttackRoundsDoNotMixRevisions(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	g := newTestGateway(t, ws, Options{})
	modern := manualHost(t, g)
	var asked atomic.Int32
	classic := connectAnother(t, g, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "decline"}, nil
	}})
	args := map[string]any{"code": updateProgram}
	token := firstRound(t, modern, args).RequestState
	res, err := retry(classic, args, token)
	if err == nil || !strings.Contains(err.Error(), "requestState is part of protocol 2026-07-28") || !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("a retry on 2025-11-25: %v %+v", err, res)
	}
	if n := calls.count("salesforce.updateRecord"); n != 0 || asked.Load() != 0 {
		t.Fatalf("updateRecord sent %d times, the classic host asked %d times", n, asked.Load())
	}
	if res, err := retry(modern, args, token); err != nil || res.IsError || !strings.Contains(resultText(res), `"Qualified"`) {
		t.Errorf("the genuine retry after the refused one: %v %+v", err, res)
	}
}

// TestAttackRunIDsNameNoOtherFile: a state names its run's journal and
// markers by the run id, which must be 32 lowercase hex digits even in a
// state this workspace signed: no id reaches outside .mcpcode/serve/runs
// or names another run's files.
func TestAttackRunIDsNameNoOtherFile(t *testing.T) {
	t.Parallel()
	s := newStateStore(t.TempDir())
	for _, id := range []string{"../../../../etc/passwd", "../secret", strings.Repeat("A", 32), strings.Repeat("a", 31) + "/",
		strings.Repeat("a", 33), "", strings.Repeat("a", 30) + "\\x"} {
		token, err := s.sign(roundState{Run: id, Round: 1, Expires: time.Now().Add(time.Minute).UnixMilli(), Call: "c", Kind: questionWrite})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.verify(token, "c"); err != errStateForged {
			t.Errorf("run id %q: %v, want the state refused as forged", id, err)
		}
	}
	token, _ := s.sign(roundState{Run: newRunID(), Round: 0, Expires: time.Now().Add(time.Minute).UnixMilli(), Call: "c", Kind: questionWrite})
	if _, err := s.verify(token, "c"); err != errStateForged {
		t.Errorf("round 0: %v, want the state refused", err)
	}
}

// TestTruncatedSecretSaysWhatToDo: a secret file cut short (a replica
// that died while writing it, on a file system without hard links) is
// refused with the remedy, not used as a shorter key.
func TestTruncatedSecretSaysWhatToDo(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := newStateStore(dir)
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.dir, secretName), []byte("0123abcd"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.sign(roundState{Run: newRunID(), Round: 1}); err == nil || !strings.Contains(err.Error(), "remove it") {
		t.Errorf("a truncated secret: %v, want a refusal that says to remove it", err)
	}
}

// TestAttackSecretOfAnotherUserIsRefused: a signing secret that another
// account created (planted on a shared volume before serve first ran, and
// read by a serve running as root) is refused, so that account cannot sign
// confirmations.
func TestAttackSecretOfAnotherUserIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := newStateStore(dir)
	if _, err := s.sign(roundState{Run: newRunID(), Round: 1}); err != nil {
		t.Fatalf("signing with a new secret of this user: %v", err)
	}
	me := effectiveUID()
	effectiveUID = func() int { return me + 1 } // the file is now another user's
	t.Cleanup(func() { effectiveUID = os.Geteuid })
	s = newStateStore(dir)
	if _, err := s.sign(roundState{Run: newRunID(), Round: 1}); err == nil || !strings.Contains(err.Error(), "belongs to another user") {
		t.Errorf("a secret owned by another user: %v, want a refusal that names its owner", err)
	}
}

// TestAttackConcurrentAndRepeatedRequestsReplayOnce: a program that makes
// the same request twice and others at once (Promise.all: the journal
// holds them in the order they were answered, not made) before its write
// is resumed on another replica: each request is answered from the
// journal, so the server sees each exactly as often as the program made
// it, and the program gets the same data.
func TestAttackConcurrentAndRepeatedRequestsReplayOnce(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	sa, sb := manualHost(t, a), manualHost(t, b)
	code := `import { getRecord } from "servers/salesforce/getRecord";
import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
const id = "00Q5f000001abcXYZ";
const [r1, r2, q]: any[] = await Promise.all([
  getRecord({ objectType: "Lead", recordId: id }),
  getRecord({ objectType: "Lead", recordId: id }),
  query({ query: "SELECT Id, Status FROM Lead WHERE Id = '" + id + "'" }),
]);
await updateRecord({ objectType: "Lead", recordId: id, data: { Status: "Qualified" } });
const after: any = await getRecord({ objectType: "Lead", recordId: id });
export default [r1.Status ?? r1.record?.Status, r2.Status ?? r2.record?.Status, q.records[0].Status, after.Status ?? after.record?.Status].join(" / ");`
	args := map[string]any{"code": code, "check": false}
	token := firstRound(t, sa, args).RequestState
	res, err := retry(sb, args, token)
	if err != nil || res.IsError {
		t.Fatalf("the resumed run: %v %+v", err, res)
	}
	if text := resultText(res); !strings.Contains(text, "Working - Contacted / Working - Contacted / Working - Contacted / Qualified") {
		t.Errorf("the resumed run returned %s", text)
	}
	want := map[string]int{
		`salesforce.getRecord {"objectType":"Lead","recordId":"00Q5f000001abcXYZ"}`:                                  3,
		`salesforce.query {"query":"SELECT Id, Status FROM Lead WHERE Id = '00Q5f000001abcXYZ'"}`:                    1,
		`salesforce.updateRecord {"data":{"Status":"Qualified"},"objectType":"Lead","recordId":"00Q5f000001abcXYZ"}`: 1,
	}
	got := calls.snapshot()
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s reached the server %d times, want %d", k, got[k], n)
		}
	}
	if len(got) != len(want) {
		t.Errorf("the server saw %v", got)
	}
}

// TestAttackConcurrentRequestFromTheClockIsNotSentAgain: a program makes a
// request whose arguments come from the clock and randomness, and, while
// it is in flight, goes on to a write. Resumed on another replica, the
// program makes that request with other arguments; the journal holds the
// first one, never asked for again. The new request must not be sent
// (the first run sent its own): it fails, as a request made before the
// write does when the run never reaches it, and nothing but the confirmed
// write is sent.
func TestAttackConcurrentRequestFromTheClockIsNotSentAgain(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	b.holdGrace = 200 * time.Millisecond
	sa, sb := manualHost(t, a), manualHost(t, b)
	code := `import { getRecord } from "servers/salesforce/getRecord";
import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
const stamp = Date.now() + "-" + Math.random();
const q = query({ query: "SELECT Id FROM Lead WHERE Name = '" + stamp + "'" });
await getRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ" });
await Promise.all([q, updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Qualified" } })]);`
	args := map[string]any{"code": code, "check": false}
	token := firstRound(t, sa, args).RequestState
	res, err := retry(sb, args, token)
	if err != nil {
		t.Fatal(err)
	}
	if text := resultText(res); !res.IsError || !strings.Contains(text, "cannot be resumed on another replica") {
		t.Errorf("the diverging run: %s", text)
	}
	queries := 0
	for k, n := range calls.snapshot() {
		if strings.HasPrefix(k, "salesforce.query ") {
			queries += n
		} else if n != 1 {
			t.Errorf("%s reached the server %d times, want once", k, n)
		}
	}
	if queries != 1 {
		t.Errorf("the program's one query reached the server %d times: %v", queries, calls.snapshot())
	}
}

// TestAttackRacingRetriesOnTheHoldingReplica: a host sends the same answer
// several times at once to the replica that holds the run: one resumes
// it, the others are refused as used, and the write is sent once.
func TestAttackRacingRetriesOnTheHoldingReplica(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	g := newTestGateway(t, ws, Options{})
	s := manualHost(t, g)
	args := map[string]any{"code": updateProgram}
	token := firstRound(t, s, args).RequestState
	const n = 4
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	out := make(chan outcome, n)
	for range n {
		go func() {
			res, err := retry(s, args, token)
			out <- outcome{res, err}
		}()
	}
	accepted := 0
	for range n {
		o := <-out
		switch {
		case o.err == nil && !o.res.IsError && strings.Contains(resultText(o.res), `"Qualified"`):
			accepted++
		case o.err != nil && strings.Contains(o.err.Error(), "already used"):
		default:
			t.Errorf("a retry: %v %+v", o.err, o.res)
		}
	}
	if accepted != 1 {
		t.Errorf("%d retries resumed the run, want 1", accepted)
	}
	if m := calls.count("salesforce.updateRecord"); m != 1 {
		t.Errorf("updateRecord reached the server %d times, want once", m)
	}
}
