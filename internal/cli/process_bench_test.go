//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"syscall"
	"testing"

	"github.com/mcpcode/mcpcode/internal/tsc"
)

// BenchmarkProcessHello times `mcpcode run hello.ts` as an agent with a
// shell runs it: a new process each time, of the real binary (built once,
// as released: static, trimmed). "run" is the default (two processes
// start: mcpcode and its worker); "run-isolation-none" runs it in-process;
// "version" is the binary's start alone. Besides the time it
// reports the page faults per run of the single-process ones (from the
// children's rusage), which on virtual machines can cost 10 µs or more
// each. docs/BENCHMARKS.md compares these with node, deno, bun and tsx
// (testdata/bench/alternatives.sh).
func BenchmarkProcessHello(b *testing.B) {
	root, err := tsc.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	exe := filepath.Join(dir, "mcpcode")
	build := exec.Command("go", "build", "-trimpath", "-o", exe, "./cmd/mcpcode")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building mcpcode: %v\n%s", err, out)
	}
	ws := filepath.Join(dir, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		b.Fatal(err)
	}
	for name, content := range map[string]string{"mcp.json": `{"mcpServers":{}}`, "hello.ts": `console.log("hello");`} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for _, bc := range []struct {
		name string
		args []string
	}{
		{"run", []string{"run", "hello.ts"}},
		{"run-isolation-none", []string{"run", "--isolation", "none", "hello.ts"}},
		{"version", []string{"version"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			faults := childFaults()
			for b.Loop() {
				cmd := exec.Command(exe, bc.args...)
				cmd.Dir = ws
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("mcpcode %v: %v\n%s", bc.args, err, out)
				}
			}
			// A run does not wait for its worker to be reaped, so only the
			// single-process ones count every fault.
			if goruntime.GOOS == "linux" && bc.name != "run" {
				b.ReportMetric(float64(childFaults()-faults)/float64(b.N), "faults/op")
			}
		})
	}
}

// childFaults is the minor page faults of this process's waited-for
// children so far.
func childFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return ru.Minflt
}
