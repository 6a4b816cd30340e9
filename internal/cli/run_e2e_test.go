package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
)

// slowTimeout is the run limit of end-to-end runs that move the demo's
// 10,000-row sheet: a hang guard, since the test binary (and so each demo
// server it starts) carries the race detector, which makes encoding the
// sheet many times slower, more so on a loaded machine.
const slowTimeout = "2m"

func runJSON(t *testing.T, ws string, args ...string) (*runtime.Result, runResult) {
	t.Helper()
	res := runBinary(t, ws, 3*time.Minute, append([]string{"run", "--json", "--timeout", slowTimeout}, args...)...)
	var r runtime.Result
	if err := json.Unmarshal([]byte(res.stdout), &r); err != nil {
		t.Fatalf("run --json %v: %v\nstdout:\n%s\nstderr:\n%s", args, err, res.stdout, res.stderr)
	}
	return &r, res
}

// TestRunErrorsAndLimits checks what a failing program shows, from the
// real binary.
func TestRunErrorsAndLimits(t *testing.T) {
	e2e(t)
	t.Parallel()
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "boom.ts"), "const n: number = 2;\nfunction f(): never {\n  throw new Error(\"boom \" + n);\n}\nf();\n")
	writeFile(t, filepath.Join(ws, "fs.ts"), "import { readFileSync } from \"fs\";\nconsole.log(readFileSync(\"/etc/passwd\", \"utf8\"));\n")
	writeFile(t, filepath.Join(ws, "oom.ts"), "console.log(\"x\".repeat(2 ** 40).length);\n")
	writeFile(t, filepath.Join(ws, "flood.ts"), "for (let i = 0; i < 100000; i++) console.log(\"line \" + i + \" \" + \"y\".repeat(100));\n")
	writeFile(t, filepath.Join(ws, "ok.ts"), "export default { fine: true };\n")
	tests := []struct {
		file   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"boom.ts", nil, 1, "", "runtime error: Error: boom 2\n    at f (boom.ts:3:9)\n    at boom.ts:5:1\n"},
		{"fs.ts", nil, 1, "", "bundle error: fs.ts:1:30: import \"fs\" is not allowed"},
		{"oom.ts", []string{"--memory", "64MiB"}, 1, "", "limit error: memory limit of 64 MiB exceeded (--memory)"},
		{"flood.ts", []string{"--max-output", "1000"}, 0, "characters omitted", ""},
		{"ok.ts", nil, 0, "{\n  \"fine\": true\n}\n", ""},
	}
	for _, tt := range tests {
		res := runBinary(t, ws, 3*time.Minute, append(append([]string{"run"}, tt.args...), tt.file)...)
		if res.code != tt.code || !strings.Contains(res.stdout, tt.stdout) || !strings.HasPrefix(res.stderr, tt.stderr) {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s\nwant exit %d, stdout containing %q, stderr starting %q", tt.file, res.code, res.stdout, res.stderr, tt.code, tt.stdout, tt.stderr)
		}
		if tt.file == "flood.ts" && len(res.stdout) > 1500 {
			t.Errorf("flood: %d bytes printed with --max-output 1000", len(res.stdout))
		}
	}
	// Usage errors exit 2.
	for _, args := range [][]string{{"run"}, {"run", "--isolation", "vm", "ok.ts"}, {"run", "--input", "{bad", "ok.ts"}, {"run", "--max-tool-calls", "0", "ok.ts"}} {
		if res := runBinary(t, ws, time.Minute, args...); res.code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, res.code, res.stderr)
		}
	}
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// TestDemoEndToEnd runs `mcpcode demo`, then the article's scenarios in the
// workspace it left, against the demo servers over stdio in both isolation
// modes, then the demo again over its own workspace, and finally the
// approved skill on its own.
func TestDemoEndToEnd(t *testing.T) {
	e2e(t)
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "demo")
	checkDemo(t, dir, 1)
	for _, isolation := range []string{"worker", "none"} {
		t.Run(isolation, func(t *testing.T) { checkDemoPrograms(t, dir, isolation) })
	}
	checkDemo(t, dir, 2)
	// The workspace the demo left behind works on its own.
	if res := runBinary(t, dir, 3*time.Minute, "skills", "verify"); res.code != 0 {
		t.Errorf("skills verify in the demo workspace: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	if res := runBinary(t, dir, 3*time.Minute, "run", "--timeout", slowTimeout, "--skill", "pending-orders", "--input", `{"status":"cancelled","limit":1}`); res.code != 0 || !strings.Contains(res.stdout, `"status": "cancelled"`) {
		t.Errorf("running the demo skill: %d\n%s%s", res.code, res.stdout, res.stderr)
	}
}

// checkDemo runs `mcpcode demo --dir dir` and checks what it shows.
func checkDemo(t *testing.T, dir string, run int) {
	t.Helper()
	res := runBinary(t, t.TempDir(), 10*time.Minute, "demo", "--timeout", slowTimeout, "--dir", dir)
	if res.code != 0 {
		t.Fatalf("demo run %d: exit %d\nstdout:\n%s\nstderr:\n%s", run, res.code, res.stdout, res.stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^  google-drive +ok +stdio +demo-google-drive +1\.0\.0 +3 `),
		regexp.MustCompile(`(?m)^  salesforce +ok +stdio +demo-salesforce +1\.0\.0 +3 `),
		regexp.MustCompile(`(?m)^  slack +ok +stdio +demo-slack +1\.0\.0 +2 `),
		regexp.MustCompile(`(?m)^2\. Generating the typed tree`),
		regexp.MustCompile(`(?m)^    Found \d+ pending orders out of 10000$`),
		regexp.MustCompile(`reached the model: [0-9.]+MiB stayed in the program`),
		regexp.MustCompile(`(?m)^    poll 3: "deployment complete`),
		regexp.MustCompile(`(?m)^      google-drive\.getSheet +read-only$`),
		regexp.MustCompile(`wrote \./skills/pending-orders/SKILL\.md`),
		regexp.MustCompile(`(?m)^    => \{"status":"pending","total":\d+,"orders":\[`),
	} {
		if !want.MatchString(res.stdout) {
			t.Errorf("demo run %d: output does not match %s:\n%s", run, want, res.stdout)
		}
	}
}

// checkDemoPrograms runs the article's scenarios, the demo's programs, in
// the demo workspace ws with one isolation mode.
func checkDemoPrograms(t *testing.T, ws, isolation string) {
	iso := "--isolation=" + isolation

	// 10,000 rows in, five rows out.
	res := runBinary(t, ws, 3*time.Minute, "run", "--timeout", slowTimeout, iso, "programs/pending-orders.ts")
	if res.code != 0 {
		t.Fatalf("pending-orders: exit %d\n%s", res.code, res.stderr)
	}
	if !regexp.MustCompile(`(?m)^Found \d+ pending orders out of 10000$`).MatchString(res.stdout) {
		t.Errorf("pending-orders output:\n%s", res.stdout)
	}
	if n := len(regexp.MustCompile(`(?m)^ORD-\d+ `).FindAllString(res.stdout, -1)); n != 5 {
		t.Errorf("pending-orders logged %d rows, want 5:\n%s", n, res.stdout)
	}

	// The transcript goes from Drive to Salesforce without passing
	// through the output.
	r, _ := runJSON(t, ws, iso, "programs/transcript-to-lead.ts")
	if !r.OK || compact(r.Result) != `{"lead":"00Q5f000001abcXYZ","success":true}` {
		t.Fatalf("transcript-to-lead: %+v %s", r.Error, r.Result)
	}
	out, _ := json.Marshal(r.Logs)
	if r.Stats.BytesFromTools < 150_000 || len(out) > 500 || strings.Contains(string(out), "[00:") {
		t.Errorf("transcript-to-lead: %d bytes from tools, logs %s", r.Stats.BytesFromTools, out)
	}
	if len(r.ToolCalls) != 2 || r.ToolCalls[0].Tool != "getDocument" || r.ToolCalls[1].Tool != "updateRecord" {
		t.Errorf("tool calls: %+v", r.ToolCalls)
	}

	// The polling loop with setTimeout.
	r, _ = runJSON(t, ws, iso, "programs/wait-for-deployment.ts")
	if !r.OK || compact(r.Result) != `{"polls":3}` {
		t.Fatalf("wait-for-deployment: %+v %s", r.Error, r.Result)
	}
	if last := r.Logs[len(r.Logs)-1].Text; !strings.Contains(last, "deployment complete") {
		t.Errorf("last log %q", last)
	}

	// A file saved by one run is read by the next, which calls no
	// tool and so starts no server.
	if res := runBinary(t, ws, 3*time.Minute, "run", "--timeout", slowTimeout, iso, "programs/save-orders-csv.ts"); res.code != 0 || !strings.Contains(res.stdout, "Saved 10000 rows to workspace/orders.csv") {
		t.Fatalf("save-orders-csv: exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	if err := os.RemoveAll(filepath.Join(ws, ".mcpcode", "logs")); err != nil {
		t.Fatal(err)
	}
	r, _ = runJSON(t, ws, iso, "programs/summarize-orders-csv.ts")
	var counts map[string]int
	if err := json.Unmarshal(r.Result, &counts); !r.OK || err != nil {
		t.Fatalf("summarize-orders-csv: %+v %s", r.Error, r.Result)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != 10000 || counts["pending"] == 0 {
		t.Errorf("counts %v", counts)
	}
	if _, err := os.Stat(filepath.Join(ws, ".mcpcode", "logs")); !os.IsNotExist(err) {
		t.Error("a program that calls no tool started a server")
	}
}
