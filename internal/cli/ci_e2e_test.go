package cli

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/skills"
)

// ghStep and ghJob are the parts of a GitHub Actions workflow the test
// reads.
type ghStep struct {
	Name string            `yaml:"name"`
	ID   string            `yaml:"id"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	With map[string]any    `yaml:"with"`
	Env  map[string]string `yaml:"env"`
	Run  string            `yaml:"run"`
}

type ghJob struct {
	Needs       any               `yaml:"needs"`
	If          string            `yaml:"if"`
	Permissions map[string]string `yaml:"permissions"`
	Outputs     map[string]string `yaml:"outputs"`
	Steps       []ghStep          `yaml:"steps"`
}

type ghWorkflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Jobs        map[string]ghJob  `yaml:"jobs"`
}

// ciRepo makes a scratch git repository whose subdirectory "agents" is a
// workspace with the demo's tree and approved skill, committed on main and
// pushed to a bare "origin"; then a branch "change" that adds an approved
// skill, as a pull request would. It returns the repository and the
// workspace.
func ciRepo(t *testing.T) (repo, ws string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed for the CI workflow test: install git")
	}
	top := t.TempDir()
	repo = filepath.Join(top, "repo")
	ws = filepath.Join(repo, "agents")
	src := filepath.Join(moduleRoot(t), "examples", "demo")
	for _, d := range []string{"mcp.json", "servers", "skills", ".mcpcode/manifest.json"} {
		err := filepath.WalkDir(filepath.Join(src, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			writeFile(t, filepath.Join(ws, rel), string(data))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, repo, "init", "-q", "-b", "main")
	gitRun(t, repo, "config", "user.name", "Ana")
	gitRun(t, repo, "config", "user.email", "ana@example.com")
	gitRun(t, repo, "add", ".")
	gitRun(t, repo, "commit", "-q", "-m", "workspace")
	gitRun(t, top, "clone", "-q", "--bare", repo, "origin.git")
	gitRun(t, repo, "remote", "add", "origin", filepath.Join(top, "origin.git"))
	gitRun(t, repo, "fetch", "-q", "origin")
	gitRun(t, repo, "checkout", "-q", "-b", "change")

	// The pull request: a new skill, proposed and approved on the branch.
	ta := newTestApp(t)
	ta.cli.app.WorkerCommand = testWorkerCommand
	prog := filepath.Join(top, "order-ids.ts")
	writeFile(t, prog, "import { getSheet } from \"servers/google-drive/getSheet\";\n\nexport default async function () {\n  const sheet = await getSheet({ sheetId: \"abc123\" });\n  return sheet.rows.map((r) => r[\"orderId\"]).slice(0, 3);\n}\n")
	if code := ta.run("skills", "propose", "--dir", ws, "--name", "order-ids", "--description", "Lists three order ids.", "--rationale", "Asked daily.", prog); code != 0 {
		t.Fatalf("propose: %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	before := len(ta.stdout.String())
	if code := ta.run("skills", "show", "--dir", ws, "--format", "json", "order-ids"); code != 0 {
		t.Fatalf("show: %d\n%s", code, ta.stderr)
	}
	var card struct{ SHA256 string }
	if err := json.Unmarshal([]byte(ta.stdout.String()[before:]), &card); err != nil {
		t.Fatal(err)
	}
	if code := ta.run("skills", "approve", "--dir", ws, "--sha256", card.SHA256, "order-ids"); code != 0 {
		t.Fatalf("approve: %d\n%s", code, ta.stderr)
	}
	gitRun(t, repo, "add", "agents/skills")
	gitRun(t, repo, "commit", "-q", "-m", "skill order-ids")
	return repo, ws
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// fakeGo is a `go` command for the workflows' install step: it checks the
// arguments are the pinned install of mcpcode and puts a `mcpcode` into
// $GOBIN that is this test binary (which acts as mcpcode).
func fakeGo(t *testing.T, version string) string {
	t.Helper()
	dir := t.TempDir()
	want := "install " + app.ModulePath + "/cmd/mcpcode@" + version
	script := "#!/bin/sh\n" +
		"if [ \"$*\" != " + shellQuote(want) + " ]; then echo \"fake go: unexpected: $*\" >&2; exit 3; fi\n" +
		"[ -n \"$GOBIN\" ] || { echo 'fake go: GOBIN unset' >&2; exit 3; }\n" +
		"mkdir -p \"$GOBIN\"\n" +
		"printf '#!/bin/sh\\nexec %s \"$@\"\\n' " + shellQuote(shellQuote(binary)) + " > \"$GOBIN/mcpcode\"\n" +
		"chmod +x \"$GOBIN/mcpcode\"\n"
	writeFile(t, filepath.Join(dir, "go"), script)
	if err := os.Chmod(filepath.Join(dir, "go"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// stepRun is what running a shell step did.
type stepRun struct {
	out  string
	code int
}

// runShell runs a step's script as GitHub's and GitLab's runners do
// (bash, -e, pipefail) in dir with env added to this process's
// environment (PATH replaced).
func runShell(t *testing.T, dir, script string, env []string) stepRun {
	t.Helper()
	f := filepath.Join(t.TempDir(), "step.sh")
	writeFile(t, f, script)
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", f)
	cmd.Dir = dir
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "GIT_") {
			base = append(base, kv)
		}
	}
	cmd.Env = append(append(base, "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null"), env...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatalf("a workflow step did not finish:\n%s", script)
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stepRun{string(out), code}
}

// TestInitCIGitHub writes the GitHub workflow with `init --ci github`,
// parses it as YAML and checks its jobs and trust model, then runs its
// shell steps, as the runner would, against a scratch repository with a
// pull request: they pass on the clean skill tree and post the card of
// the changed skill (all but the API call, which is checked to be the
// documented command); on a tampered tree the verify step fails with an
// annotation on the tampered file.
func TestInitCIGitHub(t *testing.T) {
	e2e(t)
	repo, ws := ciRepo(t)
	ta := newTestApp(t)
	if code := ta.run("init", "--dir", ws, "--ci", "github", "--mcpcode-version", "v9.9.9"); code != 0 {
		t.Fatalf("init --ci github: %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	if code := ta.run("init", "--dir", ws, "--ci", "github"); code != 2 || !strings.Contains(ta.stderr.String(), "give one with --mcpcode-version") {
		t.Errorf("init --ci without a version to pin: exit %d\n%s", code, ta.stderr)
	}
	data, err := os.ReadFile(filepath.Join(repo, ".github", "workflows", "mcpcode-skills.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf ghWorkflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("the workflow is not YAML: %v\n%s", err, data)
	}
	verify, comment := wf.Jobs["verify"], wf.Jobs["comment"]
	if len(wf.Jobs) != 2 || len(verify.Steps) == 0 || len(comment.Steps) == 0 {
		t.Fatalf("jobs: %v", wf.Jobs)
	}
	if _, ok := wf.On["pull_request"]; !ok || wf.Permissions["contents"] != "read" || len(wf.Permissions) != 1 {
		t.Errorf("triggers %v, permissions %v", wf.On, wf.Permissions)
	}
	// The job that runs mcpcode on the pull request's files holds no write
	// token and keeps no git credentials; the job with the write token
	// checks out nothing, runs no mcpcode, and only for this repository's
	// pull requests.
	if len(verify.Permissions) != 1 || verify.Permissions["contents"] != "read" {
		t.Errorf("verify's permissions: %v", verify.Permissions)
	}
	if verify.Steps[0].Uses != "actions/checkout@v4" || verify.Steps[0].With["persist-credentials"] != false || verify.Steps[0].With["fetch-depth"] != 0 {
		t.Errorf("checkout: %+v", verify.Steps[0])
	}
	if len(comment.Permissions) != 1 || comment.Permissions["pull-requests"] != "write" || comment.Needs != "verify" ||
		!strings.Contains(comment.If, "github.event.pull_request.head.repo.full_name == github.repository") {
		t.Errorf("comment job: %+v", comment)
	}
	var api []ghStep
	for _, s := range comment.Steps {
		if strings.Contains(s.Uses, "checkout") || strings.Contains(s.Run, "mcpcode ") {
			t.Errorf("the comment job checks out or runs code: %+v", s)
		}
		if s.Run != "" {
			api = append(api, s)
		}
	}
	if len(api) != 1 || api[0].Run != app.GitHubCommentCommand {
		t.Errorf("the comment job's shell steps: %+v, want only: %s", api, app.GitHubCommentCommand)
	}
	for _, j := range wf.Jobs {
		for _, s := range j.Steps {
			if strings.Contains(s.Run, "${{") {
				t.Errorf("step %q puts an expression into its script (use env): %s", s.Name, s.Run)
			}
		}
	}

	// Run the verify job's shell steps as the runner would.
	goDir := fakeGo(t, "v9.9.9")
	expr := map[string]string{"${{ github.base_ref }}": "main"}
	runJob := func() (outputs, summary string, steps []stepRun, runnerTemp string) {
		t.Helper()
		runnerTemp = t.TempDir()
		files := t.TempDir()
		ghOut, ghSummary, ghPath := filepath.Join(files, "output"), filepath.Join(files, "summary"), filepath.Join(files, "path")
		for _, f := range []string{ghOut, ghSummary, ghPath} {
			writeFile(t, f, "")
		}
		for _, s := range verify.Steps {
			if s.Run == "" {
				continue // actions: checkout (the scratch clone), setup-go (the fake go), upload-artifact (checked below)
			}
			if s.If != "" {
				t.Errorf("shell step %q is conditional (%s): the test runs it always", s.Name, s.If)
			}
			pathData, _ := os.ReadFile(ghPath)
			path := strings.Join(append(strings.Fields(string(pathData)), goDir, os.Getenv("PATH")), ":")
			env := []string{"PATH=" + path, "RUNNER_TEMP=" + runnerTemp, "GITHUB_OUTPUT=" + ghOut, "GITHUB_STEP_SUMMARY=" + ghSummary, "GITHUB_PATH=" + ghPath, "GITHUB_WORKSPACE=" + repo}
			for k, v := range s.Env {
				if x, ok := expr[v]; ok {
					v = x
				} else if strings.Contains(v, "${{") {
					t.Fatalf("step %q: an expression the test does not know: %s", s.Name, v)
				}
				env = append(env, k+"="+v)
			}
			r := runShell(t, repo, s.Run, env)
			steps = append(steps, r)
			if r.code != 0 {
				break // the runner stops at a failed step
			}
		}
		o, _ := os.ReadFile(ghOut)
		sum, _ := os.ReadFile(ghSummary)
		return string(o), string(sum), steps, runnerTemp
	}

	outputs, summary, steps, runnerTemp := runJob()
	if len(steps) != 3 {
		t.Fatalf("ran %d shell steps, want 3 (install, card, verify)", len(steps))
	}
	for i, s := range steps {
		if s.code != 0 {
			t.Errorf("step %d failed on the clean tree (exit %d):\n%s", i+1, s.code, s.out)
		}
	}
	if !strings.Contains(outputs, "changed=true") {
		t.Errorf("outputs: %q", outputs)
	}
	for _, want := range []string{"## Skills changed against `origin/main`", "- `order-ids`: new skill", "### Skill `order-ids` (APPROVED)", "**Approval recorded in this change:** `Ana <ana@example.com>`"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the job summary lacks %q:\n%s", want, summary)
		}
	}
	if !strings.Contains(steps[2].out, "All skills verified.") || !strings.Contains(steps[2].out, "skills/order-ids  approved by Ana <ana@example.com>") {
		t.Errorf("verify step:\n%s", steps[2].out)
	}
	// The card the comment job posts is the file the upload step keeps.
	upload := verify.Steps[len(verify.Steps)-1]
	card, err := os.ReadFile(filepath.Join(runnerTemp, "mcpcode-card", "card.md"))
	if upload.Uses != "actions/upload-artifact@v4" || upload.With["path"] != "${{ runner.temp }}/mcpcode-card/card.md" ||
		!strings.Contains(app.GitHubCommentCommand, `"$RUNNER_TEMP/mcpcode-card/card.md"`) || comment.Steps[0].With["path"] != "${{ runner.temp }}/mcpcode-card" ||
		err != nil || string(card) != summary {
		t.Errorf("upload %+v, download %+v, card %v", upload, comment.Steps[0], err)
	}

	// Tampered: the approved program edited without a new approval.
	prog := filepath.Join(ws, "skills", "pending-orders", "index.ts")
	src, _ := os.ReadFile(prog)
	writeFile(t, prog, strings.Replace(string(src), "input.limit ?? 5", "input.limit ?? 500", 1))
	_, _, steps, _ = runJob()
	if len(steps) != 3 || steps[2].code != 1 {
		t.Fatalf("on the tampered tree the verify step should fail: %+v", steps)
	}
	md, err := os.ReadFile(filepath.Join(ws, "skills", "pending-orders", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	fm, _, err := skills.ParseSkillMD(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(steps[2].out, "::error file=agents/skills/pending-orders/index.ts,line=1,title=mcpcode skills verify%3A pending-orders::skills/pending-orders: skill \"pending-orders\" does not match its approval: index.ts changed since "+fm.Approval().By+" approved it") {
		t.Errorf("no annotation on the tampered file:\n%s", steps[2].out)
	}
}

// TestInitCIGitLab writes the GitLab pipeline, parses it, and runs its
// script as GitLab's runner would for a merge request: it passes on the
// clean tree with an empty code quality report and the card of the
// changed skill, and fails on a tampered tree with the problem in the
// report.
func TestInitCIGitLab(t *testing.T) {
	e2e(t)
	repo, ws := ciRepo(t)
	ta := newTestApp(t)
	if code := ta.run("init", "--dir", ws, "--ci", "gitlab", "--mcpcode-version", "v9.9.9"); code != 0 {
		t.Fatalf("init --ci gitlab: %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	root, err := os.ReadFile(filepath.Join(repo, ".gitlab-ci.yml"))
	if err != nil || !strings.Contains(string(root), "local: .gitlab/mcpcode-skills.gitlab-ci.yml") {
		t.Fatalf(".gitlab-ci.yml: %v\n%s", err, root)
	}
	data, err := os.ReadFile(filepath.Join(repo, ".gitlab", "mcpcode-skills.gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var pipeline map[string]struct {
		Image     string            `yaml:"image"`
		Variables map[string]string `yaml:"variables"`
		Script    []string          `yaml:"script"`
		Artifacts struct {
			When     string            `yaml:"when"`
			ExposeAs string            `yaml:"expose_as"`
			Paths    []string          `yaml:"paths"`
			Reports  map[string]string `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal(data, &pipeline); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, data)
	}
	job, ok := pipeline["mcpcode-skills"]
	if !ok || len(pipeline) != 1 || job.Variables["MCPCODE_VERSION"] != "v9.9.9" || job.Variables["MCPCODE_DIR"] != "agents" ||
		job.Artifacts.Reports["codequality"] != "gl-code-quality-report.json" || job.Artifacts.When != "always" || len(job.Script) == 0 {
		t.Fatalf("job: %+v", job)
	}
	goDir := fakeGo(t, "v9.9.9")
	run := func() stepRun {
		t.Helper()
		env := []string{"PATH=" + goDir + ":" + os.Getenv("PATH"), "CI_PROJECT_DIR=" + repo, "CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main", "CI_PIPELINE_SOURCE=merge_request_event"}
		for k, v := range job.Variables {
			env = append(env, k+"="+v)
		}
		return runShell(t, repo, strings.Join(job.Script, "\n"), env)
	}
	r := run()
	report, _ := os.ReadFile(filepath.Join(repo, "gl-code-quality-report.json"))
	card, _ := os.ReadFile(filepath.Join(repo, "mcpcode-card.md"))
	if r.code != 0 || strings.TrimSpace(string(report)) != "[]" || !strings.Contains(string(card), "- `order-ids`: new skill") {
		t.Errorf("clean tree: exit %d\n%s\nreport: %s\ncard: %s", r.code, r.out, report, card)
	}
	prog := filepath.Join(ws, "skills", "pending-orders", "index.ts")
	src, _ := os.ReadFile(prog)
	writeFile(t, prog, string(src)+"// edited\n")
	r = run()
	report, _ = os.ReadFile(filepath.Join(repo, "gl-code-quality-report.json"))
	var issues []struct {
		Description string
		Location    struct{ Path string }
	}
	if err := json.Unmarshal(report, &issues); err != nil || r.code == 0 || len(issues) != 1 || issues[0].Location.Path != "agents/skills/pending-orders/index.ts" ||
		!strings.Contains(issues[0].Description, "index.ts changed") || !strings.Contains(r.out, `skill "pending-orders" does not match its approval`) {
		t.Errorf("tampered tree: exit %d, report %s (%v)\n%s", r.code, report, err, r.out)
	}
}
