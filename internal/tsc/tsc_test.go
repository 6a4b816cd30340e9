package tsc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunReportsTypeErrors(t *testing.T) {
	for _, c := range []struct {
		name, source string
		wantErr      bool
	}{
		{"valid", "export const n: number = 1;\n", false},
		{"type error", "export const n: number = \"one\";\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a.ts"), []byte(c.source), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := Run(t, dir, "--strict", "--noEmit", "a.ts")
			if (err != nil) != c.wantErr {
				t.Fatalf("tsc error = %v, want error %v; output:\n%s", err, c.wantErr, out)
			}
			if c.wantErr && !strings.Contains(out, "a.ts(1,") {
				t.Errorf("tsc output does not point at the error:\n%s", out)
			}
		})
	}
}

func TestModuleRootHoldsGoMod(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !strings.Contains(string(data), "module github.com/mcpcode/mcpcode") {
		t.Errorf("ModuleRoot() = %s, whose go.mod is not this module's (err %v)", root, err)
	}
}
