package worker

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/internal/precheck"
)

// TestHostileSourceIsBundledInTheWorker hands the pool source that is
// costly or dangerous to parse: each run ends with a clear error, the
// parent serves a normal run afterwards, and the parent never bundled the
// source (the bundle log sees every runtime.Bundle call in this process;
// the control case shows that it would see one).
func TestHostileSourceIsBundledInTheWorker(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand()})
	tests := []struct {
		name   string
		src    string
		limits runtime.Limits
		check  func(t *testing.T, res *runtime.Result)
	}{
		{
			// Refused by the pre-check, in the worker.
			name: "brackets 200,000 deep",
			src:  "export default " + strings.Repeat("[", 200000) + strings.Repeat("]", 200000) + ";",
			check: func(t *testing.T, res *runtime.Result) {
				if res.Error == nil || res.Error.Kind != runtime.KindBundle || res.Error.Message != precheck.NestingMessage || !strings.HasPrefix(res.Error.Stack, "prog.ts:2:") {
					t.Errorf("error = %+v, want the nesting limit as a bundle error at prog.ts:2", res.Error)
				}
			},
		},
		{
			// Nothing the pre-check counts: esbuild takes many seconds
			// on it. The run's wall time covers bundling, so the run ends
			// at its limit and the worker is stopped.
			name:   "arrow chain 2,000 deep",
			src:    "export default " + strings.Repeat("a=>", 2000) + "1;",
			limits: runtime.Limits{Timeout: 2 * time.Second},
			check: func(t *testing.T, res *runtime.Result) {
				if res.Error == nil || res.Error.Kind != runtime.KindLimit || res.Error.Limit != runtime.LimitTimeout || res.Error.Message != "wall-time limit of 2s exceeded (--timeout)" {
					t.Errorf("error = %+v, want the wall-time limit of 2s", res.Error)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, nil)
			marker := "// hostile source: " + tt.name + "\n"
			res := pool.Run(t.Context(), source(ws, marker+tt.src), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: tt.limits})
			tt.check(t, res)
			checkNormal(t, pool.Run(t.Context(), source(ws, normalProgram), runtime.RunOptions{Workspace: ws, Caller: newFakeCaller(), Limits: runtime.Limits{Timeout: guard}}))
			if parentBundles.saw("", marker) {
				t.Errorf("the parent process bundled the hostile source")
			}
		})
	}
	t.Run("control: the log sees a bundle in this process", func(t *testing.T) {
		t.Parallel()
		marker := "// control: bundled in the parent\n"
		if _, err := runtime.Bundle(source(newWorkspace(t, nil), marker+"export default 1;")); err != nil {
			t.Fatal(err)
		}
		if !parentBundles.saw("", marker) {
			t.Fatal("runtime.Bundle in this process was not logged: the check above proves nothing")
		}
	})
}

// TestHostileSourceBundleOnly: Pool.Bundle stops a worker that bundles for
// too long and says so; a file the pre-check refuses keeps its diagnostic
// (file, line, column) through the worker; the parent bundles neither.
func TestHostileSourceBundleOnly(t *testing.T) {
	t.Parallel()
	pool := newPool(t, Options{Command: testWorkerCommand(), BundleTimeout: 5 * time.Second})
	ws := newWorkspace(t, map[string]string{
		"programs/arrows.ts": "// hostile: arrows on disk\nexport default " + strings.Repeat("a=>", 2000) + "1;\n",
		"programs/deep.ts":   "// hostile: brackets on disk\nexport default " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300) + ";\n",
	})
	arrows, deep := ws+"/programs/arrows.ts", ws+"/programs/deep.ts"

	_, err := pool.Bundle(t.Context(), runtime.BundleOptions{Workspace: ws, Entry: arrows})
	if err == nil || err.Error() != "bundling "+arrows+" took longer than 5s, so its worker process was stopped: the program is too costly to bundle; make it smaller or simpler" {
		t.Errorf("Bundle(arrows) error = %v, want the bundle timeout", err)
	}
	_, err = pool.Bundle(t.Context(), runtime.BundleOptions{Workspace: ws, Entry: deep})
	var be *runtime.BundleError
	if !errors.As(err, &be) || len(be.Diagnostics) != 1 {
		t.Fatalf("Bundle(deep) error = %v, want one diagnostic", err)
	}
	if d := be.Diagnostics[0]; d.File != "programs/deep.ts" || d.Line != 2 || d.Column != len("export default ")+201 || d.Text != precheck.NestingMessage {
		t.Errorf("diagnostic = %+v, want the nesting limit at programs/deep.ts:2:%d", d, len("export default ")+201)
	}
	for _, entry := range []string{arrows, deep} {
		if parentBundles.saw(entry, "") {
			t.Errorf("the parent process bundled %s", entry)
		}
	}
	if _, err := pool.Bundle(t.Context(), source(ws, normalProgram)); err != nil {
		t.Errorf("Bundle of a normal program afterwards: %v", err)
	}
}
