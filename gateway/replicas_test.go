package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sentCalls counts the tool calls that reached the shared demo servers, by
// server, tool and arguments.
type sentCalls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *sentCalls) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]int{}
	for k, v := range c.n {
		out[k] = v
	}
	return out
}

func (c *sentCalls) total() int {
	n := 0
	for _, v := range c.snapshot() {
		n += v
	}
	return n
}

// sharedDemoWorkspace is a workspace over demo servers that every pool
// shares (one salesforce with one record store, whoever connects), as
// replicas share HTTP upstream servers; a middleware counts every call.
func sharedDemoWorkspace(t *testing.T) (*app.Workspace, *sentCalls) {
	t.Helper()
	calls := &sentCalls{n: map[string]int{}}
	var mu sync.Mutex
	shared := map[string]*mcp.Server{}
	dial := func(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
		mu.Lock()
		srv := shared[cfg.Name]
		if srv == nil {
			var err error
			if srv, err = demo.New(cfg.Name); err != nil {
				mu.Unlock()
				return nil, err
			}
			srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok && method == "tools/call" {
						calls.mu.Lock()
						calls.n[cfg.Name+"."+p.Name+" "+string(canonicalArgs(p.Arguments))]++
						calls.mu.Unlock()
					}
					return next(ctx, method, req)
				}
			})
			shared[cfg.Name] = srv
		}
		mu.Unlock()
		ct, st := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(context.WithoutCancel(ctx), st, nil); err != nil {
			return nil, err
		}
		return ct, nil
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mcp.json"), app.DemoConfig("unused"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := (&app.App{Dial: dial}).Open(app.OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	pool := ws.Pool(app.PoolOptions{})
	defer pool.Close()
	if rep, err := ws.Generate(context.Background(), pool, app.GenOptions{}); err != nil || rep.Failed() {
		t.Fatalf("gen: %v %+v", err, rep)
	}
	return ws, calls
}

// replicaProxy sends each tools/call to the next replica in turn (other
// requests to the first), and records which replica got each call and
// whether it carried a requestState.
type replicaProxy struct {
	replicas []http.Handler
	mu       sync.Mutex
	next     int
	log      []string // "replica N: NAME" or "replica N: NAME (retry)"
}

func (p *replicaProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Name         string `json:"name"`
			RequestState string `json:"requestState"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &msg)
	i := 0
	if msg.Method == "tools/call" {
		p.mu.Lock()
		i = p.next
		p.next = (p.next + 1) % len(p.replicas)
		entry := fmt.Sprintf("replica %d: %s", i, msg.Params.Name)
		if msg.Params.RequestState != "" {
			entry += " (retry)"
		}
		p.log = append(p.log, entry)
		p.mu.Unlock()
	}
	p.replicas[i].ServeHTTP(w, r)
}

func (p *replicaProxy) calls() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.log...)
}

// twoWritesProgram reads, writes, reads, writes and reads: three rounds
// for a host that confirms both writes.
const twoWritesProgram = `import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
const id = "00Q5f000001abcXYZ";
const before: any = await query({ query: "SELECT Id, Status FROM Lead WHERE Id = '" + id + "'" });
console.log("before", before.records[0].Status);
await updateRecord({ objectType: "Lead", recordId: id, data: { Status: "Qualified" } });
const mid: any = await query({ query: "SELECT Id, Name, Status FROM Lead WHERE Id = '" + id + "'" });
console.log("mid", mid.records[0].Status);
await updateRecord({ objectType: "Lead", recordId: id, data: { Description: "confirmed on any replica" } });
const after: any = await query({ query: "SELECT Id, Status, Description FROM Lead WHERE Id = '" + id + "'" });
export default after.records[0];`

// TestRoundsResumeOnAnotherReplica: two stateless replicas of one
// workspace behind a proxy that sends each tools/call to the other one. A
// modern host's execute with two writes takes three rounds; every retry
// lands on the replica that does not hold the run, which resumes it from
// the journal: the run completes, both writes are made, and the upstream
// server sees every call exactly once.
func TestRoundsResumeOnAnotherReplica(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	proxy := &replicaProxy{}
	for range 2 {
		g := newTestGateway(t, ws, Options{})
		proxy.replicas = append(proxy.replicas, g.HTTPHandler(HTTPOptions{Stateless: true}))
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	a := &answering{answer: result("accept", map[string]any{})}
	ctx := context.Background()
	s, err := mcp.NewClient(&mcp.Implementation{Name: "lb-host", Version: "1"}, a.options()).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	res, text := call(t, s, "execute", map[string]any{"code": twoWritesProgram})
	if res.IsError || !strings.Contains(text, "before Working - Contacted") || !strings.Contains(text, "mid Qualified") ||
		!strings.Contains(text, `"Description": "confirmed on any replica"`) || !strings.Contains(text, `"Status": "Qualified"`) {
		t.Fatalf("the run did not complete across the replicas: %s\n%q\n%v", text, proxy.calls(), calls.snapshot())
	}
	wantLog := []string{"replica 0: execute", "replica 1: execute (retry)", "replica 0: execute (retry)"}
	if got := proxy.calls(); strings.Join(got, "\n") != strings.Join(wantLog, "\n") {
		t.Errorf("the calls went %q, want %q", got, wantLog)
	}
	if n := len(a.asked()); n != 2 {
		t.Errorf("the host was asked %d times, want 2", n)
	}
	got := calls.snapshot()
	var keys []string
	for k, n := range got {
		keys = append(keys, k)
		if n != 1 {
			t.Errorf("%s reached the server %d times, want once", k, n)
		}
	}
	sort.Strings(keys)
	if len(keys) != 5 {
		t.Errorf("the server saw %d different calls, want 5: %q", len(keys), keys)
	}
	runs, _ := os.ReadDir(filepath.Join(ws.State(), serveStateDir, runsName))
	for _, e := range runs {
		if strings.HasSuffix(e.Name(), ".journal") {
			t.Errorf("the finished run's journal %s was left behind", e.Name())
		}
	}
}

// TestResumeThatDivergesSendsNothing: a program whose first request depends
// on the clock makes another request when another replica runs it again
// from the journal: that request is not sent, the confirmed write is not
// sent either, and the program gets an error that says why.
func TestResumeThatDivergesSendsNothing(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	proxy := &replicaProxy{}
	for range 2 {
		g := newTestGateway(t, ws, Options{})
		g.holdGrace = 200 * time.Millisecond
		proxy.replicas = append(proxy.replicas, g.HTTPHandler(HTTPOptions{Stateless: true}))
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	a := &answering{answer: result("accept", map[string]any{})}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "lb-host", Version: "1"}, a.options()).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	code := `import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
await query({ query: "SELECT Id FROM Lead WHERE Name = 'at " + Date.now() + "-" + Math.random() + "'" });
await updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Qualified" } });`
	res, text := call(t, s, "execute", map[string]any{"code": code})
	if !res.IsError || !strings.Contains(text, "cannot be resumed on another replica") || !strings.Contains(text, "nothing was sent") {
		t.Errorf("the diverging run: %s", text)
	}
	got := calls.snapshot()
	if calls.total() != 1 {
		t.Errorf("the server saw %v, want only the first run's query", got)
	}
	for k := range got {
		if !strings.HasPrefix(k, "salesforce.query ") {
			t.Errorf("%s was sent", k)
		}
	}
}

// TestRoundsPauseNewRequests: while a round waits for the person, the run
// sends nothing new (a request the program makes meanwhile waits), so the
// journal holds everything the run sent; the replica that resumes the run
// sends that request, once.
func TestRoundsPauseNewRequests(t *testing.T) {
	t.Parallel()
	ws, calls := sharedDemoWorkspace(t)
	proxy := &replicaProxy{}
	for range 2 {
		proxy.replicas = append(proxy.replicas, newTestGateway(t, ws, Options{}).HTTPHandler(HTTPOptions{Stateless: true}))
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	a := &answering{answer: result("accept", map[string]any{})}
	s, err := mcp.NewClient(&mcp.Implementation{Name: "lb-host", Version: "1"}, a.options()).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	code := `import { query } from "servers/salesforce/query";
import { updateRecord } from "servers/salesforce/updateRecord";
const later = async () => {
  await new Promise((resolve) => setTimeout(resolve, 100));
  return query({ query: "SELECT Id, Status FROM Lead WHERE Id = '00Q5f000001abcXYZ'" });
};
const [, r]: any = await Promise.all([updateRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ", data: { Status: "Qualified" } }), later()]);
export default r.records[0].Status;`
	res, text := call(t, s, "execute", map[string]any{"code": code})
	if res.IsError || !strings.Contains(text, "Qualified") {
		t.Fatalf("the run: %s", text)
	}
	for k, n := range calls.snapshot() {
		if n != 1 {
			t.Errorf("%s reached the server %d times, want once", k, n)
		}
	}
	if calls.total() != 2 {
		t.Errorf("the server saw %v, want the update and the query", calls.snapshot())
	}
}
