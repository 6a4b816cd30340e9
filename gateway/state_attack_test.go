package gateway

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// manualHost is a modern host that handles input_required rounds itself,
// so that a test can retry a call with any state.
func manualHost(t *testing.T, g *Gateway) *mcp.ClientSession {
	t.Helper()
	return connectModernTo(t, g, &mcp.ClientOptions{
		Capabilities:   &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
	})
}

// firstRound calls execute and returns the round that asks about the
// program's write.
func firstRound(t *testing.T, s *mcp.ClientSession, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NeedsInput() || res.RequestState == "" || res.InputRequests[inputConfirm] == nil {
		t.Fatalf("execute did not ask about the write: %+v", res)
	}
	return res
}

// retry sends the host's answer (a plain accept) with a state.
func retry(s *mcp.ClientSession, args map[string]any, state string) (*mcp.CallToolResult, error) {
	return s.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: args, RequestState: state,
		InputResponses: mcp.InputResponseMap{inputConfirm: &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}}})
}

// reseal changes a state's payload and keeps its signature.
func reseal(t *testing.T, token string, change func(*roundState)) string {
	t.Helper()
	parts := strings.Split(token, ".")
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var st roundState
	if err := json.Unmarshal(payload, &st); err != nil {
		t.Fatal(err)
	}
	change(&st)
	payload, _ = json.Marshal(st)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(payload) + "." + parts[2]
}

func decodeState(t *testing.T, token string) roundState {
	t.Helper()
	var st roundState
	reseal(t, token, func(s *roundState) { st = *s })
	return st
}

// TestAttackRequestStateCannotBeForgedOrReplayed: a host that retries a
// round with a state that is not the one it was given for that call (its
// arguments changed, the state edited to match them, another run's state,
// another workspace's, an expired one, one whose expiry was pushed back,
// one already used) is refused with an error, and nothing is sent
// upstream. The genuine answer still works afterwards, exactly once.
func TestAttackRequestStateCannotBeForgedOrReplayed(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	g := newTestGateway(t, ws, Options{})
	s := manualHost(t, g)
	args := map[string]any{"code": updateProgram}
	round := firstRound(t, s, args)
	token := round.RequestState
	otherArgs := map[string]any{"code": strings.Replace(updateProgram, `"Qualified"`, `"Disqualified"`, 1)}
	otherRun := firstRound(t, s, otherArgs).RequestState

	otherWS, _ := demoWorkspace(t)
	foreign := firstRound(t, manualHost(t, newTestGateway(t, otherWS, Options{})), args).RequestState

	tests := []struct {
		name  string
		args  map[string]any
		state func() string
		clock time.Duration // how far the clock moved since the round
		want  string
	}{
		{"changed arguments", otherArgs, func() string { return token }, 0, "belongs to another call"},
		{"changed timeoutMs", map[string]any{"code": updateProgram, "timeoutMs": 1000}, func() string { return token }, 0, "belongs to another call"},
		{"state edited to match changed arguments", otherArgs, func() string {
			return reseal(t, token, func(st *roundState) { st.Call = digest(toolExecute, string(canonicalArgs(mustJSON(t, otherArgs))), "") })
		}, 0, "was not issued by this server"},
		{"another run's state", args, func() string { return otherRun }, 0, "belongs to another call"},
		{"another workspace's state", args, func() string { return foreign }, 0, "was not issued by this server"},
		{"signature changed", args, func() string { return token[:len(token)-2] + "AA" }, 0, "was not issued by this server"},
		{"not a state", args, func() string { return "please allow" }, 0, "was not issued by this server"},
		{"expired", args, func() string { return token }, stateTTL + time.Second, "has expired"},
		{"expiry pushed back", args, func() string {
			return reseal(t, token, func(st *roundState) { st.Expires = time.Now().Add(24 * time.Hour).UnixMilli() })
		}, stateTTL + time.Second, "was not issued by this server"},
	}
	for _, tt := range tests {
		g.states.setClock(func() time.Time { return time.Now().Add(tt.clock) })
		res, err := retry(s, tt.args, tt.state())
		g.states.setClock(time.Now)
		if err == nil {
			t.Errorf("%s: accepted: %+v", tt.name, res)
		} else if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "nothing was sent") {
			t.Errorf("%s: refused with %q, want %q and that nothing was sent", tt.name, err, tt.want)
		}
		if n := calls.count("salesforce.updateRecord"); n != 0 {
			t.Fatalf("%s: updateRecord reached the server %d times", tt.name, n)
		}
	}

	// The genuine answer is accepted once.
	res, err := retry(s, args, token)
	if err != nil || res.IsError || !strings.Contains(resultText(res), `"Qualified"`) {
		t.Fatalf("the genuine answer: %v %+v", err, res)
	}
	if _, err := retry(s, args, token); err == nil || !strings.Contains(err.Error(), "already used") {
		t.Errorf("a second use: %v, want a refusal saying the state was used", err)
	}
	if n := calls.count("salesforce.updateRecord"); n != 1 {
		t.Errorf("updateRecord reached the server %d times, want once", n)
	}
}

// TestAttackStateIsUsedOnceAcrossReplicas: the state a round issued is
// accepted by one replica only: the other refuses it, and sends nothing,
// however the retries are timed.
func TestAttackStateIsUsedOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	sa, sb := manualHost(t, a), manualHost(t, b)
	args := map[string]any{"code": updateProgram}
	token := firstRound(t, sa, args).RequestState
	type outcome struct {
		res *mcp.CallToolResult
		err error
	}
	out := make(chan outcome, 2)
	for _, s := range []*mcp.ClientSession{sa, sb} {
		go func() {
			res, err := retry(s, args, token)
			out <- outcome{res, err}
		}()
	}
	accepted := 0
	for range 2 {
		o := <-out
		switch {
		case o.err == nil && !o.res.IsError:
			accepted++
		case o.err != nil && strings.Contains(o.err.Error(), "already used"):
		default:
			t.Errorf("a retry: %v %+v", o.err, o.res)
		}
	}
	if accepted != 1 {
		t.Errorf("%d replicas accepted the state, want 1", accepted)
	}
	for k, n := range calls.snapshot() {
		if n != 1 {
			t.Errorf("%s reached the server %d times, want once", k, n)
		}
	}
}

// TestAttackJournalAndSecretAreTheWorkspacesOwn: the signing secret and the
// journals (which hold real tool results) are files only their owner can
// read, under .mcpcode/serve; a secret others may read is refused.
func TestAttackJournalAndSecretAreTheWorkspacesOwn(t *testing.T) {
	t.Parallel()
	ws, _ := demoWorkspace(t)
	g := newTestGateway(t, ws, Options{})
	firstRound(t, manualHost(t, g), map[string]any{"code": updateProgram})
	dir := filepath.Join(ws.State(), serveStateDir)
	secret := filepath.Join(dir, secretName)
	var journals []string
	entries, _ := os.ReadDir(filepath.Join(dir, runsName))
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".journal") {
			journals = append(journals, filepath.Join(dir, runsName, e.Name()))
		}
	}
	if len(journals) != 1 {
		t.Fatalf("journals %q, want one", journals)
	}
	for _, f := range append(journals, secret) {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %04o, want 0600", f, fi.Mode().Perm())
		}
	}
	if err := os.Chmod(secret, 0o644); err != nil {
		t.Fatal(err)
	}
	other := newTestGateway(t, ws, Options{})
	res, err := other.states.sign(roundState{Run: newRunID(), Round: 1})
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a secret others may read was used: %q %v", res, err)
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReplicasAgreeOnOneSecret: replicas that start at once create one
// secret between them.
func TestReplicasAgreeOnOneSecret(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	keys := make(chan string, 8)
	for range 8 {
		go func() {
			k, err := newStateStore(dir).secret(true)
			if err != nil {
				keys <- "error: " + err.Error()
				return
			}
			keys <- string(k)
		}()
	}
	first := <-keys
	for range 7 {
		if k := <-keys; k != first {
			t.Fatalf("two replicas got different secrets (or failed): %q, %q", first, k)
		}
	}
}

// resultText is a tool result's text.
func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestUpstreamRoundIsAnsweredWhereItWaits: an upstream server's question,
// passed to a modern host as a round, can be answered only by the replica
// whose upstream call waits for it. Another replica refuses the answer
// without using the state, so the retry that reaches the right replica
// still completes the run.
func TestUpstreamRoundIsAnsweredWhereItWaits(t *testing.T) {
	t.Parallel()
	ws := askingWorkspace(t)
	a, b := newTestGateway(t, ws, Options{}), newTestGateway(t, ws, Options{})
	sa, sb := manualHost(t, a), manualHost(t, b)
	args := map[string]any{"code": askProgram}
	res, err := sa.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: args})
	if err != nil || !res.NeedsInput() || res.InputRequests[inputUpstream] == nil {
		t.Fatalf("execute did not pass the upstream question on: %v %+v", err, res)
	}
	if p, ok := res.InputRequests[inputUpstream].(*mcp.ElicitParams); !ok || !strings.Contains(p.Message, `The MCP server "asking"`) {
		t.Errorf("the question: %+v", res.InputRequests[inputUpstream])
	}
	answer := mcp.InputResponseMap{inputUpstream: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}
	_, err = sb.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: args, RequestState: res.RequestState, InputResponses: answer})
	if err == nil || !strings.Contains(err.Error(), "held by another replica") || !strings.Contains(err.Error(), "nothing was sent") {
		t.Errorf("the other replica: %v", err)
	}
	res, err = sa.CallTool(context.Background(), &mcp.CallToolParams{Name: toolExecute, Arguments: args, RequestState: res.RequestState, InputResponses: answer})
	if err != nil || !strings.Contains(resultText(res), "answer: accept Ada") {
		t.Errorf("the replica that asked: %v %s", err, resultText(res))
	}
}

// TestJournalBounds: a journal holds at most maxJournalBytes (a run past
// it can be resumed only where it is held), and journals and used-markers
// are deleted once every state that could need them has expired.
func TestJournalBounds(t *testing.T) {
	t.Parallel()
	r := newHeldRun(nil, newRunID(), "call")
	r.leave(journalEntry{Op: opCall, Server: "s", Name: "t", Result: json.RawMessage(`"small"`)})
	if len(r.entries) != 1 || r.overflow {
		t.Fatalf("a small answer was not journaled: %+v", r.entries)
	}
	big := json.RawMessage(`"` + strings.Repeat("x", maxJournalBytes) + `"`)
	r.leave(journalEntry{Op: opCall, Server: "s", Name: "t", Result: big})
	w := &waitingQuestion{hostQuestion: &hostQuestion{kind: questionWrite, write: &pendingCall{Server: "s", Tool: "w"}}}
	if !r.overflow || r.entries != nil || r.snapshot(w) != nil {
		t.Errorf("a run past the bound still has a journal: overflow %v, %d entries", r.overflow, len(r.entries))
	}
	s := newStateStore(t.TempDir())
	if _, err := s.writeJournal(&journal{Format: journalFormat, Run: r.id, Entries: []journalEntry{{Result: big}}}); err == nil {
		t.Error("a journal over the bound was written")
	}

	if err := os.MkdirAll(s.runsDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	old, fresh := newRunID(), newRunID()
	for _, name := range []string{old + ".journal", old + ".1.used", fresh + ".journal", fresh + ".1.used"} {
		if err := os.WriteFile(filepath.Join(s.runsDir(), name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	long := time.Now().Add(-2*stateTTL - time.Minute)
	for _, name := range []string{old + ".journal", old + ".1.used"} {
		if err := os.Chtimes(filepath.Join(s.runsDir(), name), long, long); err != nil {
			t.Fatal(err)
		}
	}
	s.sweep()
	entries, _ := os.ReadDir(s.runsDir())
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if strings.Join(left, " ") != fresh+".1.used "+fresh+".journal" {
		t.Errorf("after the sweep: %q, want only the fresh run's files", left)
	}
}
