package servers

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectEra connects to one of eraServer's roles over stdio and returns
// the listing, the error and the server's log.
func connectEra(t *testing.T, role string, env map[string]string) (*Listing, error, string) {
	t.Helper()
	dir := t.TempDir()
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, role, role, env)}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second, LogDir: dir})
	defer p.Close()
	l, err := p.Connect(context.Background(), role)
	p.Close()
	log, _ := os.ReadFile(filepath.Join(dir, role+".log"))
	return l, err, string(log)
}

// TestStdioServerConnectsAtTheNewestRevision: a server that speaks
// 2026-07-28 (go-sdk's) is spoken to in it, not in an older revision.
func TestStdioServerConnectsAtTheNewestRevision(t *testing.T) {
	t.Parallel()
	cfg := &Config{Path: "mcp.json", Servers: []ServerConfig{selfServer(t, "env", "env", nil)}}
	p := NewPool(cfg, PoolOptions{ConnectTimeout: 30 * time.Second})
	defer p.Close()
	l, err := p.Connect(context.Background(), "env")
	if err != nil {
		t.Fatal(err)
	}
	if l.ProtocolVersion != modernProtocolVersion || len(l.Tools) != 1 {
		t.Errorf("connected at %q with %d tools, want %s with 1", l.ProtocolVersion, len(l.Tools), modernProtocolVersion)
	}
	res, err := p.CallTool(context.Background(), "env", "environ", nil)
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
}

// TestSilentDiscoverFallsBackToInitialize: a legacy server that never
// answers server/discover (but answers ping, as legacy servers must) is
// connected with initialize, without waiting out a timeout; the log says
// why.
func TestSilentDiscoverFallsBackToInitialize(t *testing.T) {
	t.Parallel()
	l, err, log := connectEra(t, "silent-discover", nil)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log)
	}
	if l.ProtocolVersion != legacyProtocolVersion || len(l.Tools) != 1 {
		t.Errorf("connected at %q with %d tools", l.ProtocolVersion, len(l.Tools))
	}
	if !strings.Contains(log, "no answer to server/discover (it answered ping but not server/discover): connected with initialize") {
		t.Errorf("the log does not say why:\n%s", log)
	}
}

// TestServerExitingOnDiscoverIsReopenedWithInitialize: a legacy server
// that exits when its first request is not initialize is started again
// and opened with initialize.
func TestServerExitingOnDiscoverIsReopenedWithInitialize(t *testing.T) {
	t.Parallel()
	l, err, log := connectEra(t, "exit-on-discover", nil)
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log)
	}
	if l.ProtocolVersion != legacyProtocolVersion {
		t.Errorf("connected at %q", l.ProtocolVersion)
	}
	if !strings.Contains(log, "the server ended the connection on server/discover (the 2026-07-28 probe); connected again with initialize at 2025-11-25") {
		t.Errorf("the log does not say why:\n%s", log)
	}
}

// TestServerOfAnotherRevisionSaysWhichItSpeaks: a server that speaks only
// revisions mcpcode does not gets an error naming both sides' revisions,
// as the server stated them.
func TestServerOfAnotherRevisionSaysWhichItSpeaks(t *testing.T) {
	t.Parallel()
	_, err, _ := connectEra(t, "future", nil)
	want := `server "future": the server speaks MCP revision "2099-01-01", and mcpcode speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05: no revision in common`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error:\n got %v\nwant %s…", err, want)
	}
}

// TestRefusedInitializeSaysWhatTheServerAnswered: the error of a server
// that refuses to open the connection is its own answer, not a guess from
// how its process ended.
func TestRefusedInitializeSaysWhatTheServerAnswered(t *testing.T) {
	t.Parallel()
	_, err, _ := connectEra(t, "refuse-initialize", nil)
	want := `server "refuse-initialize": the server refused to open the connection: it answered error -32603 "the database is not reachable"`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n got %v\nwant %s", err, want)
	}
}

// TestLateModernServerIsReopened: the probe gives up on a 2026-07-28-only
// server that answers server/discover late (after ping); its answer to
// initialize names 2026-07-28, so it is connected again, patiently, at
// that revision.
func TestLateModernServerIsReopened(t *testing.T) {
	t.Parallel()
	state := filepath.Join(t.TempDir(), "state")
	l, err, log := connectEra(t, "late-modern", map[string]string{"MCPCODE_TEST_STATE": state})
	if err != nil {
		t.Fatalf("%v\nlog:\n%s", err, log)
	}
	if l.ProtocolVersion != modernProtocolVersion || len(l.Tools) != 1 {
		t.Errorf("connected at %q with %d tools", l.ProtocolVersion, len(l.Tools))
	}
	if _, err := os.Stat(state); err != nil {
		t.Errorf("the first process did not run: %v", err)
	}
	if !strings.Contains(log, "connected again at 2026-07-28") {
		t.Errorf("the log does not say why:\n%s", log)
	}
}

// fakeConn is a connection whose server is the test: it records what the
// client writes and reads what the test sends.
type fakeConn struct {
	written chan jsonrpc.Message
	toRead  chan jsonrpc.Message
}

func (c *fakeConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.toRead:
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (c *fakeConn) Write(_ context.Context, m jsonrpc.Message) error {
	c.written <- m
	return nil
}
func (c *fakeConn) Close() error      { return nil }
func (c *fakeConn) SessionID() string { return "" }

// TestProbeBackstop: a server that answers neither server/discover nor the
// probe's ping gets, after the backstop, an error answer made up by the
// probe (which go-sdk takes as a legacy server's); its late answer is not
// passed on.
func TestProbeBackstop(t *testing.T) {
	t.Parallel()
	conn := &fakeConn{written: make(chan jsonrpc.Message, 8), toRead: make(chan jsonrpc.Message, 8)}
	p := newEraProbe(conn)
	p.pingAfter, p.backstop = time.Millisecond, 20*time.Millisecond
	defer p.Close()
	id, _ := jsonrpc.MakeID(float64(1))
	ctx := context.Background()
	if err := p.Write(ctx, &jsonrpc.Request{ID: id, Method: "server/discover", Params: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	msg, err := p.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	resp, ok := msg.(*jsonrpc.Response)
	var rpc *jsonrpc.Error
	if !ok || resp.ID != id || !errors.As(resp.Error, &rpc) || rpc.Code == mcp.CodeUnsupportedProtocolVersion {
		t.Fatalf("read %#v, want a non-modern error answer to the discover", msg)
	}
	if got := p.result().GaveUp; !strings.Contains(got, "answered neither server/discover nor ping") {
		t.Errorf("GaveUp = %q", got)
	}
	if m := <-conn.written; m.(*jsonrpc.Request).Method != "server/discover" {
		t.Errorf("first written: %#v", m)
	}
	if m := <-conn.written; m.(*jsonrpc.Request).Method != "ping" {
		t.Errorf("then: %#v, want the probe's ping", m)
	}
	// The late answers (the discover's, the ping's) are dropped; what
	// follows passes.
	pingID, _ := jsonrpc.MakeID(probePingID)
	next, _ := jsonrpc.MakeID(float64(2))
	conn.toRead <- &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"supportedVersions":["2025-11-25"]}`)}
	conn.toRead <- &jsonrpc.Response{ID: pingID, Result: json.RawMessage(`{}`)}
	conn.toRead <- &jsonrpc.Response{ID: next, Result: json.RawMessage(`{}`)}
	msg, err = p.Read(ctx)
	if err != nil || msg.(*jsonrpc.Response).ID != next {
		t.Errorf("read %#v %v, want the answer to request 2", msg, err)
	}
}
