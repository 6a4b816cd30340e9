package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/mcptool"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/skills"
)

// arrows is a program esbuild takes many seconds (about 17) to bundle, and
// that nothing can stop inside the process doing it.
var arrows = "export default " + strings.Repeat("a=>", 2000) + "1;\n"

// TestHostileProposalIsBundledInAWorker: proposing (and verifying) a
// program that keeps esbuild busy fails at the bundle timeout with a clear
// error, because it is bundled in a worker process that is stopped; this
// process goes on, and its pool serves the next proposal.
func TestHostileProposalIsBundledInAWorker(t *testing.T) {
	t.Parallel()
	a := newWorkerApp(t, 5*time.Second)
	ws := openDir(t, a, t.TempDir())

	err := within(t, "proposing the arrow chain", func() error {
		_, err := ws.Propose(skills.ProposeOptions{Name: "arrows", Description: "Returns a function.", Rationale: "A test.", Program: []byte(arrows)})
		return err
	})
	want := "the program does not bundle, so it cannot be proposed:\nbundling " + filepath.Join(ws.Root, "skills", ".proposals", "arrows", "index.ts") +
		" took longer than 5s, so its worker process was stopped: the program is too costly to bundle; make it smaller or simpler"
	if err == nil || err.Error() != want {
		t.Fatalf("Propose error = %v\nwant %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "skills", ".proposals", "arrows")); !os.IsNotExist(err) {
		t.Errorf("the refused proposal was stored: %v", err)
	}

	// An approved skill changed to the same program (say, in a pull
	// request): verify reports it instead of hanging.
	writeFile(t, filepath.Join(ws.Root, "skills", "slow", "SKILL.md"), "---\nname: slow\ndescription: Returns a function.\n---\n")
	writeFile(t, filepath.Join(ws.Root, "skills", "slow", "index.ts"), arrows)
	var problems []skills.Problem
	err = within(t, "verifying the arrow chain", func() (err error) {
		problems, err = ws.VerifySkills()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, p := range problems {
		texts = append(texts, p.String())
	}
	if got := strings.Join(texts, "\n"); !strings.Contains(got, "skills/slow: the program does not bundle: bundling "+filepath.Join(ws.Root, "skills", "slow", "index.ts")+" took longer than 5s") {
		t.Errorf("verify problems:\n%s\nwant the bundle timeout of skills/slow", got)
	}

	// This process is fine, and so is its pool.
	res, err := ws.Propose(skills.ProposeOptions{Name: "one", Description: "Returns one.", Rationale: "A test.", Program: []byte("export default async () => 1;\n")})
	if err != nil || res.Proposal.Name != "one" {
		t.Fatalf("a normal proposal afterwards: %+v, %v", res, err)
	}
}

// scopeCaller plays a server "crm" with a read-only tool "get" and a
// write tool "update", and records the scope each call carried.
type scopeCaller struct{ calls chan string }

func (c *scopeCaller) Tools(_ context.Context, server string) ([]mcptool.Tool, error) {
	if server != "crm" {
		return nil, mcptool.ErrUnknownServer
	}
	var tools []mcptool.Tool
	for _, raw := range []string{`{"name":"get","annotations":{"readOnlyHint":true}}`, `{"name":"update"}`} {
		t, _, err := mcptool.Parse(json.RawMessage(raw))
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

func (c *scopeCaller) CallTool(ctx context.Context, server, tool string, _ json.RawMessage) (*mcptool.Result, error) {
	call := server + "." + tool
	if sc, ok := mcptool.ScopeOf(ctx); ok {
		call += " by " + sc.Skill + map[bool]string{true: " (write)", false: " (no write)"}[sc.Write]
	} else {
		call += ", no scope"
	}
	select {
	case c.calls <- call:
	default:
		return nil, errors.New("too many calls")
	}
	return &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":"ok"}]`)}, nil
}

func (c *scopeCaller) list() []string {
	var out []string
	for {
		select {
		case s := <-c.calls:
			out = append(out, s)
		default:
			return out
		}
	}
}

// TestSkillGrantReachesTheCaller: the caller (in serve, the write gate)
// learns that a call comes from a skill a person granted write, with worker
// isolation as in-process; the program's own call carries no scope.
func TestSkillGrantReachesTheCaller(t *testing.T) {
	t.Parallel()
	a := newWorkerApp(t, 0)
	ws := openDir(t, a, t.TempDir())
	for name, write := range map[string]string{"writer": "true", "reader": "false"} {
		writeFile(t, filepath.Join(ws.Root, "skills", name, "SKILL.md"), "---\nname: "+name+"\ndescription: Calls crm.\nmetadata:\n  mcpcode-write: \""+write+"\"\n---\n")
	}
	writeFile(t, filepath.Join(ws.Root, "skills", "writer", "index.ts"), `import { callMCPTool } from "mcpcode:runtime";
export default () => callMCPTool("crm", "update", {});`)
	writeFile(t, filepath.Join(ws.Root, "skills", "reader", "index.ts"), `import { callMCPTool } from "mcpcode:runtime";
export default () => callMCPTool("crm", "get", {});`)
	// A person approves both as laid out (writer with write), after gen
	// listed crm's tools.
	readOnly := true
	m := &generator.Manifest{Version: generator.ManifestVersion, Servers: []generator.ServerEntry{{Name: "crm", Directory: "crm", Tools: []generator.ToolEntry{
		{Name: "get", Function: "get", Hints: mcptool.Hints{ReadOnly: &readOnly}}, {Name: "update", Function: "update"}}}}}
	writeFile(t, filepath.Join(ws.Root, ".mcpcode", "manifest.json"), string(m.Marshal()))
	for name, write := range map[string]bool{"writer": true, "reader": false} {
		card, err := ws.ShowSkill(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ws.ApproveSkill(name, skills.ApproveOptions{SHA256: card.SHA256, AllowWrite: write}); err != nil {
			t.Fatal(err)
		}
	}
	src := `import { callMCPTool } from "mcpcode:runtime";
import writer from "skills/writer";
import reader from "skills/reader";
await writer();
await reader();
await callMCPTool("crm", "update", {});`
	want := []string{"crm.update by writer (write)", "crm.get by reader (no write)", "crm.update, no scope"}
	for _, isolation := range []string{IsolationWorker, IsolationNone} {
		t.Run(isolation, func(t *testing.T) {
			t.Parallel()
			c := &scopeCaller{calls: make(chan string, 10)}
			res, err := ws.Run(t.Context(), RunRequest{Source: []byte(src), Isolation: isolation, Caller: c, Limits: runtime.Limits{Timeout: guard}})
			if err != nil {
				t.Fatal(err)
			}
			if !res.OK {
				t.Fatalf("run failed: %+v", res.Error)
			}
			if got := c.list(); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("calls as the caller saw them:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// TestRunWithoutWorkersDoesNotStart: asking for worker isolation from an
// app that has no worker command is a run that could not start, not a
// program that does not bundle.
func TestRunWithoutWorkersDoesNotStart(t *testing.T) {
	t.Parallel()
	ws := openDir(t, &App{}, t.TempDir())
	res, err := ws.Run(t.Context(), RunRequest{Source: []byte("export default 1;"), Caller: &scopeCaller{}})
	if err != nil {
		t.Fatal(err)
	}
	want := `the program could not start: worker isolation is not available: no worker command configured (the app needs a WorkerCommand; isolation "none" runs trusted programs in this process)`
	if res.OK || res.Error == nil || res.Error.Kind != runtime.KindCrashed || res.Error.Message != want {
		t.Fatalf("error = %+v, want kind %q: %s", res.Error, runtime.KindCrashed, want)
	}
	if string(res.Result) != "null" || res.Logs == nil || res.ToolCalls == nil {
		t.Errorf("result %s, logs %v, tool calls %v; want null and empty lists", res.Result, res.Logs, res.ToolCalls)
	}
}
