package cli

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcpcode/mcpcode/internal/app"
)

// TestAttackWorkflowGivesAForkNothing (held): what a fork's pull request
// must never reach through the GitHub workflow init writes. No trigger
// that runs with the base repository's token and secrets on a fork's code
// (pull_request_target, workflow_run, issue_comment), no secret at all, no
// OIDC token, no cache a pull request could poison (setup-go's cache is
// off), the write token only in the job that checks out and runs nothing,
// and no workflow expression spliced into a shell script.
func TestAttackWorkflowGivesAForkNothing(t *testing.T) {
	src := app.GitHubWorkflow("v1.2.3", "agents")
	var wf struct {
		On          map[string]any    `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			If          string            `yaml:"if"`
			Permissions map[string]string `yaml:"permissions"`
			Steps       []struct {
				Uses string         `yaml:"uses"`
				With map[string]any `yaml:"with"`
				Run  string         `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal([]byte(src), &wf); err != nil {
		t.Fatal(err)
	}
	for trigger := range wf.On {
		if trigger != "pull_request" && trigger != "push" {
			t.Errorf("trigger %q", trigger)
		}
	}
	for _, bad := range []string{"secrets.", "id-token", "actions/cache", "pull_request_target", "workflow_run", "head_ref", "github.event.pull_request.title", "github.event.pull_request.head.ref"} {
		if strings.Contains(src, bad) {
			t.Errorf("the workflow holds %q", bad)
		}
	}
	for name, j := range wf.Jobs {
		writes := false
		for scope, level := range j.Permissions {
			if level != "read" && level != "none" {
				writes = true
				if name != "comment" || scope != "pull-requests" {
					t.Errorf("job %s may write %s", name, scope)
				}
			}
		}
		for _, s := range j.Steps {
			if writes && (strings.Contains(s.Uses, "checkout") || strings.Contains(s.Run, "mcpcode ")) {
				t.Errorf("job %s holds a write token and checks out or runs code: %+v", name, s)
			}
			if strings.HasPrefix(s.Uses, "actions/setup-go") && s.With["cache"] != false {
				t.Errorf("setup-go's cache is on: %v", s.With)
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("an expression in a script: %s", s.Run)
			}
		}
		if writes && !strings.Contains(j.If, "github.event.pull_request.head.repo.full_name == github.repository") {
			t.Errorf("job %s holds a write token for forks' pull requests too: %q", name, j.If)
		}
	}
}
