package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
//
// The demo skill is proposed afresh as `mcpcode demo` proposes it, with an
// example recorded against the demo servers, and its files (all but
// SKILL.md) must be the committed ones. Its approval is a person's act,
// never the test's: -update writes the files, which leaves the committed
// approval not matching them, and a person approves them again with the
// CLI (the test says how), which records who, when and at which commit.
// The committed SKILL.md must match its files (skills verify) and say what
// a fresh approval says, but for that record.
func TestExampleTreeFresh(t *testing.T) {
	t.Parallel()
	example := filepath.Join(moduleRoot(t), "examples", "demo")
	ta := newTestApp(t)
	ta.cli.app.Dial = demoDial
	ws := t.TempDir()
	data, err := os.ReadFile(filepath.Join(example, "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ws, "mcp.json"), string(data))
	for _, dir := range []string{ws, example} {
		if dir == example && !*update {
			continue
		}
		if code := ta.run("gen", "--config", filepath.Join(dir, "mcp.json")); code != 0 {
			t.Fatalf("gen exit %d\n%s", code, ta.stderr)
		}
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
	writeFile(t, runProg, string(program))
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
	if _, err := sk.Approve(app.DemoSkill, skills.ApproveOptions{ApprovedBy: "the demo", SHA256: card.SHA256}); err != nil {
		t.Fatal(err)
	}
	skillMD := filepath.Join(app.DemoSkill, "SKILL.md")
	approveHint := "approve it again with the CLI: cd examples/demo && mcpcode skills show " + app.DemoSkill +
		" && mcpcode skills approve " + app.DemoSkill + " --sha256 HASH (with the hash the card prints)"
	if *update {
		// The skill's files, as a pull request that changes it would
		// write them; SKILL.md, the approval, is left to a person.
		dir := filepath.Join(example, "skills", app.DemoSkill)
		for path := range snapshotContent(t, dir) {
			if path != "SKILL.md" {
				if err := os.Remove(filepath.Join(dir, path)); err != nil {
					t.Fatal(err)
				}
			}
		}
		for path, content := range snapshotContent(t, filepath.Join(ws, "skills")) {
			if path != skillMD {
				writeFile(t, filepath.Join(example, "skills", path), content)
			}
		}
		if problems, err := skills.NewWorkspace(example).Verify(); err != nil || len(problems) > 0 {
			t.Logf("the demo skill changed: %s", approveHint)
		}
		return
	}
	for _, dir := range []string{"servers", "skills"} {
		fresh := snapshotContent(t, filepath.Join(ws, dir))
		committed := snapshotContent(t, filepath.Join(example, dir))
		for path, content := range fresh {
			c, ok := committed[path]
			switch {
			case !ok:
				t.Errorf("examples/demo/%s/%s is missing", dir, path)
			case dir == "skills" && path == skillMD:
				if a, b := withoutApproval(t, c), withoutApproval(t, content); a != b {
					t.Errorf("examples/demo/skills/%s does not say what a fresh approval says (but for who approved, when and where):\n%s\nwant:\n%s", path, a, b)
				}
			case c != content:
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
	// offline, as a pull request's CI would, and checks that its approval
	// matches its files and covers its record.
	v, err := skills.NewWorkspace(example).VerifyAll()
	if err != nil || len(v.Problems) > 0 {
		t.Errorf("skills verify in examples/demo: %v %v; %s", v, err, approveHint)
	} else if len(v.Skills) != 1 || v.Skills[0].Approval == nil || v.Skills[0].Approval.Unbound || v.Skills[0].Approval.By == "" || v.Skills[0].Approval.At == "" {
		t.Errorf("the demo skill's approval record: %+v; %s", v.Skills, approveHint)
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

// withoutApproval is a SKILL.md without the approval's record and hash:
// what two approvals of the same files say alike.
func withoutApproval(t *testing.T, md string) string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(md, "\n") {
		switch k, _, _ := strings.Cut(strings.TrimSpace(l), ":"); k {
		case "mcpcode-approved-by", "mcpcode-approved-at", "mcpcode-approved-commit", "mcpcode-sha256":
			continue
		}
		out = append(out, l)
	}
	if _, _, err := skills.ParseSkillMD([]byte(md)); err != nil {
		t.Errorf("SKILL.md: %v", err)
	}
	return strings.Join(out, "\n")
}

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
