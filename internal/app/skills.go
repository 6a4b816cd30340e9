package app

import (
	"context"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/skills"
)

// The skills' use cases. Proposals are untrusted programs: everything that
// bundles one (propose, show, approve, verify) bundles it where a crash or a
// hang costs nothing.

// Propose records a program as a pending proposal; nothing runs.
func (w *Workspace) Propose(o skills.ProposeOptions) (*skills.ProposeResult, error) {
	return w.SkillStore().Propose(o)
}

// ProposeGit commits a proposal, laid out as approved, on a new branch.
func (w *Workspace) ProposeGit(ctx context.Context, o skills.ProposeOptions) (*skills.GitProposal, error) {
	return w.SkillStore().ProposeGit(ctx, o)
}

// ListSkills lists approved, pending and dismissed skills.
func (w *Workspace) ListSkills() ([]skills.Entry, error) { return w.SkillStore().List() }

// ShowSkill returns the review card of a proposal or a skill.
func (w *Workspace) ShowSkill(name string) (*skills.Card, error) { return w.SkillStore().Show(name) }

// ApproveSkill installs a pending proposal as an approved skill.
func (w *Workspace) ApproveSkill(name string, o skills.ApproveOptions) (*skills.Approved, error) {
	return w.SkillStore().Approve(name, o)
}

// DismissSkill sets a pending proposal aside.
func (w *Workspace) DismissSkill(name string) error { return w.SkillStore().Dismiss(name) }

// VerifySkills checks every skill, replaying each approved skill's
// recorded examples (in a worker, like any run of untrusted code); each
// problem is one entry.
func (w *Workspace) VerifySkills() ([]skills.Problem, error) {
	s := w.SkillStore()
	if w.app != nil && w.app.WorkerCommand != nil {
		s.Run = func(ctx context.Context, b runtime.BundleOptions, r runtime.RunOptions) *runtime.Result {
			return w.app.execute(ctx, IsolationWorker, false, b, r)
		}
	}
	return s.Verify()
}
