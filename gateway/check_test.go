package gateway

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/tsc"
)

// mistyped calls a tool, then uses its result against its declared type:
// the program runs (a title is a string, not a number), but does not
// type-check.
const mistyped = `import { getDocument } from "servers/google-drive/getDocument";
const doc = await getDocument({ documentId: "abc123" });
const n: number = doc.title;
export default n;`

// TestExecuteTypeChecks: with a TypeScript compiler on the server's PATH,
// execute type-checks by default: a program with a type error comes back
// as the tool's error with its line, and calls nothing; "check": false
// runs it. propose_skill refuses a program that does not type-check.
func TestExecuteTypeChecks(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspaceWith(t, &app.App{Environ: []string{"PATH=" + filepath.Dir(tsc.Path(t))}})
	_, s := connect(t, ws, Options{}, nil)

	res, text := call(t, s, "execute", map[string]any{"code": mistyped})
	if !res.IsError || !strings.Contains(text, "typecheck error: the program does not type-check (1 error") ||
		!strings.Contains(text, "stdin.ts:3:7: Type 'string | undefined' is not assignable to type 'number'.") || !strings.Contains(text, "const n: number = doc.title;") {
		t.Fatalf("execute of a program with a type error: %v %q", res.IsError, text)
	}
	if n := calls.count("google-drive.getDocument"); n != 0 {
		t.Fatalf("%d calls reached the server, want 0", n)
	}

	res, text = call(t, s, "execute", map[string]any{"code": mistyped, "check": false})
	if res.IsError || !strings.HasPrefix(text, `"`) {
		t.Fatalf("execute with check false: %v %q", res.IsError, text)
	}
	if n := calls.count("google-drive.getDocument"); n != 1 {
		t.Fatalf("%d calls reached the server with check false, want 1", n)
	}

	res, text = call(t, s, "propose_skill", map[string]any{"name": "doc-size", "description": "The size of a document.", "rationale": "A test.",
		"code": "import { getDocument } from \"servers/google-drive/getDocument\";\nexport default async function f(input: { id: string }) {\n  const size: string = (await getDocument({ documentId: input.id })).content.length;\n  return size;\n}\n"})
	if !res.IsError || !strings.Contains(text, "the proposal was not recorded") || !strings.Contains(text, "skills/doc-size/index.ts:3:9:") {
		t.Fatalf("propose_skill of a program that does not type-check: %v %q", res.IsError, text)
	}
	if _, err := os.Stat(filepath.Join(ws.Proposals(), "doc-size")); !os.IsNotExist(err) {
		t.Errorf("the refused proposal was recorded (%v)", err)
	}
}

// TestExecuteWithoutCompiler: without a compiler execute runs as before,
// unless the agent asks for the check, which then says how to get one.
func TestExecuteWithoutCompiler(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspace(t) // an app with no PATH: no compiler
	_, s := connect(t, ws, Options{}, nil)
	if res, text := call(t, s, "execute", map[string]any{"code": mistyped}); res.IsError || calls.count("google-drive.getDocument") != 1 {
		t.Fatalf("execute without a compiler: %v %q", res.IsError, text)
	}
	res, text := call(t, s, "execute", map[string]any{"code": mistyped, "check": true})
	if !res.IsError || !strings.Contains(text, "npm i -D typescript@7") || calls.count("google-drive.getDocument") != 1 {
		t.Fatalf("execute with check true and no compiler: %v %q", res.IsError, text)
	}
}
