package servers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// tableResult is a tools/call result like the demo's getSheet: n rows of
// twelve columns, as structured content and as its text copy.
func tableResult(n int) []byte {
	var rows bytes.Buffer
	rows.WriteString(`{"columns":["orderId","name","email","Status","amount"],"rows":[`)
	for i := range n {
		if i > 0 {
			rows.WriteByte(',')
		}
		status := [4]string{"pending", "shipped", "delivered", "cancelled"}[i%4]
		fmt.Fprintf(&rows, `{"orderId":"ORD-%06d","orderDate":"2025-%02d-%02d","name":"Customer %d","email":"customer%d@example.com","phone":"(415) 555-%04d","product":"Data Connector","quantity":%d,"amount":%d.%d,"Status":%q,"region":"EMEA","salesforceId":"00Q5f%012d","notes":"ordered on the web"}`,
			100000+i, 1+i%12, 1+i%28, i, i, i%10000, 1+i%20, 100+i%9000, i%10, status, i)
	}
	rows.WriteString(`]}`)
	text, _ := json.Marshal(rows.String())
	return []byte(`{"content":[{"type":"text","text":` + string(text) + `}],"structuredContent":` + rows.String() + `}`)
}

// replayServer is a stdio MCP server (role "replay") whose answers are
// precomputed: one tool, getSheet, whose every call returns tableResult of
// MCPCODE_TEST_ROWS rows, written as prepared bytes with the request's id
// spliced in. It measures the client's side of a large result.
func replayServer() int {
	n := 10000
	fmt.Sscan(os.Getenv("MCPCODE_TEST_ROWS"), &n)
	answers := map[string][]byte{
		"initialize": []byte(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"replay","version":"1"}}`),
		"tools/list": []byte(`{"tools":[{"name":"getSheet","inputSchema":{"type":"object","properties":{"sheetId":{"type":"string"}},"required":["sheetId"]},"outputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}]}`),
		"tools/call": tableResult(n),
		"ping":       []byte(`{}`),
	}
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) == nil && req.ID != nil {
			if a, ok := answers[req.Method]; ok {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":`, req.ID)
				w.Write(a)
				w.WriteString("}\n")
			} else {
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"no %s"}}`+"\n", req.ID, req.Method)
			}
			if w.Flush() != nil {
				return 1
			}
		}
		if err != nil {
			return 0
		}
	}
}

// TestLargeResultOverStdio: a 10,000-row result from a stdio server
// reaches the caller as the server sent it (the wire tap's path), and the
// next call on the same session still works.
func TestLargeResultOverStdio(t *testing.T) {
	t.Parallel()
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "rows", "replay", map[string]string{"MCPCODE_TEST_ROWS": "10000"})}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 20 * time.Second, LogDir: t.TempDir()})
	defer p.Close()
	want := tableResult(10000)
	var wantRes struct {
		Content, StructuredContent json.RawMessage
	}
	if err := json.Unmarshal(want, &wantRes); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		res, err := p.CallTool(t.Context(), "rows", "getSheet", json.RawMessage(`{"sheetId":"abc123"}`))
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError || string(res.StructuredContent) != string(wantRes.StructuredContent) || string(res.Content) != string(wantRes.Content) {
			t.Fatalf("result differs from what the server sent (%d/%d bytes of structured content)", len(res.StructuredContent), len(wantRes.StructuredContent))
		}
	}
}

// BenchmarkCall10kRowsStdio is the parent's side of the article's flow: one
// getSheet call of 10,000 rows (5.5 MB) on a stdio server whose answer
// costs it nothing (replayServer), read off the pipe into the
// mcptool.Result the worker is sent.
func BenchmarkCall10kRowsStdio(b *testing.B) {
	e := map[string]string{"MCPCODE_TEST_SERVER": "replay", "MCPCODE_TEST_ROWS": "10000"}
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{{Name: "rows", Transport: TransportStdio, Command: os.Args[0], Env: e}}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 20 * time.Second, LogDir: b.TempDir()})
	defer p.Close()
	args := json.RawMessage(`{"sheetId":"abc123"}`)
	res, err := p.CallTool(context.Background(), "rows", "getSheet", args) // connect outside the loop
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(res.Content) + len(res.StructuredContent)))
	b.ReportAllocs()
	for b.Loop() {
		if res, err := p.CallTool(context.Background(), "rows", "getSheet", args); err != nil || !strings.HasPrefix(string(res.StructuredContent), `{"columns"`) {
			b.Fatal(err)
		}
	}
}
