package app

import (
	"context"
	"os/user"
	"strings"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/skills"
)

// The skills' use cases. Proposals are untrusted programs: everything that
// bundles one (propose, show, approve, verify) bundles it where a crash or a
// hang costs nothing.

// Propose records a program as a pending proposal; nothing runs. When a
// TypeScript compiler is found the program must type-check as the skill it
// would be (the error is a *TypeErrors), and the proposal records that it
// did, against which tree.
func (w *Workspace) Propose(o skills.ProposeOptions) (*skills.ProposeResult, error) {
	tc, err := w.checkProposal(context.Background(), o.Name, o.Program)
	if err != nil {
		return nil, err
	}
	o.TypeCheck = tc
	return w.SkillStore().Propose(o)
}

// ProposeGit commits a proposal, laid out as approved, on a new branch;
// like Propose, it refuses a program that does not type-check.
func (w *Workspace) ProposeGit(ctx context.Context, o skills.ProposeOptions) (*skills.GitProposal, error) {
	tc, err := w.checkProposal(ctx, o.Name, o.Program)
	if err != nil {
		return nil, err
	}
	o.TypeCheck = tc
	return w.SkillStore().ProposeGit(ctx, o)
}

// ListSkills lists approved, pending and dismissed skills.
func (w *Workspace) ListSkills() ([]skills.Entry, error) { return w.SkillStore().List() }

// ShowSkill returns the review card of a proposal or a skill.
func (w *Workspace) ShowSkill(name string) (*skills.Card, error) { return w.SkillStore().Show(name) }

// ApproveSkill installs a pending proposal as an approved skill. The
// record of who approved is, unless o says: git's user.name and
// user.email, else the OS user; and the commit checked out when the
// workspace is in a git repository.
func (w *Workspace) ApproveSkill(name string, o skills.ApproveOptions) (*skills.Approved, error) {
	if o.ApprovedBy == "" || o.Commit == "" {
		identity, head := skills.GitContext(context.Background(), w.Root)
		if o.ApprovedBy == "" {
			o.ApprovedBy = identity
		}
		if o.Commit == "" {
			o.Commit = head
		}
	}
	if o.ApprovedBy == "" {
		o.ApprovedBy = w.osUser()
	}
	return w.SkillStore().Approve(name, o)
}

// osUser names the user mcpcode runs as, for an approval's record.
func (w *Workspace) osUser() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	if w.app != nil {
		for _, kv := range w.app.Environ {
			if v, ok := strings.CutPrefix(kv, "USER="); ok && v != "" {
				return v
			}
		}
	}
	return ""
}

// DiffSkills compares the approved skills with a git revision: each skill
// added, changed or removed, with its card.
func (w *Workspace) DiffSkills(ctx context.Context, base string) (*skills.GitDiff, error) {
	return w.SkillStore().DiffGit(ctx, base)
}

// RevokeSkill withdraws an approved skill; the record names the person as
// ApproveSkill does, unless o says.
func (w *Workspace) RevokeSkill(name string, o skills.RevokeOptions) (*skills.Revoked, error) {
	if o.By == "" {
		o.By, _ = skills.GitContext(context.Background(), w.Root)
	}
	if o.By == "" {
		o.By = w.osUser()
	}
	return w.SkillStore().Revoke(name, o)
}

// DismissSkill sets a pending proposal aside.
func (w *Workspace) DismissSkill(name string) error { return w.SkillStore().Dismiss(name) }

// VerifySkills checks every skill, replaying each approved skill's
// recorded examples (in a worker, like any run of untrusted code); each
// problem is one entry.
func (w *Workspace) VerifySkills() ([]skills.Problem, error) {
	v, err := w.VerifySkillsAll()
	if err != nil {
		return nil, err
	}
	return v.Problems, nil
}

// VerifySkillsAll is VerifySkills with each skill checked and the record
// of its approval.
func (w *Workspace) VerifySkillsAll() (*skills.Verification, error) {
	s := w.SkillStore()
	if w.app != nil && w.app.WorkerCommand != nil {
		s.Run = func(ctx context.Context, b runtime.BundleOptions, r runtime.RunOptions) *runtime.Result {
			return w.app.execute(ctx, IsolationWorker, false, b, r)
		}
	}
	return s.VerifyAll()
}
