package gateway

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectModern starts a gateway and connects a host on protocol
// 2026-07-28 (go-sdk's default) to it in-process. go-sdk's client answers
// input_required rounds itself, with its elicitation handler, unless
// copts disables that.
func connectModern(t *testing.T, ws *app.Workspace, opts Options, copts *mcp.ClientOptions) (*Gateway, *mcp.ClientSession) {
	t.Helper()
	g := newTestGateway(t, ws, opts)
	return g, connectModernTo(t, g, copts)
}

func newTestGateway(t *testing.T, ws *app.Workspace, opts Options) *Gateway {
	t.Helper()
	if opts.Isolation == "" {
		opts.Isolation = app.IsolationNone
	}
	if opts.Limits.Timeout == 0 {
		opts.Limits.Timeout = 5 * time.Minute // a hang guard, as in connect
	}
	g, err := New(ws, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	return g
}

func connectModernTo(t *testing.T, g *Gateway, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	go func() { _ = g.Run(ctx, st) }()
	sess, err := mcp.NewClient(&mcp.Implementation{Name: "modern-host", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	if v := sess.InitializeResult().ProtocolVersion; v != modernVersion {
		t.Fatalf("the host speaks %s, want %s", v, modernVersion)
	}
	return sess
}

// answering is a host's elicitation handler that records the questions and
// answers each with the result answer returns.
type answering struct {
	mu       sync.Mutex
	messages []string
	answer   func(n int) *mcp.ElicitResult
}

func (a *answering) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		a.mu.Lock()
		a.messages = append(a.messages, req.Params.Message)
		n := len(a.messages)
		a.mu.Unlock()
		return a.answer(n), nil
	}}
}

func (a *answering) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.messages...)
}

func result(action string, content map[string]any) func(int) *mcp.ElicitResult {
	return func(int) *mcp.ElicitResult { return &mcp.ElicitResult{Action: action, Content: content} }
}

// TestModernHostsConfirmWrites: a host on protocol 2026-07-28 is asked
// about a write through an input_required round of execute; a plain accept
// (accept with empty content, what a yes/no dialog sends) allows that one
// call and the run goes on; decline, cancel, or a "deny" decision refuse
// it, and nothing is sent.
func TestModernHostsConfirmWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		answer func(int) *mcp.ElicitResult
		sent   int
		output string
	}{
		{"plain accept", result("accept", map[string]any{}), 1, `"Qualified"`},
		{"accept without content", result("accept", nil), 1, `"Qualified"`},
		{"allow once", result("accept", map[string]any{"decision": answerOnce}), 1, `"Qualified"`},
		{"decline", result("decline", nil), 0, "refused: permission call denied: the user did not allow salesforce.updateRecord; nothing was sent"},
		{"cancel", result("cancel", nil), 0, "refused: permission call denied: the user did not allow salesforce.updateRecord"},
		{"deny", result("accept", map[string]any{"decision": answerDeny}), 0, "refused: permission call denied: the user did not allow salesforce.updateRecord"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws, calls := demoWorkspace(t)
			a := &answering{answer: tt.answer}
			_, s := connectModern(t, ws, Options{}, a.options())
			res, text := call(t, s, "execute", map[string]any{"code": updateProgram})
			if !strings.Contains(text, tt.output) {
				t.Errorf("output %q, want %q", text, tt.output)
			}
			if res.IsError {
				t.Errorf("the run failed: %s", text)
			}
			if n := calls.count("salesforce.updateRecord"); n != tt.sent {
				t.Errorf("updateRecord reached the server %d times, want %d", n, tt.sent)
			}
			asked := a.asked()
			if len(asked) != 1 || !strings.Contains(asked[0], "salesforce.updateRecord") || !strings.Contains(asked[0], `"Qualified"`) {
				t.Errorf("the host was asked %q, want one question showing the tool and its arguments", asked)
			}
			if n := calls.count("salesforce.getRecord"); n != 1 {
				t.Errorf("getRecord reached the server %d times, want 1", n)
			}
		})
	}
}

// TestModernAllowForTheRun: "allow for the rest of this run" covers the
// tool's later calls in the run, asked once; the next run asks again.
func TestModernAllowForTheRun(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	a := &answering{answer: result("accept", map[string]any{"decision": answerRun})}
	_, s := connectModern(t, ws, Options{}, a.options())
	code := `import { updateRecord } from "servers/salesforce/updateRecord";
for (const i of [1, 2, 3]) await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Description: "d" + i } });`
	if res, text := call(t, s, "execute", map[string]any{"code": code}); res.IsError {
		t.Fatal(text)
	}
	if n, sent := len(a.asked()), calls.count("salesforce.updateRecord"); n != 1 || sent != 3 {
		t.Errorf("asked %d times, %d calls sent; want 1 and 3", n, sent)
	}
	call(t, s, "execute", map[string]any{"code": code})
	if n := len(a.asked()); n != 2 {
		t.Errorf("a new run was not asked: %d questions", n)
	}
}

// TestClassicHostPlainAccept: an older host's classic elicitation follows
// the same rule: accept with empty content allows the one call.
func TestClassicHostPlainAccept(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t)
	var asked atomic.Int32
	_, s := connect(t, ws, Options{}, &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, nil
	}})
	if _, text := call(t, s, "execute", map[string]any{"code": updateProgram}); !strings.Contains(text, `"Qualified"`) {
		t.Errorf("output %q", text)
	}
	if asked.Load() != 1 || calls.count("salesforce.updateRecord") != 1 {
		t.Errorf("asked %d times, sent %d; want 1 and 1", asked.Load(), calls.count("salesforce.updateRecord"))
	}
}

// TestReadVerdict: what each answer to a write's confirmation allows.
func TestReadVerdict(t *testing.T) {
	for _, tt := range []struct {
		res  *mcp.ElicitResult
		want verdict
	}{
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{}}, allowedOnce},
		{&mcp.ElicitResult{Action: "accept"}, allowedOnce},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": nil}}, allowedOnce},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": ""}}, allowedOnce},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerOnce}}, allowedOnce},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerRun}}, allowedForRun},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": answerDeny}}, refused},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": "sure, and the others"}}, refused},
		{&mcp.ElicitResult{Action: "accept", Content: map[string]any{"decision": true}}, refused},
		{&mcp.ElicitResult{Action: "decline"}, refused},
		{&mcp.ElicitResult{Action: "cancel", Content: map[string]any{"decision": answerRun}}, refused},
		{&mcp.ElicitResult{Action: "ACCEPT"}, refused},
		{nil, refused},
	} {
		if got := readVerdict(tt.res); got != tt.want {
			t.Errorf("readVerdict(%+v) = %d, want %d", tt.res, got, tt.want)
		}
	}
}
