package servers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsCapture keeps the raw JSON of tools/list results as they pass by.
// go-sdk decodes tool schemas into maps, which loses the server's property
// order; the generator wants the order the server wrote, so we watch the wire.
type toolsCapture struct {
	mu      sync.Mutex
	pending map[string]bool // ids of tools/list requests in flight
	tools   []json.RawMessage
}

func newToolsCapture() *toolsCapture {
	return &toolsCapture{pending: map[string]bool{}}
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// outgoing notes a message sent to the server.
func (c *toolsCapture) outgoing(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "tools/list" || !req.ID.IsValid() {
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

// incoming notes a message received from the server.
func (c *toolsCapture) incoming(msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || !resp.ID.IsValid() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := idKey(resp.ID)
	if !c.pending[key] {
		return
	}
	delete(c.pending, key)
	var page struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if resp.Error == nil && json.Unmarshal(resp.Result, &page) == nil {
		c.tools = append(c.tools, page.Tools...)
	}
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
	if err == nil {
		c.capture.incoming(msg)
	}
	return msg, err
}

func (c *capturingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.capture.outgoing(msg)
	return c.Connection.Write(ctx, msg)
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
}

func (t *httpRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range t.headers {
		if req.Header.Get(k) == "" {
			req.Header.Set(k, v)
		}
	}
	if t.capture != nil && req.Body != nil && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		t.decode(body, t.capture.outgoing)
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || t.capture == nil || resp.Body == nil {
		return resp, err
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		resp.Body = &jsonBodyTap{ReadCloser: resp.Body, done: func(b []byte) { t.decode(b, t.capture.incoming) }}
	case "text/event-stream":
		pr, pw := io.Pipe()
		resp.Body = &sseBodyTap{ReadCloser: resp.Body, tee: pw}
		go t.readEvents(pr)
	}
	return resp, nil
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

// readEvents parses server-sent events from r; each event's data is a
// JSON-RPC message.
func (t *httpRoundTripper) readEvents(r *io.PipeReader) {
	defer r.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), mcp.DefaultMaxLineLength)
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				t.decode([]byte(data.String()), t.capture.incoming)
				data.Reset()
			}
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		}
	}
	_, _ = io.Copy(io.Discard, r) // never block the tee on an over-long line
}

// jsonBodyTap buffers a JSON response body as it is read and hands it over
// once it has been read to the end.
type jsonBodyTap struct {
	io.ReadCloser
	buf  bytes.Buffer
	done func([]byte)
	once sync.Once
}

func (b *jsonBodyTap) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.buf.Write(p[:n])
	if err == io.EOF {
		b.once.Do(func() { b.done(b.buf.Bytes()) })
	}
	return n, err
}

// sseBodyTap copies an event stream into a pipe as it is read.
type sseBodyTap struct {
	io.ReadCloser
	tee *io.PipeWriter
}

func (b *sseBodyTap) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		_, _ = b.tee.Write(p[:n])
	}
	if err != nil {
		b.tee.CloseWithError(err)
	}
	return n, err
}

func (b *sseBodyTap) Close() error {
	b.tee.Close()
	return b.ReadCloser.Close()
}
