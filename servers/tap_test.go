package servers

import (
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// pendingCall registers a call whose raw result is wanted, as outgoing
// does when a tools/call with a result slot is sent.
func pendingCall(c *toolsCapture, id any) *resultSlot {
	jid, err := jsonrpc.MakeID(id)
	if err != nil {
		panic(err)
	}
	slot := &resultSlot{}
	c.mu.Lock()
	c.calls[idKey(jid)] = slot
	c.mu.Unlock()
	return slot
}

// TestTapLine: the answer to a captured call is read into its slot and
// replaced by a stub go-sdk can decode; every other line is left alone.
func TestTapLine(t *testing.T) {
	t.Parallel()
	c := newToolsCapture()
	slot := pendingCall(c, float64(7))
	strSlot := pendingCall(c, "call-8")
	other := pendingCall(c, float64(9))

	line := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"a\":1}"}],"structuredContent":{"a":1,"s":"}]\""},"isError":true}}`
	stub := c.tapLine([]byte(line))
	if stub == nil {
		t.Fatal("the answer to a captured call was not tapped")
	}
	msg, err := jsonrpc.DecodeMessage(stub)
	if err != nil {
		t.Fatalf("stub %s: %v", stub, err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.ID.Raw() != int64(7) || string(resp.Result) != `{"content":[],"isError":true}` {
		t.Errorf("stub = %s", stub)
	}
	res, err, filled := slot.result()
	if !filled || err != nil || !res.IsError || string(res.StructuredContent) != `{"a":1,"s":"}]\""}` || string(res.Content) != `[{"type":"text","text":"{\"a\":1}"}]` {
		t.Errorf("slot = %+v, %v, %v", res, err, filled)
	}
	if again := c.tapLine([]byte(line)); again != nil {
		t.Errorf("a second answer with the same id was tapped: %s", again)
	}

	if stub := c.tapLine([]byte(`{"id":"call-8","jsonrpc":"2.0","result":{"content":[]}}`)); stub == nil || !strings.Contains(string(stub), `"id":"call-8"`) {
		t.Errorf("string id: stub %s", stub)
	}
	if _, _, filled := strSlot.result(); !filled {
		t.Error("string id: slot not filled")
	}

	for _, l := range []string{
		`{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"no"}}`,                  // an error: go-sdk reports it
		`{"jsonrpc":"2.0","id":12,"result":{"content":[]}}`,                            // not a captured call
		`{"jsonrpc":"2.0","id":9,"method":"sampling/createMessage","params":{}}`,       // a request from the server
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"id":9}}`,        // a notification
		`[{"jsonrpc":"2.0","id":9,"result":{}}]`,                                       // a batch
		`Starting server...`, ``, `{"jsonrpc":"2.0","id":9.5,"result":{"content":[]}}`, // not JSON-RPC, or an id that is not an integer
	} {
		if stub := c.tapLine([]byte(l)); stub != nil {
			t.Errorf("%s was tapped: %s", l, stub)
		}
	}
	if _, _, filled := other.result(); filled {
		t.Error("a slot was filled by a line that does not answer its call")
	}
	if stub := newToolsCapture().tapLine([]byte(line)); stub != nil {
		t.Error("tapped with no call waiting")
	}
}

// TestStdoutFilterTaps: the filter hands the tap each line before checking
// it, passes the stub on in its place, and still skips what is not JSON.
func TestStdoutFilterTaps(t *testing.T) {
	t.Parallel()
	c := newToolsCapture()
	slot := pendingCall(c, float64(3))
	in := strings.Join([]string{
		"Starting server...",
		`{"jsonrpc":"2.0","id":3,"result":{"content":[],"structuredContent":{"rows":[1,2,3]}}}`,
		`{"jsonrpc":"2.0","id":4,"result":{"content":[]}}`,
	}, "\n") + "\n"
	var skipped []string
	f := newStdoutFilter(strings.NewReader(in), func(l []byte) { skipped = append(skipped, strings.TrimSpace(string(l))) })
	f.tap = c.tapLine
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}` + "\n" + `{"jsonrpc":"2.0","id":4,"result":{"content":[]}}` + "\n"
	if string(out) != want {
		t.Errorf("go-sdk reads\n%s\nwant\n%s", out, want)
	}
	if len(skipped) != 1 || skipped[0] != "Starting server..." {
		t.Errorf("skipped %q", skipped)
	}
	if res, _, _ := slot.result(); res == nil || string(res.StructuredContent) != `{"rows":[1,2,3]}` {
		t.Errorf("slot = %+v", res)
	}
}

// TestTapPage: a page of tools/list is kept raw (each tool's bytes, in
// order, property order intact) and go-sdk gets the page without its
// tools but with its cursor; a page that cannot be read takes go-sdk's path.
func TestTapPage(t *testing.T) {
	t.Parallel()
	c := newToolsCapture()
	pending := func(id float64) {
		jid, _ := jsonrpc.MakeID(id)
		c.mu.Lock()
		c.pending[idKey(jid)] = true
		c.mu.Unlock()
	}
	pending(1)
	stub := c.tapLine([]byte(`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"b","inputSchema":{"type":"object","properties":{"z":{},"a":{}}}},{"name":"a"}],"nextCursor":"p2"}}`))
	if string(stub) != `{"jsonrpc":"2.0","id":1,"result":{"tools":[],"nextCursor":"p2"}}` {
		t.Errorf("stub %s", stub)
	}
	pending(2)
	if stub := c.tapLine([]byte(`{"result":{"tools":[{"name":"c"}]},"jsonrpc":"2.0","id":2}`)); string(stub) != `{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}` {
		t.Errorf("last page stub %s", stub)
	}
	var got []string
	for _, r := range c.take() {
		got = append(got, string(r))
	}
	want := []string{`{"name":"b","inputSchema":{"type":"object","properties":{"z":{},"a":{}}}}`, `{"name":"a"}`, `{"name":"c"}`}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("captured tools\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	pending(3)
	if stub := c.tapLine([]byte(`{"jsonrpc":"2.0","id":3,"result":{"tools":{"not":"a list"}}}`)); stub != nil {
		t.Errorf("an unreadable page was tapped: %s", stub)
	}
	c.mu.Lock()
	still := len(c.pending)
	c.mu.Unlock()
	if still != 1 {
		t.Errorf("%d listings pending after an unreadable page, want it left for go-sdk's path", still)
	}
}

// TestInterimResultsGoToGoSDK: an interim result (2026-07-28
// input_required) is neither tapped nor captured: go-sdk's multi
// round-trip middleware gets it whole, its input requests without params
// mended, and the answer to the retry (a new id, registered again by
// outgoing) is captured as usual.
func TestInterimResultsGoToGoSDK(t *testing.T) {
	t.Parallel()
	c := newToolsCapture()
	slot := pendingCall(c, float64(3))
	line := `{"jsonrpc":"2.0","id":3,"result":{"resultType":"input_required","inputRequests":{"roots":{"method":"roots/list"},"ask":{"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"string"}}}}}},"requestState":"st"}}`
	if stub := c.tapLine([]byte(line)); stub != nil {
		t.Fatalf("an interim result was tapped: %s", stub)
	}
	msg, err := jsonrpc.DecodeMessage([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	captured, _, fixed := c.incoming(msg)
	if captured || !fixed {
		t.Fatalf("incoming: captured %v, fixed %v", captured, fixed)
	}
	if _, _, filled := slot.result(); filled {
		t.Error("the interim result filled the call's slot")
	}
	result := string(msg.(*jsonrpc.Response).Result)
	for _, want := range []string{`"roots":{"method":"roots/list","params":{}}`, `"requestState":"st"`, `"resultType":"input_required"`} {
		if !strings.Contains(result, want) {
			t.Errorf("the mended result lacks %s: %s", want, result)
		}
	}
	if got := c.formOrder(map[string]bool{"a": true, "z": true}); strings.Join(got, ",") != "z,a" {
		t.Errorf("form order %v, want the server's z,a", got)
	}
	// The retry's answer.
	retry := pendingCall(c, float64(4))
	if stub := c.tapLine([]byte(`{"jsonrpc":"2.0","id":4,"result":{"resultType":"complete","content":[{"type":"text","text":"done"}]}}`)); stub == nil {
		t.Fatal("the final answer was not tapped")
	}
	if res, _, filled := retry.result(); !filled || !strings.Contains(string(res.Content), "done") {
		t.Errorf("the retry's slot: %+v %v", res, filled)
	}
}
