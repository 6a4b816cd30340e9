package app

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpcode/mcpcode/examples"
	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/demo"
	"github.com/mcpcode/mcpcode/internal/layout"
)

// DemoWorkspace is a demo workspace written by CreateDemo.
type DemoWorkspace struct {
	*Workspace
	// Binary is the mcpcode binary its mcp.json starts the demo servers
	// with; Copied says it is a copy kept in the workspace because the
	// running binary is temporary (`go run`).
	Binary string
	Copied bool
}

// DemoPrograms are the demo's agent programs, in the order the demo runs
// them (files of examples/demo/programs, written to programs/).
var DemoPrograms = []string{"pending-orders.ts", "transcript-to-lead.ts", "wait-for-deployment.ts", "save-orders-csv.ts", "summarize-orders-csv.ts"}

// The demo skill.
const (
	DemoSkill            = "pending-orders"
	DemoSkillProgram     = "pending-orders-skill.ts"
	DemoSkillSchema      = "pending-orders.schema.json"
	DemoSkillDescription = "Lists the orders of the order sheet in one status (pending by default) with the customers' names, emails and phones."
	DemoSkillRationale   = "Sales asks for the pending orders every Monday; as a skill the filter is written and reviewed once."
)

// CreateDemo writes a demo workspace in dir (created if needed): an
// mcp.json that starts the built-in demo servers through this binary, and
// the demo programs in programs/. It opens the workspace.
func (a *App) CreateDemo(dir string) (*DemoWorkspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("creating the demo workspace: %w", err)
	}
	binary, copied, err := demoBinary(abs)
	if err != nil {
		return nil, err
	}
	cfgPath := filepath.Join(abs, layout.ConfigFile)
	if err := atomicfile.Write(cfgPath, DemoConfig(binary), 0o644); err != nil {
		return nil, err
	}
	if err := writeDemoPrograms(abs); err != nil {
		return nil, err
	}
	w, err := a.Open(OpenOptions{Dir: abs, RequireConfig: true})
	if err != nil {
		return nil, err
	}
	return &DemoWorkspace{Workspace: w, Binary: binary, Copied: copied}, nil
}

// DemoConfig is the mcp.json of a demo workspace: the demo servers, started
// through the given mcpcode binary.
func DemoConfig(binary string) []byte {
	entries := map[string]any{}
	for _, name := range demo.Names() {
		entries[name] = map[string]any{"command": binary, "args": []string{"demo-server", name}}
	}
	data, _ := json.MarshalIndent(map[string]any{"mcpServers": entries}, "", "  ")
	return append(data, '\n')
}

// demoBinary returns the path the demo's mcp.json should start. A binary
// built by `go run` lives in a temporary directory that disappears when it
// exits, so it is copied into the workspace to keep the demo usable later.
func demoBinary(dir string) (path string, copied bool, err error) {
	exe, err := os.Executable()
	if err != nil {
		return "", false, fmt.Errorf("finding the mcpcode binary: %w", err)
	}
	if exe, err = filepath.EvalSymlinks(exe); err != nil {
		return "", false, err
	}
	if !strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return exe, false, nil
	}
	dst := filepath.Join(dir, layout.StateDir, "bin", "mcpcode")
	data, err := os.ReadFile(exe)
	if err == nil {
		// Atomic, so that a demo started while another one runs never
		// starts a half-written copy.
		err = atomicfile.Write(dst, data, 0o755)
	}
	if err != nil {
		return "", false, fmt.Errorf("copying the mcpcode binary into the demo workspace: %w", err)
	}
	return dst, true, nil
}

// writeDemoPrograms copies the embedded programs into DIR/programs.
func writeDemoPrograms(dir string) error {
	return fs.WalkDir(examples.DemoPrograms, "demo/programs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := examples.DemoPrograms.ReadFile(p)
		if err != nil {
			return err
		}
		return atomicfile.Write(filepath.Join(dir, "programs", path.Base(p)), data, 0o644)
	})
}
