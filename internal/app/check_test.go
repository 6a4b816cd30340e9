package app

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/internal/tsc"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/skills"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolCalls counts the tool calls that reach the demo servers.
type toolCalls struct {
	mu sync.Mutex
	n  int
}

func (c *toolCalls) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// countingDemo returns an app whose servers are the in-process demo
// servers, each behind a middleware that counts the tool calls reaching
// it, and whose PATH is path.
func countingDemo(path string) (*App, *toolCalls) {
	calls := &toolCalls{}
	a := &App{Environ: []string{"PATH=" + path}, Dial: func(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
		srv, err := demo.New(cfg.Name)
		if err != nil {
			return nil, err
		}
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/call" {
					calls.mu.Lock()
					calls.n++
					calls.mu.Unlock()
				}
				return next(ctx, method, req)
			}
		})
		ct, st := mcp.NewInMemoryTransports()
		go func() { _ = srv.Run(context.WithoutCancel(ctx), st) }()
		return ct, nil
	}}
	return a, calls
}

// generatedDemo opens a new demo workspace with its tree generated, in an
// app whose PATH holds the pinned TypeScript compiler (tsc of
// testdata/npm), so that it is found the way a user's is.
func generatedDemo(t *testing.T) (*Workspace, *toolCalls) {
	t.Helper()
	a, calls := countingDemo(filepath.Dir(tsc.Path(t)))
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "mcp.json"), string(DemoConfig("unused")))
	ws, err := a.Open(OpenOptions{Dir: dir, RequireConfig: true})
	if err != nil {
		t.Fatal(err)
	}
	pool := ws.Pool(PoolOptions{})
	defer pool.Close()
	if rep, err := ws.Generate(context.Background(), pool, GenOptions{}); err != nil || rep.Failed() {
		t.Fatalf("gen: %v %+v", err, rep)
	}
	return ws, calls
}

// TestRunCheckRefusesAndCallsNothing: a program with a mistake against the
// tree's types is refused with the program's line, and no tool is called;
// a correct one runs. Each program makes a call before its mistake, which
// would reach the server without the check.
func TestRunCheckRefusesAndCallsNothing(t *testing.T) {
	t.Parallel()
	ws, calls := generatedDemo(t)
	for _, tt := range []struct {
		name, program string
		line          int
		want          string
	}{
		{"misspelled output property", `import { listFiles } from "./servers/google-drive/listFiles";
const files = await listFiles({});
console.log(files.fils.length);
`, 3, "Property 'fils' does not exist on type 'ListFilesOutput'"},
		{"wrong argument type", `import { listFiles } from "./servers/google-drive/listFiles";
import { getDocument } from "./servers/google-drive/getDocument";
await listFiles({});
await getDocument({ documentId: 42 });
`, 4, "Type 'number' is not assignable to type 'string'"},
		{"missing required argument", `import * as slack from "servers/slack";
await slack.getChannelHistory({ channel: "C123456" });
await slack.postMessage({ text: "hello" });
`, 3, "Property 'channel' is missing"},
		{"unknown tool import", `import { listFiles, deleteFile } from "./servers/google-drive";
await listFiles({});
await deleteFile({ id: "abc123" });
`, 1, "has no exported member 'deleteFile'"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			prog := filepath.Join(ws.Root, strings.ReplaceAll(tt.name, " ", "-")+".ts")
			writeFile(t, prog, tt.program)
			before := calls.count()
			res, err := ws.Run(t.Context(), RunRequest{File: prog, Check: CheckOn, Isolation: IsolationNone})
			if err != nil {
				t.Fatal(err)
			}
			where := filepath.Base(prog) + ":" + strconv.Itoa(tt.line) + ":"
			if res.OK || res.Error == nil || res.Error.Kind != runtime.KindTypeCheck || !strings.Contains(res.Error.Message, where) || !strings.Contains(res.Error.Message, tt.want) {
				t.Fatalf("result %+v; want a typecheck error at %s saying %q", res.Error, where, tt.want)
			}
			if n := calls.count() - before; n != 0 || len(res.ToolCalls) != 0 {
				t.Errorf("%d tool calls reached the servers, want 0", n)
			}
			// Unchecked, the same program fails too: after calling the
			// server, but for an unknown import (which fails to bundle).
			res, err = ws.Run(t.Context(), RunRequest{File: prog, Isolation: IsolationNone})
			if err != nil {
				t.Fatal(err)
			}
			if res.OK || (calls.count() == before) != (res.Error.Kind == runtime.KindBundle) {
				t.Errorf("unchecked: OK %v, error %+v after %d calls", res.OK, res.Error, calls.count()-before)
			}
		})
	}
	t.Run("a correct program runs", func(t *testing.T) {
		before := calls.count()
		res, err := ws.Run(t.Context(), RunRequest{Source: []byte(`import { listFiles } from "servers/google-drive";
const { files } = await listFiles({});
export default files.length;
`), Check: CheckOn, Isolation: IsolationNone})
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK || calls.count()-before != 1 {
			t.Fatalf("result %s %+v after %d calls; want success after 1", res.Result, res.Error, calls.count()-before)
		}
	})
}

// TestCheckAcrossSkills: a program importing a skill that imports another
// is checked across both imports; a skill whose call of another does not
// type-check cannot be proposed, and a program importing one approved
// before (without a compiler) is refused with the skill's own line.
func TestCheckAcrossSkills(t *testing.T) {
	t.Parallel()
	ws, calls := generatedDemo(t)
	// Approved where no compiler is found (as before this check existed).
	bare := openDir(t, &App{Dial: ws.app.Dial}, ws.Root)
	approveSkill(t, bare, "orders-in", `import { getSheet } from "servers/google-drive/getSheet";
interface Input { status: string }
export default async function ordersIn(input: Input) {
  const sheet = await getSheet({ sheetId: "def456" });
  return sheet.rows.filter((r) => r["Status"] === input.status).length;
}
`, false, "")
	good := `import ordersIn from "skills/orders-in";
export default async function pendingCount(input: { status?: string }) {
  return await ordersIn({ status: input.status ?? "pending" });
}
`
	bad := `import ordersIn from "skills/orders-in";
export default async function pendingCount(input: { status?: string }) {
  const n: number = await ordersIn({ status: 1 });
  return n;
}
`
	approveSkill(t, bare, "pending-count", good, false, "")
	approveSkill(t, bare, "broken-count", bad, false, "")

	res, err := ws.Check(t.Context(), CheckRequest{Source: []byte("import pendingCount from \"skills/pending-count\";\nconst n: number = await pendingCount({});\nexport default n;\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.OK || !contains(res.Files, "skills/pending-count/index.ts") || !contains(res.Files, "skills/orders-in/index.ts") || !contains(res.Files, "servers/google-drive/getSheet.ts") {
		t.Fatalf("the good chain: %+v", res)
	}
	run, err := ws.Run(t.Context(), RunRequest{Source: []byte("import brokenCount from \"skills/broken-count\";\nexport default await brokenCount({});\n"), Check: CheckOn, Isolation: IsolationNone})
	if err != nil {
		t.Fatal(err)
	}
	if run.OK || run.Error.Kind != runtime.KindTypeCheck || !strings.Contains(run.Error.Message, "skills/broken-count/index.ts:3:") || calls.count() != 0 {
		t.Fatalf("the broken chain: %+v, %d calls", run.Error, calls.count())
	}
	// Proposing it now, with a compiler, is refused.
	_, err = ws.Propose(skills.ProposeOptions{Name: "broken-again", Description: "Counts.", Rationale: "A test.", Program: []byte(bad)})
	var te *TypeErrors
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "skills/broken-again/index.ts:3:") {
		t.Fatalf("proposing a program that does not type-check: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws.Proposals(), "broken-again")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused proposal was recorded: %v", err)
	}
}

// TestProposalRecordsItsCheck: a proposal that type-checks records with
// what and against which tree; its card says so.
func TestProposalRecordsItsCheck(t *testing.T) {
	t.Parallel()
	ws, _ := generatedDemo(t)
	_, err := ws.Propose(skills.ProposeOptions{Name: "sheet-title", Description: "The title of a sheet.", Rationale: "A test.",
		Program: []byte("import { getSheet } from \"servers/google-drive/getSheet\";\nexport default async function f(input: { id: string }) { return (await getSheet({ sheetId: input.id })).title; }\n")})
	if err != nil {
		t.Fatal(err)
	}
	card, err := ws.ShowSkill("sheet-title")
	if err != nil {
		t.Fatal(err)
	}
	tree := ws.TreeVersion()
	if card.TypeCheck == nil || !strings.HasPrefix(card.TypeCheck.Compiler, "TypeScript 7.") || tree == "" || card.TypeCheck.Tree != tree {
		t.Fatalf("card's type check %+v, tree %s", card.TypeCheck, tree)
	}
	if want := "Type check: the program type-checked with " + card.TypeCheck.Compiler + " against the tree version " + tree[:12]; !strings.Contains(card.Render(), want) {
		t.Errorf("the card does not say %q:\n%s", want, card.Render())
	}
	if want := "**Type check:** the program type-checked with `" + card.TypeCheck.Compiler + "` against the tree version `" + tree[:12] + "`"; !strings.Contains(card.Markdown(skills.MarkdownOptions{}), want) {
		t.Errorf("the Markdown card does not say %q:\n%s", want, card.Markdown(skills.MarkdownOptions{}))
	}
	// Approved, the skill's card still says it, from SKILL.md.
	if _, err := ws.ApproveSkill("sheet-title", skills.ApproveOptions{SHA256: card.SHA256, ApprovedBy: "ana"}); err != nil {
		t.Fatal(err)
	}
	approved, err := ws.ShowSkill("sheet-title")
	if err != nil {
		t.Fatal(err)
	}
	if approved.TypeCheck == nil || *approved.TypeCheck != *card.TypeCheck ||
		!strings.Contains(approved.Render(), "Type check: SKILL.md records that the program type-checked with "+card.TypeCheck.Compiler+" against the tree version "+tree[:12]) {
		t.Errorf("the approved skill's card: %+v\n%s", approved.TypeCheck, approved.Render())
	}
}

// TestGitProposalRecordsItsCheck: `skills propose --git` type-checks the
// program and records the check in the SKILL.md it commits, so that the
// card of the skill on the branch, and the pull request's comment
// (`skills diff`), say that it type-checked and against which tree.
func TestGitProposalRecordsItsCheck(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for this test: install git")
	}
	ws, _ := generatedDemo(t)
	gitIn(t, ws.Root, "init", "-q", "-b", "main")
	gitIn(t, ws.Root, "config", "user.name", "Ana")
	gitIn(t, ws.Root, "config", "user.email", "ana@example.com")
	gitIn(t, ws.Root, "add", ".")
	gitIn(t, ws.Root, "commit", "-q", "-m", "the tree")
	program := "import { getSheet } from \"servers/google-drive/getSheet\";\nexport default async function f(input: { id: string }) { return (await getSheet({ sheetId: input.id })).title; }\n"
	gp, err := ws.ProposeGit(t.Context(), skills.ProposeOptions{Name: "sheet-title", Description: "The title of a sheet.", Rationale: "A test.", Program: []byte(program)})
	if err != nil {
		t.Fatal(err)
	}
	// Refused when it does not type-check, with no branch made.
	_, err = ws.ProposeGit(t.Context(), skills.ProposeOptions{Name: "sheet-titel", Description: "The title of a sheet.", Rationale: "A test.",
		Program: []byte(strings.Replace(program, ".title", ".titel", 1))})
	var te *TypeErrors
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "skills/sheet-titel/index.ts:2:") {
		t.Errorf("a git proposal that does not type-check: %v", err)
	}
	if branches := gitIn(t, ws.Root, "branch", "--list", "skill/*"); branches != "skill/sheet-title" {
		t.Errorf("branches: %q", branches)
	}
	checkout := t.TempDir()
	gitIn(t, ws.Root, "worktree", "add", "-q", checkout, gp.Branch)
	// Where the card is read (CI, a reviewer's clone) no compiler need be
	// found: the card says what SKILL.md records.
	cw := openDir(t, &App{Dial: ws.app.Dial, Environ: []string{"PATH="}}, checkout)
	card, err := cw.ShowSkill("sheet-title")
	if err != nil {
		t.Fatal(err)
	}
	tree := ws.TreeVersion()
	if card.TypeCheck == nil || !strings.HasPrefix(card.TypeCheck.Compiler, "TypeScript 7.") || tree == "" || card.TypeCheck.Tree != tree {
		t.Fatalf("the card's type check %+v, tree %s", card.TypeCheck, tree)
	}
	said := "SKILL.md records that the program type-checked with " + card.TypeCheck.Compiler + " against the tree version " + tree[:12]
	if !strings.Contains(card.Render(), "Type check: "+said) {
		t.Errorf("the card does not say %q:\n%s", said, card.Render())
	}
	diff, err := cw.DiffSkills(t.Context(), "main")
	if err != nil {
		t.Fatal(err)
	}
	if comment := strings.ReplaceAll(diff.Markdown(0), "`", ""); !strings.Contains(comment, "**Type check:** "+said) {
		t.Errorf("the pull request's comment does not say %q:\n%s", said, comment)
	}
}

// TestNoCompiler: with PATH cleared and no compiler in the workspace,
// check says how to install one, a run that asks for the check is refused
// the same way, and every other run is as without the check.
func TestNoCompiler(t *testing.T) {
	t.Parallel()
	ws, calls := generatedDemo(t)
	none := openDir(t, &App{Dial: ws.app.Dial, Environ: []string{"PATH="}}, ws.Root)
	prog := filepath.Join(ws.Root, "prog.ts")
	writeFile(t, prog, "import { listFiles } from \"servers/google-drive\";\nexport default (await listFiles({})).files.length;\n")
	_, err := none.Check(t.Context(), CheckRequest{File: prog})
	if !IsUsage(err) || !strings.Contains(err.Error(), "npm i -D typescript@7") {
		t.Fatalf("check without a compiler: %v", err)
	}
	if _, err := none.Run(t.Context(), RunRequest{File: prog, Check: CheckOn, Isolation: IsolationNone}); !IsUsage(err) || !strings.Contains(err.Error(), "npm i -D typescript@7") {
		t.Fatalf("run --check without a compiler: %v", err)
	}
	for _, mode := range []string{CheckOff, CheckAuto} {
		before := calls.count()
		res, err := none.Run(t.Context(), RunRequest{File: prog, Check: mode, Isolation: IsolationNone})
		if err != nil || !res.OK || calls.count()-before != 1 {
			t.Fatalf("run (check %q) without a compiler: %v %+v, %d calls", mode, err, res, calls.count()-before)
		}
	}
	// A proposal without a compiler is recorded, with no check on record.
	if _, err := none.Propose(skills.ProposeOptions{Name: "count-files", Description: "Counts files.", Rationale: "A test.",
		Program: []byte("export default async function f() { return 1; }\n")}); err != nil {
		t.Fatal(err)
	}
	card, err := none.ShowSkill("count-files")
	if err != nil || card.TypeCheck != nil || !strings.Contains(card.Render(), "Type check: none recorded") {
		t.Fatalf("card %+v, %v", card, err)
	}
}
