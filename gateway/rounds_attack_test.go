package gateway

// Attacks on the input_required rounds of 2026-07-28 hosts (rounds.go,
// state.go, journal.go): a hostile host, a hostile program, a hostile
// upstream server. Each test fails if its attack works.

import (
	"strings"
	"testing"
	"time"
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
