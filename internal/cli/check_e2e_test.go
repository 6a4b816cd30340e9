package cli

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/tsc"
)

// runWithPATH runs the real binary in dir with PATH as its only variable.
func runWithPATH(t *testing.T, dir, path string, args ...string) runResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + path}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("mcpcode %s did not finish (a hang guard)\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runResult{stdout.String(), stderr.String(), code}
}

// TestCheckCommand drives `mcpcode check` and `mcpcode run --check` on the
// demo workspace: type errors exit 3 with the program's lines and nothing
// runs; a correct program passes, the second time from the cache; with
// PATH cleared, check says how to install a compiler and run works as
// without the check.
func TestCheckCommand(t *testing.T) {
	e2e(t)
	t.Parallel()
	withTSC := filepath.Dir(tsc.Path(t)) + ":/usr/bin:/bin"
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(binary)))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	writeFile(t, filepath.Join(ws, "bad.ts"), `import { listFiles } from "./servers/google-drive/listFiles";
const { files } = await listFiles({});
console.log("listed", files.length);
console.log(files[0].nmae);
`)
	writeFile(t, filepath.Join(ws, "good.ts"), `import { listFiles } from "./servers/google-drive/listFiles";
const { files } = await listFiles({});
console.log("listed", files.length);
`)

	res := runWithPATH(t, ws, withTSC, "check", "bad.ts")
	if res.code != 3 || !strings.Contains(res.stdout, "bad.ts:4:22: Property 'nmae' does not exist on type") ||
		!strings.Contains(res.stdout, "      4 | console.log(files[0].nmae);") || !strings.Contains(res.stdout, "hint: did you mean 'name'?") {
		t.Fatalf("check bad.ts: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runWithPATH(t, ws, withTSC, "run", "--check", "bad.ts")
	if res.code != 3 || strings.Contains(res.stdout, "listed") || !strings.Contains(res.stderr, "typecheck error: the program does not type-check") || !strings.Contains(res.stderr, "bad.ts:4:22:") {
		t.Fatalf("run --check bad.ts: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	for i, want := range []string{"ok: the program type-checks (TypeScript 7.0.2, 1 files of the workspace)", "ok: the program type-checks (TypeScript 7.0.2, 1 files of the workspace, cached)"} {
		if res := runWithPATH(t, ws, withTSC, "check", "good.ts"); res.code != 0 || strings.TrimSpace(res.stdout) != want {
			t.Fatalf("check good.ts (%d): exit %d\n%s%s", i+1, res.code, res.stdout, res.stderr)
		}
	}
	if res := runWithPATH(t, ws, withTSC, "run", "--check", "good.ts"); res.code != 0 || !strings.HasPrefix(res.stdout, "listed ") {
		t.Fatalf("run --check good.ts: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}

	// No compiler anywhere.
	res = runWithPATH(t, ws, "", "check", "good.ts")
	if res.code != 2 || !strings.Contains(res.stderr, "no TypeScript compiler found") || !strings.Contains(res.stderr, "npm i -D typescript@7") {
		t.Fatalf("check without a compiler: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	res = runWithPATH(t, ws, "", "run", "--check", "good.ts")
	if res.code != 2 || !strings.Contains(res.stderr, "npm i -D typescript@7") || strings.Contains(res.stdout, "listed") {
		t.Fatalf("run --check without a compiler: exit %d\n%s%s", res.code, res.stdout, res.stderr)
	}
	// Unchecked, the misspelled property is undefined at run time: no
	// error, a wrong answer. That is what the check is for.
	for _, prog := range []string{"good.ts", "bad.ts"} {
		res = runWithPATH(t, ws, "", "run", prog)
		if res.code != 0 || !strings.HasPrefix(res.stdout, "listed ") || strings.HasSuffix(res.stdout, "\nundefined\n") != (prog == "bad.ts") {
			t.Fatalf("run %s without a compiler: exit %d\n%s%s", prog, res.code, res.stdout, res.stderr)
		}
	}
}
