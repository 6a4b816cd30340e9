package skills

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/runtime"
)

// recordingBundler bundles in this process, as runtime.Bundle does, and
// records each program it bundled (workspace-relative entry) and whether
// the skill policy came with it.
type recordingBundler struct {
	root string
	mu   sync.Mutex
	log  []string
}

func (b *recordingBundler) bundle(ctx context.Context, o runtime.BundleOptions) (*runtime.Program, error) {
	rel, _ := filepath.Rel(b.root, o.Entry)
	b.mu.Lock()
	b.log = append(b.log, filepath.ToSlash(rel))
	b.mu.Unlock()
	if o.Skills == nil {
		return nil, errors.New("no skill policy was passed")
	}
	return runtime.Bundle(o)
}

func (b *recordingBundler) take() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := strings.Join(b.log, " ")
	b.log = nil
	return out
}

// TestEveryAnalysisUsesTheBundler: propose, show, approve and verify
// bundle through Workspace.Bundle, never in this process behind its back.
func TestEveryAnalysisUsesTheBundler(t *testing.T) {
	w := demoWorkspace(t)
	b := &recordingBundler{root: w.Root}
	w.Bundle = b.bundle
	steps := []struct {
		name string
		do   func() error
		want string // the entries bundled
	}{
		{"propose", func() error {
			_, err := w.Propose(ProposeOptions{Name: "sheet", Description: "Reads a sheet.", Rationale: "Weekly.", Program: []byte(readSheet)})
			return err
		}, "skills/.proposals/sheet/index.ts"},
		{"show a pending proposal", func() error { _, err := w.Show("sheet"); return err }, ""},
		{"approve", func() error { _, err := w.Approve("sheet", ApproveOptions{}); return err }, "skills/.proposals/sheet/index.ts"},
		{"show an approved skill", func() error { _, err := w.Show("sheet"); return err }, "skills/sheet/index.ts"},
		{"verify", func() error { _, err := w.Verify(); return err }, "skills/sheet/index.ts"},
	}
	for _, s := range steps {
		if err := s.do(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := b.take(); got != s.want {
			t.Errorf("%s bundled %q, want %q", s.name, got, s.want)
		}
	}
}

// TestBundlerFailuresAreReported: what the bundler says reaches the
// person, in the use case's own words.
func TestBundlerFailuresAreReported(t *testing.T) {
	w := demoWorkspace(t)
	w.Bundle = func(context.Context, runtime.BundleOptions) (*runtime.Program, error) {
		return nil, errors.New("bundling took longer than 1s, so its worker process was stopped")
	}
	_, err := w.Propose(ProposeOptions{Name: "sheet", Description: "Reads a sheet.", Rationale: "Weekly.", Program: []byte(readSheet)})
	if want := "the program does not bundle, so it cannot be proposed:\nbundling took longer than 1s, so its worker process was stopped"; err == nil || err.Error() != want {
		t.Errorf("Propose error = %v, want %q", err, want)
	}
}
