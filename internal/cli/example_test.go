package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/internal/tsc"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/mcpcode/mcpcode/skills"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var update = flag.Bool("update", false, "rewrite examples/demo's generated files")

// demoDial connects the demo servers in-process.
func demoDial(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
	ct, st := mcp.NewInMemoryTransports()
	srv, err := demo.New(cfg.Name)
	if err != nil {
		return nil, err
	}
	go func() { _ = srv.Run(context.WithoutCancel(ctx), st) }()
	return ct, nil
}

// TestExampleTreeFresh regenerates examples/demo's tree from the demo
// servers and fails when the committed files are stale. Refresh them with
// `go test ./internal/cli -run TestExampleTreeFresh -update`.
func TestExampleTreeFresh(t *testing.T) {
	t.Parallel()
	example := filepath.Join(moduleRoot(t), "examples", "demo")
	ta := newTestApp(t)
	ta.cli.app.Dial = demoDial
	ws := example
	if !*update {
		ws = t.TempDir()
		data, err := os.ReadFile(filepath.Join(example, "mcp.json"))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(ws, "mcp.json"), string(data))
	}
	if code := ta.run("gen", "--config", filepath.Join(ws, "mcp.json")); code != 0 {
		t.Fatalf("gen exit %d\n%s", code, ta.stderr)
	}
	// The demo skill, proposed and approved as `mcpcode demo` does.
	sk := skills.NewWorkspace(ws)
	progPath := filepath.Join(example, "programs", app.DemoSkillProgram)
	program, err := os.ReadFile(progPath)
	if err != nil {
		t.Fatal(err)
	}
	schema, err := os.ReadFile(filepath.Join(example, "programs", app.DemoSkillSchema))
	if err != nil {
		t.Fatal(err)
	}
	// Its example: a run of the program recorded against the demo servers
	// (skills verify replays it offline).
	runProg := filepath.Join(ws, "programs", app.DemoSkillProgram)
	if !*update {
		writeFile(t, runProg, string(program))
	}
	recFile := filepath.Join(t.TempDir(), "example.json")
	if code := ta.run("run", "--dir", ws, "--isolation", "none", "--timeout", slowTimeout, "--record", recFile, "--input", `{"limit":3}`, runProg); code != 0 {
		t.Fatalf("recording the demo skill's example: exit %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	recorded, err := os.ReadFile(recFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sk.Propose(skills.ProposeOptions{Name: app.DemoSkill, Description: app.DemoSkillDescription, Rationale: app.DemoSkillRationale, InputSchema: schema, Program: program, ProgramPath: progPath, Examples: [][]byte{recorded}}); err != nil {
		t.Fatal(err)
	}
	card, err := sk.Show(app.DemoSkill)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sk.Approve(app.DemoSkill, skills.ApproveOptions{ApprovedBy: "the demo", ApprovedAt: demoApprovedAt, SHA256: card.SHA256}); err != nil {
		t.Fatal(err)
	}
	if *update {
		return
	}
	for _, dir := range []string{"servers", "skills"} {
		fresh := snapshotContent(t, filepath.Join(ws, dir))
		committed := snapshotContent(t, filepath.Join(example, dir))
		for path, content := range fresh {
			if c, ok := committed[path]; !ok {
				t.Errorf("examples/demo/%s/%s is missing", dir, path)
			} else if !bytes.Equal([]byte(c), []byte(content)) {
				t.Errorf("examples/demo/%s/%s is stale", dir, path)
			}
		}
		for path := range committed {
			if _, ok := fresh[path]; !ok {
				t.Errorf("examples/demo/%s/%s is no longer generated", dir, path)
			}
		}
	}
	// skills verify in examples/demo replays the demo skill's example
	// offline, as a pull request's CI would.
	if problems, err := skills.NewWorkspace(example).Verify(); err != nil || len(problems) > 0 {
		t.Errorf("skills verify in examples/demo: %v %v", problems, err)
	}
	m1, _ := os.ReadFile(filepath.Join(ws, ".mcpcode", "manifest.json"))
	m2, _ := os.ReadFile(filepath.Join(example, ".mcpcode", "manifest.json"))
	if !bytes.Equal(m1, m2) {
		t.Error("examples/demo/.mcpcode/manifest.json is stale")
	}
	if t.Failed() {
		t.Log("refresh with: go test ./internal/cli -run TestExampleTreeFresh -update")
	}
	tsc.Check(t, filepath.Join(example, "servers"), "-p", ".")
	// The demo programs (and skills) type-check against the tree.
	tsc.Check(t, filepath.Join(example, "programs"), "-p", ".")
}

// demoApprovedAt is when the committed demo skill was approved: written
// once, so that the committed tree is reproducible.
var demoApprovedAt = time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC)

// snapshotContent reads every file under dir.
func snapshotContent(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k, v := range snapshot(t, dir) {
		_, content, _ := bytes.Cut([]byte(v), []byte{0})
		out[k] = string(content)
	}
	return out
}
