//go:build linux

package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/tsc"
)

// BenchmarkProcessCheck times, as an agent with a shell sees them, a run
// of a small program against the demo servers (one listFiles call over
// stdio) without the type check, with it (run --check) when its result is
// cached and when the compiler runs ("cold": the cache emptied before each
// run), and `mcpcode check` alone. Each is a new process of the real
// binary (built as released).
func BenchmarkProcessCheck(b *testing.B) {
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
	writeFileB(b, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(exe)))
	writeFileB(b, filepath.Join(ws, "prog.ts"), `import { listFiles } from "./servers/google-drive/listFiles";
const { files } = await listFiles({});
console.log(files.filter((f) => f.mimeType.endsWith("spreadsheet")).map((f) => f.name));
`)
	env := append(os.Environ(), "PATH="+filepath.Dir(tsc.Path(b))+":"+os.Getenv("PATH"))
	run := func(args ...string) {
		cmd := exec.Command(exe, args...)
		cmd.Dir, cmd.Env = ws, env
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("mcpcode %v: %v\n%s", args, err, out)
		}
	}
	run("gen")
	cache := filepath.Join(ws, ".mcpcode", "check", "cache")
	for _, bc := range []struct {
		name string
		cold bool
		args []string
	}{
		{"run", false, []string{"run", "prog.ts"}},
		{"run-check-cached", false, []string{"run", "--check", "prog.ts"}},
		{"run-check-cold", true, []string{"run", "--check", "prog.ts"}},
		{"check-cached", false, []string{"check", "prog.ts"}},
		{"check-cold", true, []string{"check", "prog.ts"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			run(bc.args...)
			for b.Loop() {
				if bc.cold {
					if err := os.RemoveAll(cache); err != nil {
						b.Fatal(err)
					}
				}
				run(bc.args...)
			}
		})
	}
}

func writeFileB(b *testing.B, path, content string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
}
