package gateway

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/worker"
	"github.com/mcpcode/mcpcode/skills"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// workerArg makes the test binary a worker process, as `mcpcode __worker`.
const workerArg = "__worker"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == workerArg {
		err := worker.Serve(context.Background(), os.Stdin, os.Stdout, worker.ServeOptions{
			Skills: func(ws string) runtime.SkillPolicy { return skills.NewWorkspace(ws).Policy() },
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "worker:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func testWorkerCommand() *exec.Cmd { return exec.Command(os.Args[0], workerArg) }

// loadProgram is what each execute of the load runs: two small reads of
// the demo CRM, a filter, a short result.
const loadProgram = `import { query } from "servers/salesforce/query";
import { getRecord } from "servers/salesforce/getRecord";
const [rows, lead] = await Promise.all([query({ query: "SELECT Id, Name, Status FROM Lead LIMIT 20" }), getRecord({ objectType: "Lead", recordId: "00Q5f000001abcXYZ" })]);
export default { leads: rows.records.filter((r) => r.Status !== "Closed").length, lead: lead.Id };`

// loadResult is what a load run measured.
type loadResult struct {
	runs, errors int
	latencies    []time.Duration
	elapsed      time.Duration
	peakRSS      int64 // bytes, this process and its children, sampled
}

// runLoad serves a gateway (worker isolation) over HTTP and has clients
// call execute concurrently for d.
func runLoad(t testing.TB, clients int, d time.Duration) loadResult {
	a := &app.App{WorkerCommand: testWorkerCommand}
	defer a.Close()
	ws, _ := demoWorkspaceWith(t, a)
	// The run limit is a hang guard here: the test counts errors, not speed.
	g, err := New(ws, Options{Isolation: app.IsolationWorker, ConfirmWrites: ConfirmDeny, Limits: runtime.Limits{Timeout: 5 * time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	srv := httptest.NewServer(g.HTTPHandler(HTTPOptions{}))
	defer srv.Close()
	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	defer transport.CloseIdleConnections()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var res loadResult
	stopSampling := make(chan struct{})
	sampled := make(chan int64)
	go func() { sampled <- sampleTreeRSS(stopSampling) }()
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for i := 0; i < clients; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: transport}}
			s, err := mcp.NewClient(&mcp.Implementation{Name: "load", Version: "1"}, nil).Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			if err != nil {
				mu.Lock()
				res.errors++
				mu.Unlock()
				t.Errorf("connect: %v", err)
				return
			}
			defer s.Close()
			// Every client runs at least once, however loaded the machine:
			// the test counts errors, not speed.
			for first := true; first || time.Now().Before(deadline); first = false {
				began := time.Now()
				r, err := s.CallTool(ctx, &mcp.CallToolParams{Name: toolExecute, Arguments: map[string]any{"code": loadProgram}})
				took := time.Since(began)
				mu.Lock()
				res.runs++
				res.latencies = append(res.latencies, took)
				if err != nil || r.IsError {
					res.errors++
					if res.errors <= 3 {
						t.Errorf("execute: %v %s", err, textOfResult(r))
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	close(stopSampling)
	res.peakRSS = <-sampled
	sort.Slice(res.latencies, func(i, j int) bool { return res.latencies[i] < res.latencies[j] })
	return res
}

func textOfResult(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func (r loadResult) percentile(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	return r.latencies[min(len(r.latencies)-1, int(p*float64(len(r.latencies))))]
}

// TestLoadLeavesNothingBehind runs 50 concurrent executes over HTTP for a
// few seconds: no run may fail, and afterwards no worker process, child
// process or goroutine of ours may remain.
func TestLoadLeavesNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("load test: runs in make test, not with -short")
	}
	res := runLoad(t, 50, 3*time.Second)
	t.Logf("%d runs in %s (%.1f/s), p50 %s, p99 %s, %d errors", res.runs, res.elapsed.Round(time.Millisecond),
		float64(res.runs)/res.elapsed.Seconds(), res.percentile(0.5).Round(time.Millisecond), res.percentile(0.99).Round(time.Millisecond), res.errors)
	if res.errors != 0 || res.runs < 50 {
		t.Errorf("%d errors in %d runs", res.errors, res.runs)
	}
	var leftover []string
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		leftover = ourGoroutines()
		if len(leftover) == 0 && len(childProcesses()) == 0 {
			break
		}
	}
	if len(leftover) > 0 {
		t.Errorf("%d goroutines of mcpcode remain after the load, e.g.:\n%s", len(leftover), leftover[0])
	}
	if kids := childProcesses(); len(kids) > 0 {
		t.Errorf("child processes remain after the load: %v", kids)
	}
}

// BenchmarkServeLoad is the load figure of docs/BENCHMARKS.md: 50 clients
// calling execute over HTTP against the demo servers, in worker isolation,
// for MCPCODE_LOAD_SECONDS (default 60). It reports runs/s, p50, p99 and
// the peak RSS of this process and its worker processes.
func BenchmarkServeLoad(b *testing.B) {
	secs, _ := strconv.Atoi(os.Getenv("MCPCODE_LOAD_SECONDS"))
	if secs <= 0 {
		secs = 60
	}
	for b.Loop() {
		res := runLoad(b, 50, time.Duration(secs)*time.Second)
		b.ReportMetric(float64(res.runs)/res.elapsed.Seconds(), "runs/s")
		b.ReportMetric(float64(res.percentile(0.5).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(res.percentile(0.99).Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(res.peakRSS)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(res.errors), "errors")
	}
}

// ourGoroutines returns the stacks of live goroutines running mcpcode's or
// go-sdk's code, other than the caller's.
func ourGoroutines() []string {
	buf := make([]byte, 4<<20)
	buf = buf[:goruntime.Stack(buf, true)]
	var out []string
	for i, g := range strings.Split(string(buf), "\n\n") {
		if i == 0 {
			continue // this goroutine
		}
		if (strings.Contains(g, "mcpcode/mcpcode/") || strings.Contains(g, "modelcontextprotocol/go-sdk")) && !strings.Contains(g, "testing.tRunner") {
			out = append(out, g)
		}
	}
	return out
}

// childProcesses lists the pids whose parent is this process.
func childProcesses() []int {
	var kids []int
	entries, _ := os.ReadDir("/proc")
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, _, ok := procStat(pid); ok && ppid == self {
			kids = append(kids, pid)
		}
	}
	return kids
}

// procStat reads a process's parent pid and resident set size (bytes).
func procStat(pid int) (ppid int, rss int64, ok bool) {
	data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 22 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	pages, _ := strconv.ParseInt(f[21], 10, 64)
	return ppid, pages * int64(os.Getpagesize()), true
}

// sampleTreeRSS samples the RSS of this process and its children every
// 50 ms until stop, and returns the highest sum seen.
func sampleTreeRSS(stop <-chan struct{}) int64 {
	var peak int64
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		_, total, _ := procStat(os.Getpid())
		for _, k := range childProcesses() {
			_, rss, _ := procStat(k)
			total += rss
		}
		peak = max(peak, total)
		select {
		case <-stop:
			return peak
		case <-tick.C:
		}
	}
}
