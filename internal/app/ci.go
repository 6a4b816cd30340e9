package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/lazyregexp"
	"github.com/mcpcode/mcpcode/skills"
)

// Code hosts `mcpcode init --ci` writes a workflow for.
const (
	CIGitHub = "github"
	CIGitLab = "gitlab"
)

// ModulePath is the Go module mcpcode is installed from.
const ModulePath = "github.com/mcpcode/mcpcode"

// GitHubWorkflowFile and GitLabCIFile are where the workflows go, relative
// to the repository's root.
const (
	GitHubWorkflowFile = ".github/workflows/mcpcode-skills.yml"
	GitLabCIFile       = ".gitlab/mcpcode-skills.gitlab-ci.yml"
	gitLabRootCIFile   = ".gitlab-ci.yml"
)

// GitHubCommentCommand is the one step of the GitHub workflow that calls
// the host's API: it posts the review card as a comment on the pull
// request, or updates the comment it posted before (the last comment of
// the workflow's bot).
const GitHubCommentCommand = `gh pr comment "$PR" --body-file "$RUNNER_TEMP/mcpcode-card/card.md" --edit-last --create-if-none`

// CommentMaxBytes bounds the card posted as a comment (GitHub refuses
// comments longer than 65,536 characters).
const CommentMaxBytes = 60000

var (
	moduleVersion = lazyregexp.New(`^(v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?|[0-9a-f]{12,40})$`)
	safeDir       = lazyregexp.New(`^[A-Za-z0-9._][A-Za-z0-9._/-]*$`)
)

// writeCI writes the workflow of a code host into the repository the
// workspace root is in (or into root itself, when it is in none), keeping
// files that exist. version is the mcpcode module version to install.
func writeCI(rep *InitReport, root, host, version string) error {
	if !moduleVersion.MatchString(version) {
		return usageErrorf(fmt.Errorf("this mcpcode has no release version to pin in the workflow (%q): give one with --mcpcode-version vX.Y.Z (or a commit of %s)", version, ModulePath))
	}
	repoRoot := skills.RepoRoot(context.Background(), root)
	if repoRoot == "" {
		repoRoot = root
		rep.Notes = append(rep.Notes, "the workspace is not in a git repository: the workflow was written into the workspace, which should be the repository's root")
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	realRepo, err := filepath.EvalSymlinks(repoRoot)
	if err != nil {
		return err
	}
	dir, err := filepath.Rel(realRepo, realRoot)
	if err != nil {
		return err
	}
	dir = filepath.ToSlash(dir)
	if !safeDir.MatchString(dir) || strings.Contains(dir, "..") {
		return usageErrorf(fmt.Errorf("the workspace's path in the repository (%q) has characters the workflow does not quote: use letters, digits, '.', '_', '-' and '/'", dir))
	}
	type file struct{ path, content string }
	var files []file
	switch host {
	case CIGitHub:
		files = []file{{GitHubWorkflowFile, GitHubWorkflow(version, dir)}}
	case CIGitLab:
		files = []file{{GitLabCIFile, GitLabCI(version, dir)}}
		if !fileExists(filepath.Join(repoRoot, gitLabRootCIFile)) {
			files = append(files, file{gitLabRootCIFile, "# Written by `mcpcode init --ci gitlab`: the pipeline is in the included file.\ninclude:\n  - local: " + GitLabCIFile + "\n"})
		} else {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s exists: add `include: [{local: %s}]` to it", gitLabRootCIFile, GitLabCIFile))
		}
	default:
		return usageErrorf(fmt.Errorf("unknown --ci %q: use %s or %s", host, CIGitHub, CIGitLab))
	}
	for _, f := range files {
		p := filepath.Join(repoRoot, filepath.FromSlash(f.path))
		rel, _ := filepath.Rel(root, p)
		if fileExists(p) {
			rep.Kept = append(rep.Kept, filepath.ToSlash(rel))
			continue
		}
		if err := atomicfile.Write(p, []byte(f.content), 0o644); err != nil {
			return err
		}
		rep.Written = append(rep.Written, filepath.ToSlash(rel))
	}
	return nil
}

// GitHubWorkflow is the GitHub Actions workflow for the workspace at dir
// (relative to the repository's root) with mcpcode version pinned.
func GitHubWorkflow(version, dir string) string {
	return strings.NewReplacer("{{VERSION}}", version, "{{DIR}}", dir, "{{MODULE}}", ModulePath,
		"{{COMMENT}}", GitHubCommentCommand, "{{MAXBYTES}}", fmt.Sprint(CommentMaxBytes)).Replace(githubWorkflow)
}

// GitLabCI is the GitLab CI pipeline for the workspace at dir with
// mcpcode version pinned.
func GitLabCI(version, dir string) string {
	return strings.NewReplacer("{{VERSION}}", version, "{{DIR}}", dir, "{{MODULE}}", ModulePath).Replace(gitlabCI)
}

const githubWorkflow = `# Written by ` + "`mcpcode init --ci github`" + `: checks the skills of the mcpcode
# workspace "{{DIR}}" in every pull request and shows reviewers what changed.
#
# Trust model (see mcpcode's docs/REVIEWING.md):
# - Job "verify" runs mcpcode on the pull request's files. mcpcode bundles the
#   skills and replays their recorded examples in its sandbox (no network, no
#   environment, no files outside the workspace). The job has a read-only
#   token, no secrets, and keeps no git credentials.
# - Job "comment" posts the review card as a comment on the pull request with
#   the workflow's token (pull-requests: write). It checks out nothing and
#   runs no code of the pull request: it posts the file job "verify" wrote.
#   It runs only for pull requests from this repository: a fork's pull
#   request gets a read-only token and no secrets, and its card is in the
#   summary of job "verify" instead.
# - mcpcode is installed at a pinned version: {{VERSION}}.
# The workspace's servers/ and .mcpcode/manifest.json (written by mcpcode gen)
# must be committed: verify checks the skills against them.
name: mcpcode skills

on:
  pull_request:
  push:
    branches: [main]

permissions:
  contents: read

jobs:
  verify:
    name: verify skills
    runs-on: ubuntu-latest
    permissions:
      contents: read
    outputs:
      changed: ${{ steps.card.outputs.changed }}
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
          persist-credentials: false
      - uses: actions/setup-go@v5
        with:
          go-version: "1.26"
          cache: false
      - name: Install mcpcode {{VERSION}}
        env:
          MCPCODE_VERSION: "{{VERSION}}"
        run: |
          GOBIN="$RUNNER_TEMP/mcpcode-bin" go install "{{MODULE}}/cmd/mcpcode@$MCPCODE_VERSION"
          echo "$RUNNER_TEMP/mcpcode-bin" >> "$GITHUB_PATH"
      - name: Review cards of the changed skills
        id: card
        env:
          BASE_REF: ${{ github.base_ref }}
          MCPCODE_DIR: "{{DIR}}"
        run: |
          mkdir -p "$RUNNER_TEMP/mcpcode-card"
          card="$RUNNER_TEMP/mcpcode-card/card.md"
          : > "$card"
          if [ -n "$BASE_REF" ]; then
            mcpcode skills diff --dir "$MCPCODE_DIR" --base "origin/$BASE_REF" --format markdown --max-bytes {{MAXBYTES}} > "$card"
          fi
          if [ -s "$card" ]; then
            echo "changed=true" >> "$GITHUB_OUTPUT"
            cat "$card" >> "$GITHUB_STEP_SUMMARY"
          else
            echo "changed=false" >> "$GITHUB_OUTPUT"
          fi
      - name: Verify the skills
        env:
          MCPCODE_DIR: "{{DIR}}"
        run: mcpcode skills verify --dir "$MCPCODE_DIR" --format github
      - name: Keep the review card for job "comment"
        if: always() && steps.card.outputs.changed == 'true'
        uses: actions/upload-artifact@v4
        with:
          name: mcpcode-card
          path: ${{ runner.temp }}/mcpcode-card/card.md
          retention-days: 5

  comment:
    name: post the review card
    needs: verify
    if: always() && needs.verify.outputs.changed == 'true' && github.event_name == 'pull_request' && github.event.pull_request.head.repo.full_name == github.repository
    runs-on: ubuntu-latest
    permissions:
      pull-requests: write
    steps:
      - uses: actions/download-artifact@v4
        with:
          name: mcpcode-card
          path: ${{ runner.temp }}/mcpcode-card
      - name: Post or update the review card
        env:
          GH_TOKEN: ${{ github.token }}
          GH_REPO: ${{ github.repository }}
          PR: ${{ github.event.pull_request.number }}
        run: {{COMMENT}}
`

const gitlabCI = `# Written by ` + "`mcpcode init --ci gitlab`" + `: checks the skills of the mcpcode
# workspace "{{DIR}}" in every merge request and on the default branch.
#
# - Problems are a code quality report (GitLab shows them in the merge
#   request) and lines in the job's log; the job fails on any.
# - The review cards of the changed skills are an artifact the merge request
#   links to ("mcpcode review cards"): posting them as a note would need a
#   token with the api scope in every merge request pipeline, which the job
#   that runs mcpcode on the merge request's files should not hold.
# - mcpcode bundles the skills and replays their recorded examples in its
#   sandbox (no network, no environment, no files outside the workspace).
# - mcpcode is installed at a pinned version: {{VERSION}}.
# The workspace's servers/ and .mcpcode/manifest.json (written by mcpcode gen)
# must be committed: verify checks the skills against them.
mcpcode-skills:
  image: golang:1.26
  rules:
    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH
  variables:
    GIT_DEPTH: "0"
    MCPCODE_VERSION: "{{VERSION}}"
    MCPCODE_DIR: "{{DIR}}"
  script:
    - GOBIN="$CI_PROJECT_DIR/.mcpcode-bin" go install "{{MODULE}}/cmd/mcpcode@$MCPCODE_VERSION"
    - export PATH="$CI_PROJECT_DIR/.mcpcode-bin:$PATH"
    - |
      : > mcpcode-card.md
      if [ -n "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" ]; then
        git fetch --quiet origin "$CI_MERGE_REQUEST_TARGET_BRANCH_NAME"
        mcpcode skills diff --dir "$MCPCODE_DIR" --base "origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME" --format markdown > mcpcode-card.md
      fi
    - mcpcode skills verify --dir "$MCPCODE_DIR" --format gitlab > gl-code-quality-report.json
  artifacts:
    when: always
    expose_as: mcpcode review cards
    paths:
      - mcpcode-card.md
    reports:
      codequality: gl-code-quality-report.json
`
