// Command programs times JavaScript kernels inside whole programs, paired
// with Node in one run: each round runs every kernel once as a program of
// `mcpcode run` (one process per run, the default limits and isolation)
// and once with `node`, in a shuffled order, and the kernel's own time is
// what the program measures around it (not the process start). It prints,
// per kernel, the medians, the median of the per-round ratios, and how many
// mcpcode runs failed (a run stopped by its memory limit counts there).
// The figures of docs/BENCHMARKS.md, "JavaScript speed inside a program".
//
//	go run ./testdata/bench/programs [-n 20] [-node PATH] [-only REGEXP]
//
// It builds mcpcode from this checkout; -mcpcode PATH uses a binary. Node
// defaults to the pinned node@22 of testdata/npm (make npm).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A kernel is a program body: setup (not timed), then the timed part,
// which leaves in `check` a value both runtimes must agree on.
type kernel struct {
	name, setup, timed string
}

// piece is 10 characters, so N pieces build N × 10 bytes.
const piece = `const piece = (i) => "item" + String(i % 100000).padStart(5, "0") + ",";`

func concat(n int) kernel {
	return kernel{
		name:  fmt.Sprintf("s += piece, %d pieces (%s)", n, size(n*10)),
		setup: piece,
		timed: fmt.Sprintf(`let s = ""; for (let i = 0; i < %d; i++) s += piece(i); check = s.length + ":" + s.slice(-10);`, n),
	}
}

func size(n int) string {
	if n >= 1000000 {
		return fmt.Sprintf("%g MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%g kB", float64(n)/1e3)
}

var kernels = []kernel{
	concat(12500), concat(25000), concat(50000), concat(100000),
	{
		name:  "the 100,000 pieces alone, not concatenated",
		setup: piece,
		timed: `let n = 0; for (let i = 0; i < 100000; i++) n += piece(i).length; check = n;`,
	},
	{
		name:  "the same 1 MB with join",
		setup: piece,
		timed: `const parts = []; for (let i = 0; i < 100000; i++) parts.push(piece(i)); const s = parts.join(""); check = s.length;`,
	},
	{
		name:  "the same 1 MB with a template literal",
		setup: piece,
		timed: "let s = \"\"; for (let i = 0; i < 100000; i++) s = `${s}${piece(i)}`; check = s.length;",
	},
	{
		name: "JSON.parse of 5 MB (25,000 rows)",
		setup: `const rows = []; for (let i = 0; i < 25000; i++) rows.push({ id: "ORD-" + i, customer: "Customer " + (i % 977), email: "c" + i + "@example.com", status: i % 3 ? "paid" : "pending", amount: Math.round(i * 137.31) / 100, items: [{ sku: "SKU-" + (i % 50), qty: 1 + (i % 4) }], note: "order " + i + " of the week" });
const text = JSON.stringify(rows);`,
		timed: `const v = JSON.parse(text); check = v.length + ":" + text.length;`,
	},
	{
		name:  "JSON.stringify of the same rows",
		setup: `const rows = []; for (let i = 0; i < 25000; i++) rows.push({ id: "ORD-" + i, customer: "Customer " + (i % 977), email: "c" + i + "@example.com", status: i % 3 ? "paid" : "pending", amount: Math.round(i * 137.31) / 100, items: [{ sku: "SKU-" + (i % 50), qty: 1 + (i % 4) }], note: "order " + i + " of the week" });`,
		timed: `const t = JSON.stringify(rows); check = t.length;`,
	},
	{
		name:  "sort of 200,000 numbers with a comparator",
		setup: `const a = []; let x = 7; for (let i = 0; i < 200000; i++) { x = (x * 1103515245 + 12345) % 2147483648; a.push(x); }`,
		timed: `a.sort((p, q) => p - q); check = a[0] + ":" + a[199999];`,
	},
	{
		name:  "sort of 50,000 rows by a string key",
		setup: `const a = []; let x = 7; for (let i = 0; i < 50000; i++) { x = (x * 1103515245 + 12345) % 2147483648; a.push({ name: "n" + x, i }); }`,
		timed: `a.sort((p, q) => p.name < q.name ? -1 : p.name > q.name ? 1 : 0); check = a[0].name;`,
	},
	{
		name:  "regex over 1 MB of log lines (match, test, replace)",
		setup: `const lines = []; for (let i = 0; i < 20000; i++) lines.push((i % 7 ? "INFO" : "ERROR") + " 2026-12-01T10:" + String(i % 60).padStart(2, "0") + " request " + i + " took " + (i % 900) + "ms user=u" + (i % 313)); const text = lines.join("\n");`,
		timed: `const m = text.match(/ERROR [^\n]* took (\d+)ms/g); let slow = 0; for (const l of lines) if (/took [89]\d\dms/.test(l)) slow++; const r = text.replace(/user=u\d+/g, "user=?"); check = m.length + ":" + slow + ":" + r.length;`,
	},
	{
		name:  "Map of 100,000 string keys (set, then get each)",
		setup: `const keys = []; for (let i = 0; i < 100000; i++) keys.push("key-" + i);`,
		timed: `const m = new Map(); for (let i = 0; i < keys.length; i++) m.set(keys[i], i); let sum = 0; for (const k of keys) sum += m.get(k); check = m.size + ":" + sum;`,
	},
}

// program is the same text for both runtimes: plain JavaScript that is
// also TypeScript. It prints one line of JSON: the kernel's time and check.
func program(k kernel) string {
	return `const now = typeof performance !== "undefined" ? () => performance.now() : () => Date.now();
let check;
` + k.setup + `
const t0 = now();
` + k.timed + `
const ms = now() - t0;
console.log(JSON.stringify({ ms, check }));
`
}

type outcome struct {
	MS    float64 `json:"ms"`
	Check any     `json:"check"`
}

func main() {
	n := flag.Int("n", 20, "rounds")
	mc := flag.String("mcpcode", "", "mcpcode binary (default: build this checkout)")
	node := flag.String("node", "testdata/npm/node_modules/node/bin/node", "node binary")
	only := flag.String("only", "", "run only the kernels whose name matches")
	flag.Parse()
	re, err := regexp.Compile(*only)
	if err != nil {
		fail("-only: %v", err)
	}
	if *node, err = filepath.Abs(*node); err != nil {
		fail("%v", err)
	}
	dir, err := os.MkdirTemp("", "mcpcode-programs-")
	if err != nil {
		fail("%v", err)
	}
	defer os.RemoveAll(dir)
	if *mc == "" {
		*mc = filepath.Join(dir, "mcpcode")
		build := exec.Command("go", "build", "-trimpath", "-o", *mc, "./cmd/mcpcode")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fail("building mcpcode: %v", err)
		}
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		fail("%v", err)
	}
	if err := os.WriteFile(filepath.Join(ws, "mcp.json"), []byte(`{"mcpServers":{}}`), 0o644); err != nil {
		fail("%v", err)
	}
	load0 := loadavg()
	fmt.Printf("%d rounds, %s, node %s\n", *n, time.Now().Format("2006-01-02 15:04"), version(*node))
	fmt.Printf("%-52s %12s %12s %10s %8s\n", "kernel", "mcpcode", "node", "ratio", "failed")
	var times []float64 // mcpcode medians of the concatenation series
	for i, k := range kernels {
		if !re.MatchString(k.name) {
			continue
		}
		base := filepath.Join(ws, fmt.Sprintf("k%d", i))
		src := program(k)
		for _, ext := range []string{".ts", ".mjs"} {
			if err := os.WriteFile(base+ext, []byte(src), 0o644); err != nil {
				fail("%v", err)
			}
		}
		runs := []struct {
			name string
			argv []string
		}{
			{"mcpcode", []string{*mc, "run", base + ".ts"}},
			{"node", []string{*node, base + ".mjs"}},
		}
		var got [2][]float64
		var ratios []float64
		failed := 0
		var firstErr string
		for r := 0; r < *n; r++ {
			order := []int{0, 1}
			rand.Shuffle(2, func(a, b int) { order[a], order[b] = order[b], order[a] })
			var round [2]*outcome
			for _, j := range order {
				o, err := runOnce(ws, runs[j].argv)
				if err != nil {
					if j == 1 {
						fail("%s: node: %v", k.name, err)
					}
					failed++
					if firstErr == "" {
						firstErr = err.Error()
					}
					continue
				}
				round[j] = o
			}
			if round[0] != nil && round[1] != nil {
				if fmt.Sprint(round[0].Check) != fmt.Sprint(round[1].Check) {
					fail("%s: mcpcode computed %v, node %v", k.name, round[0].Check, round[1].Check)
				}
				got[0] = append(got[0], round[0].MS)
				got[1] = append(got[1], round[1].MS)
				ratios = append(ratios, round[0].MS/max(round[1].MS, 0.01))
			}
		}
		if len(ratios) == 0 {
			fmt.Printf("%-52s every mcpcode run failed: %s\n", k.name, firstErr)
			continue
		}
		fmt.Printf("%-52s %9.1f ms %9.2f ms %9.1f× %5d/%d\n", k.name, median(got[0]), median(got[1]), median(ratios), failed, *n)
		if firstErr != "" {
			fmt.Printf("   first failure: %s\n", firstErr)
		}
		if strings.HasPrefix(k.name, "s += piece") {
			times = append(times, median(got[0]))
		}
	}
	if len(times) == 4 {
		fmt.Printf("concatenation series, time per piece relative to 12.5k: %.2f %.2f %.2f %.2f (1 = linear; quadratic doubles each step)\n",
			1.0, times[1]/times[0]/2, times[2]/times[0]/4, times[3]/times[0]/8)
	}
	fmt.Printf("load average %s before, %s after\n", load0, loadavg())
}

// runOnce runs a program and reads the line of JSON it printed.
func runOnce(dir string, argv []string) (*outcome, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%v: %s%s", err, strings.TrimSpace(out.String()), strings.TrimSpace(errOut.String()))
	}
	for _, line := range strings.Split(out.String(), "\n") {
		var o outcome
		if json.Unmarshal([]byte(line), &o) == nil && o.Check != nil {
			return &o, nil
		}
	}
	return nil, fmt.Errorf("no result in %q", out.String())
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func version(node string) string {
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		fail("node: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "programs: "+format+"\n", args...)
	os.Exit(1)
}
