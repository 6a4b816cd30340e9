package servers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsCapture keeps the raw JSON of tools/list and tools/call results as
// they pass by. go-sdk decodes tool schemas into maps, which loses the
// server's property order the generator wants; and it decodes every call
// result into typed values that the runtime would only encode again (a
// 10,000-row result costs more to decode and re-encode than to move).
type toolsCapture struct {
	mu      sync.Mutex
	pending map[string]bool // ids of tools/list requests in flight
	tools   []json.RawMessage
	calls   map[string]*resultSlot // ids of tools/call requests whose caller wants the raw result
	// forms are the property orders of the latest elicitation requests'
	// schemas (go-sdk hands the handler a map, which has no order).
	forms [][]string
	// onNotice takes the server's progress and log notifications as they
	// are read, in the order the server sent them: before the answer of the
	// call they are about (go-sdk's handlers run on goroutines of their
	// own, and could see the call end first).
	onNotice func(method string, params json.RawMessage)
}

// resultSlot receives the raw result of one tools/call, read once
// (mcptool.ParseResult: its fields are slices of the raw bytes, which are
// neither decoded nor copied again). The caller puts it in the context of
// the call (withResultSlot); the tap fills it.
type resultSlot struct {
	mu     sync.Mutex
	filled bool
	res    *mcptool.Result
	err    error
	// questions counts what the server asked the person in the call's
	// input_required rounds (2026-07-28); refused says why a round was
	// refused before anything of it was asked ("" when none was).
	questions int
	refused   string
}

// askRound counts a round's questions; it returns why the round is
// refused ("" when it may be asked): the call would put more than
// maxQuestionsPerCall questions to the person.
func (s *resultSlot) askRound(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.questions += n
	if s.questions > maxQuestionsPerCall {
		s.refused = fmt.Sprintf("declined: the server asked more than %d questions during one call (%d in one round, %d in all); mcpcode puts at most %d to the person per call, so that a server cannot keep the person answering", maxQuestionsPerCall, n, s.questions, maxQuestionsPerCall)
	}
	return s.refused
}

// refusal is why a round of the call was refused ("" when none was).
func (s *resultSlot) refusal() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refused
}

// result is what the tap caught: ok false when it caught nothing.
func (s *resultSlot) result() (res *mcptool.Result, err error, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.res, s.err, s.filled
}

type resultSlotKey struct{}

func withResultSlot(ctx context.Context, s *resultSlot) context.Context {
	return context.WithValue(ctx, resultSlotKey{}, s)
}

func newToolsCapture() *toolsCapture {
	return &toolsCapture{pending: map[string]bool{}, calls: map[string]*resultSlot{}}
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// outgoing notes a message sent to the server in the context of a call.
func (c *toolsCapture) outgoing(ctx context.Context, msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || !req.ID.IsValid() {
		return
	}
	if req.Method == "tools/call" {
		if slot, ok := ctx.Value(resultSlotKey{}).(*resultSlot); ok {
			c.mu.Lock()
			c.calls[idKey(req.ID)] = slot
			c.mu.Unlock()
		}
		return
	}
	if req.Method != "tools/list" {
		return
	}
	var params struct {
		Cursor string `json:"cursor"`
	}
	_ = json.Unmarshal(req.Params, &params)
	c.mu.Lock()
	defer c.mu.Unlock()
	if params.Cursor == "" {
		c.tools = nil // a listing starts again from its first page
	}
	c.pending[idKey(req.ID)] = true
}

// incoming notes a message received from the server. It reports whether
// the message answered a call whose raw result was captured, and whether
// that result is a tool error. An interim result of a call (2026-07-28
// input_required) is left to go-sdk, mended in place (mendInputRequests):
// fixed reports that.
func (c *toolsCapture) incoming(msg jsonrpc.Message) (captured, isError, fixed bool) {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "elicitation/create" {
		c.noteForm(req.Params)
		return false, false, false
	}
	if req, ok := msg.(*jsonrpc.Request); ok && !req.ID.IsValid() && c.onNotice != nil &&
		(req.Method == "notifications/progress" || req.Method == "notifications/message") {
		c.onNotice(req.Method, req.Params)
		return false, false, false
	}
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || !resp.ID.IsValid() {
		return false, false, false
	}
	key := idKey(resp.ID)
	c.mu.Lock()
	slot, call := c.calls[key]
	if call {
		delete(c.calls, key)
	}
	c.mu.Unlock()
	if call {
		if resp.Error != nil {
			return false, false, false
		}
		res, err := mcptool.ParseResult(resp.Result)
		if err == nil && res.InputRequired {
			// An interim answer (2026-07-28): go-sdk's multi round-trip
			// middleware needs it whole, and sends the retry (whose answer
			// the slot gets: outgoing registers it again).
			mended, ok, questions := c.interim(resp.Result)
			if why := slot.askRound(questions); why != "" {
				// Refused whole, before anything of it is asked: go-sdk
				// gets an error in its place (callRaw tells it by the
				// slot), so that it asks nobody and sends no retry.
				resp.Result, resp.Error = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: why}
				return false, false, true
			}
			if ok {
				resp.Result = mended
			}
			return false, false, ok
		}
		slot.mu.Lock()
		slot.filled, slot.res, slot.err = true, res, err
		slot.mu.Unlock()
		return true, res != nil && res.IsError, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.pending[key] {
		return false, false, false
	}
	delete(c.pending, key)
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if resp.Error == nil && json.Unmarshal(resp.Result, &page) == nil {
		c.tools = append(c.tools, page.Tools...)
	}
	return false, false, false
}

// interim takes an interim result of a call (2026-07-28 input_required):
// it notes the property order of the forms it asks for (as noteForm does
// for an elicitation request of a legacy server), and gives every input
// request that has no "params" an empty object: the revision lets a
// request without parameters (roots/list) omit them, and the TypeScript
// SDK does, but go-sdk v1.8.0 fails to decode such a request ("unexpected
// end of JSON input"), which would fail the call. ok is false when the
// result needs no change. questions counts the requests that ask the
// person or the host (elicitation, sampling; roots are answered without
// asking).
func (c *toolsCapture) interim(result json.RawMessage) (_ json.RawMessage, ok bool, questions int) {
	var r map[string]json.RawMessage
	if json.Unmarshal(result, &r) != nil {
		return result, false, 0
	}
	var reqs map[string]map[string]json.RawMessage
	if json.Unmarshal(r["inputRequests"], &reqs) != nil {
		return result, false, 0
	}
	changed := false
	for _, key := range sortedKeys(reqs) {
		req := reqs[key]
		if req == nil {
			continue
		}
		switch string(req["method"]) {
		case `"elicitation/create"`:
			questions++
			c.noteForm(req["params"])
		case `"sampling/createMessage"`:
			questions++
		}
		if p, ok := req["params"]; !ok || string(p) == "null" {
			req["params"] = json.RawMessage(`{}`)
			changed = true
		}
	}
	if !changed {
		return result, false, questions
	}
	raw, err := json.Marshal(reqs)
	if err != nil {
		return result, false, questions
	}
	r["inputRequests"] = raw
	out, err := json.Marshal(r)
	if err != nil {
		return result, false, questions
	}
	return out, true, questions
}

// noteForm keeps the property order of an elicitation request's schema.
func (c *toolsCapture) noteForm(params json.RawMessage) {
	var p struct {
		RequestedSchema struct {
			Properties json.RawMessage `json:"properties"`
		} `json:"requestedSchema"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	keys := objectKeys(p.RequestedSchema.Properties)
	if len(keys) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forms = append(c.forms, keys)
	if len(c.forms) > 16 {
		c.forms = c.forms[len(c.forms)-16:]
	}
}

// formOrder returns (and forgets) the property order noted for a schema
// with exactly these properties; nil when none was noted.
func (c *toolsCapture) formOrder(props map[string]bool) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.forms) - 1; i >= 0; i-- {
		keys := c.forms[i]
		same := len(keys) == len(props)
		for _, k := range keys {
			same = same && props[k]
		}
		if same {
			c.forms = append(c.forms[:i], c.forms[i+1:]...)
			return keys
		}
	}
	return nil
}

// objectKeys returns the keys of a JSON object in their order.
func objectKeys(raw json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, ok := t.(string)
		if !ok {
			return nil
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
		keys = append(keys, k)
	}
	return keys
}

// tapLine takes the answer to a captured tools/call off a stdio server's
// stdout before go-sdk reads it: when line is the JSON-RPC response to a
// call whose raw result is wanted, the result is read once
// (mcptool.ParseCallResponse: one pass over the line) into the call's slot and tapLine returns the line
// go-sdk gets instead, a response with a stub result (stubResult). It
// returns nil for any other line, which then takes go-sdk's path. A
// 10,000-row result is so scanned once instead of being checked, decoded
// and copied four times on its way through go-sdk's decoders. A page of
// tools/list is taken too (tapPage).
func (c *toolsCapture) tapLine(line []byte) []byte {
	if len(line) == 0 || line[0] != '{' {
		return nil
	}
	c.mu.Lock()
	calls, lists := len(c.calls), len(c.pending)
	c.mu.Unlock()
	if calls > 0 {
		if stub := c.tapCall(line); stub != nil {
			return stub
		}
	}
	if lists > 0 {
		return c.tapPage(line)
	}
	return nil
}

// tapCall is tapLine for the answer to a tools/call.
func (c *toolsCapture) tapCall(line []byte) []byte {
	id, res, ok, err := mcptool.ParseCallResponse(line)
	if !ok {
		return nil
	}
	key := rawIDKey(id)
	c.mu.Lock()
	slot, ok := c.calls[key]
	if ok {
		delete(c.calls, key)
	}
	c.mu.Unlock()
	if !ok || (err == nil && res.InputRequired) {
		// An interim answer goes to go-sdk whole, by the decoding path
		// (incoming mends it there).
		if ok {
			c.mu.Lock()
			c.calls[key] = slot
			c.mu.Unlock()
		}
		return nil
	}
	slot.mu.Lock()
	slot.filled, slot.res, slot.err = true, res, err
	slot.mu.Unlock()
	return stubLine(id, stubResult(res != nil && res.IsError))
}

// tapPage is tapLine for a page of tools/list: its tools are kept raw (as
// incoming keeps them) and go-sdk gets the page without them (the listing
// is built from the raw tools, so go-sdk's decoding and checking of 10,000
// tool definitions was work thrown away), with the same nextCursor, so it
// still asks for the next page.
func (c *toolsCapture) tapPage(line []byte) []byte {
	var id, result []byte
	other := false
	if mcptool.ScanObject(line, func(key string, value []byte) error {
		switch key {
		case "id":
			id = value
		case "result":
			result = value
		case "method", "error":
			other = true
		}
		return nil
	}) != nil || other || id == nil || result == nil {
		return nil
	}
	key := rawIDKey(id)
	c.mu.Lock()
	listing := c.pending[key]
	c.mu.Unlock()
	if !listing {
		return nil
	}
	var tools, cursor []byte
	if mcptool.ScanObject(result, func(key string, value []byte) error {
		switch key {
		case "tools":
			tools = value
		case "nextCursor":
			cursor = value
		}
		return nil
	}) != nil {
		return nil
	}
	var page []json.RawMessage
	if len(tools) > 0 && string(tools) != "null" {
		if mcptool.ScanArray(tools, func(t []byte) error { page = append(page, t); return nil }) != nil {
			return nil // go-sdk's path reports it
		}
	}
	c.mu.Lock()
	if !c.pending[key] {
		c.mu.Unlock()
		return nil
	}
	delete(c.pending, key)
	c.tools = append(c.tools, page...)
	c.mu.Unlock()
	stub := []byte(`{"tools":[]`)
	if len(cursor) > 0 && string(cursor) != "null" {
		stub = append(append(stub, `,"nextCursor":`...), cursor...)
	}
	return stubLine(id, append(stub, '}'))
}

// stubLine is a JSON-RPC response with id and result.
func stubLine(id, result []byte) []byte {
	line := append([]byte(`{"jsonrpc":"2.0","id":`), id...)
	line = append(line, `,"result":`...)
	return append(append(line, result...), '}')
}

// rawIDKey is idKey of a JSON-RPC id as it appears on the wire ("" when it
// is not one go-sdk makes: a string or an integer).
func rawIDKey(id []byte) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		if json.Unmarshal(id, &s) != nil {
			return ""
		}
		sid, _ := jsonrpc.MakeID(s)
		return idKey(sid)
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	if err != nil {
		return ""
	}
	nid, _ := jsonrpc.MakeID(float64(n))
	return idKey(nid)
}

// take returns the tools captured by the latest listing.
func (c *toolsCapture) take() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]json.RawMessage(nil), c.tools...)
}

// capturingTransport wraps a transport whose connection can be wrapped
// without losing features (stdio, SSE, in-memory).
type capturingTransport struct {
	mcp.Transport
	capture *toolsCapture
}

func (t *capturingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &capturingConn{Connection: conn, capture: t.capture}, nil
}

type capturingConn struct {
	mcp.Connection
	capture *toolsCapture
}

func (c *capturingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	if captured, isError, _ := c.capture.incoming(msg); captured {
		// The caller takes the raw result from its slot; go-sdk only needs
		// to see that the call ended, and whether as a tool error, so it is
		// spared decoding a result that may be megabytes (or hold a content
		// type it does not know).
		resp := msg.(*jsonrpc.Response)
		msg = &jsonrpc.Response{ID: resp.ID, Result: stubResult(isError), Extra: resp.Extra}
	}
	return msg, err
}

func (c *capturingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.capture.outgoing(ctx, msg)
	return c.Connection.Write(ctx, msg)
}

// stubResult is a minimal CallToolResult with the result's isError.
func stubResult(isError bool) json.RawMessage {
	if isError {
		return json.RawMessage(`{"content":[],"isError":true}`)
	}
	return json.RawMessage(`{"content":[]}`)
}

// httpRoundTripper adds the configured headers to every request and, when
// capture is set, watches JSON-RPC bodies going out and coming back (plain
// JSON or server-sent events). The streamable HTTP connection cannot be
// wrapped like the others without losing its session handling, so for HTTP
// the capture happens here.
type httpRoundTripper struct {
	base    http.RoundTripper
	headers map[string]string
	capture *toolsCapture
	// oauth, when set, authorizes the requests (the SSE transport, which has
	// no OAuth hook of its own): the token goes in Authorization, and a 401
	// or 403 is answered by logging in and sending the request once more.
	oauth *oauthHandler
	// serverURL is the server's url: requests to another origin are
	// refused (origin.go).
	serverURL string
	// dpop, when set, turns a request carrying a DPoP-bound token into a
	// DPoP request with a proof (dpop.go).
	dpop *dpopState
}

func (t *httpRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.checkOrigin(req); err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	encodeNameHeader(req.Header)
	for k, v := range t.headers {
		if req.Header.Get(k) == "" {
			req.Header.Set(k, v)
		}
	}
	if t.oauth != nil {
		return t.authorized(req)
	}
	return t.roundTrip(req)
}

// authorized sends req with the OAuth token, logging in once on a 401 or
// 403.
func (t *httpRoundTripper) authorized(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.GetBody == nil {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		setBody(req, body)
	}
	send := func() (*http.Request, *http.Response, error) {
		r := req.Clone(req.Context())
		if req.GetBody != nil {
			b, err := req.GetBody()
			if err != nil {
				return nil, nil, err
			}
			r.Body = b
		}
		if ts, _ := t.oauth.TokenSource(r.Context()); ts != nil {
			if tok, err := ts.Token(); err == nil {
				r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
			}
		}
		resp, err := t.roundTrip(r)
		return r, resp, err
	}
	r, resp, err := send()
	if err != nil || (resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden) {
		return resp, err
	}
	if err := t.oauth.Authorize(req.Context(), r, resp); err != nil {
		return nil, err
	}
	_, resp, err = send()
	return resp, err
}

// setBody makes r send body, read once already, each time it is sent.
func setBody(r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
}

func (t *httpRoundTripper) roundTrip(req *http.Request) (*http.Response, error) {
	if t.capture != nil && req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		setBody(req, body)
		t.decode(body, func(m jsonrpc.Message) { t.capture.outgoing(req.Context(), m) })
	}
	resp, err := t.send(req)
	if err != nil || t.capture == nil || resp.Body == nil {
		return resp, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		resp.Body = &rewriter{src: resp.Body, whole: true, rewrite: t.rewrite}
	case "text/event-stream":
		resp.Body = &rewriter{src: resp.Body, rewrite: t.rewrite}
	}
	return resp, nil
}

// send sends req: a DPoP-bound token in the DPoP scheme with a proof,
// anything else as it is.
func (t *httpRoundTripper) send(req *http.Request) (*http.Response, error) {
	if t.dpop != nil {
		scheme, token, ok := strings.Cut(req.Header.Get("Authorization"), " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			if key := t.dpop.boundKey(token); key != nil {
				return t.dpop.sendToResource(t.base, req, token, key)
			}
		}
	}
	return t.base.RoundTrip(req)
}

// rewrite notes the JSON-RPC message(s) in data and returns what go-sdk
// should see: a captured call result replaced by a stub (see
// capturingConn.Read), anything else unchanged.
func (t *httpRoundTripper) rewrite(data []byte) []byte {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] == '[' {
		t.decode(data, func(m jsonrpc.Message) { t.capture.incoming(m) })
		return data
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		return data
	}
	captured, isError, fixed := t.capture.incoming(msg)
	if fixed {
		if mended, err := jsonrpc.EncodeMessage(msg); err == nil {
			return mended
		}
	}
	if !captured {
		return data
	}
	resp := msg.(*jsonrpc.Response)
	stub, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: resp.ID, Result: stubResult(isError)})
	if err != nil {
		return data
	}
	return stub
}

// decode hands each JSON-RPC message in body (one message or a batch) to fn.
func (t *httpRoundTripper) decode(body []byte, fn func(jsonrpc.Message)) {
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(body, &batch) == nil {
			for _, m := range batch {
				if msg, err := jsonrpc.DecodeMessage(m); err == nil {
					fn(msg)
				}
			}
		}
		return
	}
	if msg, err := jsonrpc.DecodeMessage(body); err == nil {
		fn(msg)
	}
}

// rewriter passes a response body through rewrite on its way to go-sdk:
// the whole body when it is one JSON document, else each server-sent
// event's data (a JSON-RPC message), as events complete. Lines other than
// data lines pass unchanged.
type rewriter struct {
	src     io.ReadCloser
	whole   bool
	rewrite func([]byte) []byte

	out  bytes.Buffer // ready for the reader
	line []byte       // the current, unfinished line
	data [][]byte     // the data lines of the current event
	err  error
}

func (r *rewriter) Read(p []byte) (int, error) {
	buf := make([]byte, 32*1024)
	for r.out.Len() == 0 && r.err == nil {
		n, err := r.src.Read(buf)
		if r.whole {
			r.line = append(r.line, buf[:n]...)
		} else {
			r.feed(buf[:n])
		}
		if err != nil {
			r.err = err
			r.flush()
		}
	}
	if r.out.Len() > 0 {
		return r.out.Read(p)
	}
	return 0, r.err
}

func (r *rewriter) Close() error { return r.src.Close() }

func (r *rewriter) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			r.line = append(r.line, b...)
			return
		}
		r.line = append(r.line, b[:i+1]...)
		b = b[i+1:]
		r.endLine(r.line)
		r.line = r.line[:0]
	}
}

// endLine handles one complete line, with its line ending.
func (r *rewriter) endLine(line []byte) {
	content := bytes.TrimRight(line, "\r\n")
	switch {
	case len(content) == 0:
		r.endEvent()
		r.out.Write(line)
	case bytes.HasPrefix(content, []byte("data:")):
		r.data = append(r.data, bytes.Clone(content))
	default:
		r.out.Write(line)
	}
}

// endEvent writes the held data lines, the message rewritten when it is one.
func (r *rewriter) endEvent() {
	if len(r.data) == 0 {
		return
	}
	var msg []byte
	for i, d := range r.data {
		if i > 0 {
			msg = append(msg, '\n')
		}
		msg = append(msg, bytes.TrimPrefix(bytes.TrimPrefix(d, []byte("data:")), []byte(" "))...)
	}
	r.data = nil
	for _, l := range bytes.Split(r.rewrite(msg), []byte("\n")) {
		r.out.WriteString("data: ")
		r.out.Write(l)
		r.out.WriteByte('\n')
	}
}

// flush passes on whatever remains at the end of the body.
func (r *rewriter) flush() {
	if r.whole {
		r.out.Write(r.rewrite(r.line))
		r.line = nil
		return
	}
	r.endEvent()
	r.out.Write(r.line)
	r.line = nil
}
