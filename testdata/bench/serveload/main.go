// Command serveload measures `mcpcode serve` running agent programs: the CPU
// an `execute` costs (user + system time of serve and every worker process
// it started, per execute) and the throughput of streamable HTTP under
// concurrent clients. The figures of docs/BENCHMARKS.md, "serve".
//
//	go run ./testdata/bench/serveload cpu  [-n 200] [-gap 0] [-isolation worker]
//	go run ./testdata/bench/serveload http [-clients 50] [-seconds 30]
//
// cpu starts `mcpcode serve` over stdio, connects one go-sdk client, calls
// execute -n times one after the other (-gap apart), disconnects and waits
// for serve to exit; the CPU is serve's rusage at its exit, which counts
// the workers it waited for (every worker it started: serve waits for them
// before it exits). The same is measured for a serve that gets no execute,
// and the report gives both the CPU per execute of the whole and its
// margin over that idle serve.
//
// http starts `mcpcode serve --http 127.0.0.1:0` and -clients go-sdk
// clients (one streamable HTTP session each) that call execute back to
// back for -seconds; it reports runs/s, the latencies' p50 and p99, the
// errors (a failed call or a result with isError), and the CPU per run.
//
// The program executed is tiny (-program changes it): what is measured is
// what a run costs beyond the program. Each execute passes "check": false
// (the type check is measured in "check"). It builds mcpcode from this
// checkout; -mcpcode PATH uses a binary.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const defaultProgram = `const rows = [1, 2, 3].map((id) => ({ id, ok: id % 2 === 1 }));
console.log("rows", rows.length);
export default rows.filter((r) => r.ok).map((r) => r.id);`

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "cpu" && os.Args[1] != "http") {
		fmt.Fprintln(os.Stderr, "usage: serveload cpu|http [flags] (-h for the flags)")
		os.Exit(2)
	}
	mode := os.Args[1]
	fs := flag.NewFlagSet(mode, flag.ExitOnError)
	mc := fs.String("mcpcode", "", "mcpcode binary (default: build this checkout)")
	n := fs.Int("n", 200, "cpu: executes to make")
	gap := fs.Duration("gap", 0, "cpu: time between executes")
	isolation := fs.String("isolation", "worker", "serve's --isolation")
	clients := fs.Int("clients", 50, "http: concurrent clients")
	seconds := fs.Int("seconds", 30, "http: how long the clients call")
	program := fs.String("program", defaultProgram, "the program each execute runs")
	_ = fs.Parse(os.Args[2:])

	if *mc == "" {
		dir, err := os.MkdirTemp("", "serveload-bin-")
		check(err, "temp dir")
		defer os.RemoveAll(dir)
		*mc = filepath.Join(dir, "mcpcode")
		build := exec.Command("go", "build", "-trimpath", "-o", *mc, "./cmd/mcpcode")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		check(build.Run(), "building mcpcode")
	}
	ws, err := os.MkdirTemp("", "serveload-ws-")
	check(err, "temp dir")
	defer os.RemoveAll(ws)
	check(os.WriteFile(filepath.Join(ws, "mcp.json"), []byte(`{"mcpServers": {}}`+"\n"), 0o644), "mcp.json")

	fmt.Printf("load average before: %s\n", loadavg())
	switch mode {
	case "cpu":
		idle := measureStdio(*mc, ws, *isolation, *program, 0, 0)
		busy := measureStdio(*mc, ws, *isolation, *program, *n, *gap)
		fmt.Printf("isolation %s, %d executes %v apart: %.1f ms CPU per execute (%.0f ms in all); a serve with no execute: %.0f ms; margin per execute: %.1f ms; wall per execute %.1f ms\n",
			*isolation, *n, *gap, ms(busy.cpu)/float64(*n), ms(busy.cpu), ms(idle.cpu),
			(ms(busy.cpu)-ms(idle.cpu))/float64(*n), ms(busy.calls)/float64(*n))
	case "http":
		measureHTTP(*mc, ws, *isolation, *program, *clients, time.Duration(*seconds)*time.Second)
	}
	fmt.Printf("load average after: %s\n", loadavg())
}

type stdioRun struct {
	cpu   time.Duration // serve and its workers
	calls time.Duration // wall time of the executes
}

// measureStdio serves ws over stdio, makes n executes and returns the CPU
// of the whole serve process tree.
func measureStdio(mc, ws, isolation, program string, n int, gap time.Duration) stdioRun {
	cmd := exec.Command(mc, "serve", "--dir", ws, "--isolation", isolation)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "serveload", Version: "1"}, nil)
	ctx := context.Background()
	sess, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	check(err, "connecting to serve")
	var calls time.Duration
	for i := range n {
		if i > 0 && gap > 0 {
			time.Sleep(gap)
		}
		t := time.Now()
		if err := execute(ctx, sess, program); err != nil {
			check(err, "execute")
		}
		calls += time.Since(t)
	}
	check(sess.Close(), "closing the session")
	if cmd.ProcessState == nil {
		check(cmd.Wait(), "waiting for serve")
	}
	return stdioRun{cpu: cpuOf(cmd.ProcessState), calls: calls}
}

// execute calls execute once; a result with isError is an error.
func execute(ctx context.Context, sess *mcp.ClientSession, program string) error {
	res, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "execute", Arguments: map[string]any{"code": program, "check": false}})
	if err != nil {
		return err
	}
	if res.IsError {
		var b strings.Builder
		for _, c := range res.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				b.WriteString(t.Text)
			}
		}
		return fmt.Errorf("execute failed: %s", b.String())
	}
	return nil
}

// measureHTTP serves ws over HTTP and has clients call execute for d.
func measureHTTP(mc, ws, isolation, program string, clients int, d time.Duration) {
	cmd := exec.Command(mc, "serve", "--dir", ws, "--isolation", isolation, "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	check(err, "stderr pipe")
	check(cmd.Start(), "starting serve")
	sc := bufio.NewScanner(stderr)
	var url string
	for sc.Scan() {
		line := sc.Text()
		if _, rest, ok := strings.Cut(line, "streamable HTTP on "); ok {
			url, _, _ = strings.Cut(rest, " ")
			break
		}
		fmt.Fprintln(os.Stderr, line)
	}
	if url == "" {
		check(fmt.Errorf("serve said no address"), "starting serve")
	}
	go func() {
		for sc.Scan() {
			fmt.Fprintln(os.Stderr, sc.Text())
		}
	}()

	transport := &http.Transport{MaxIdleConnsPerHost: clients}
	ctx := context.Background()
	sessions := make([]*mcp.ClientSession, clients)
	for i := range sessions {
		c := mcp.NewClient(&mcp.Implementation{Name: "serveload", Version: "1"}, nil)
		s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: transport}}, nil)
		check(err, "connecting a client")
		sessions[i] = s
	}
	var mu sync.Mutex
	var lat []time.Duration
	var errs int
	var firstErr error
	start := time.Now()
	stop := start.Add(d)
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(stop) {
				t := time.Now()
				err := execute(ctx, s, program)
				el := time.Since(t)
				mu.Lock()
				if err != nil {
					errs++
					if firstErr == nil {
						firstErr = err
					}
				} else {
					lat = append(lat, el)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, s := range sessions {
		_ = s.Close()
	}
	transport.CloseIdleConnections()
	_ = cmd.Process.Signal(syscall.SIGINT)
	check(cmd.Wait(), "waiting for serve")
	slices.Sort(lat)
	runs := len(lat)
	fmt.Printf("isolation %s, %d clients for %v: %d runs, %.1f runs/s, p50 %v, p99 %v, %d errors, %.1f ms CPU per run (serve and its workers)\n",
		isolation, clients, elapsed.Round(time.Millisecond), runs, float64(runs)/elapsed.Seconds(),
		pct(lat, 0.50), pct(lat, 0.99), errs, ms(cpuOf(cmd.ProcessState))/float64(max(runs+errs, 1)))
	if firstErr != nil {
		fmt.Printf("first error: %v\n", firstErr)
	}
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(p*float64(len(sorted))))].Round(100 * time.Microsecond)
}

// cpuOf is the user + system time of an exited process and of the
// descendants it waited for.
func cpuOf(ps *os.ProcessState) time.Duration {
	if ps == nil {
		return 0
	}
	return ps.UserTime() + ps.SystemTime()
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func check(err error, what string) {
	if err != nil {
		fmt.Fprintf(os.Stderr, "serveload: %s: %v\n", what, err)
		os.Exit(1)
	}
}
