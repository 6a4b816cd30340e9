package gateway

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/tsc"
)

// TestTypeCheckShowsAHostNoOtherFile (attack): a host's program (execute)
// and a proposed skill (propose_skill, checked from a folder of its own
// under .mcpcode/check, from which ../../../../ is the workspace) name the
// workspace's mcp.json, a file no program may import; the type error that
// would quote its type (server names, commands, arguments) comes back as
// the refusal alone, and nothing runs.
func TestTypeCheckShowsAHostNoOtherFile(t *testing.T) {
	t.Parallel()
	ws, calls := demoWorkspaceWith(t, &app.App{Environ: []string{"PATH=" + filepath.Dir(tsc.Path(t))}})
	_, s := connect(t, ws, Options{}, nil)
	for _, tt := range []struct{ tool, code string }{
		{"execute", "import { listFiles } from \"servers/google-drive/listFiles\";\nawait listFiles({});\nimport cfg from \"./mcp.json\";\nconst n: number = cfg;\n"},
		{"execute", "let n: typeof import(\"./mcp.json\") = 1;\n"},
		{"propose_skill", "import cfg from \"../../../../mcp.json\";\nexport default async function f() { const n: number = cfg; return n; }\n"},
	} {
		args := map[string]any{"code": tt.code}
		if tt.tool == "propose_skill" {
			args = map[string]any{"name": "config", "description": "Reads the configuration.", "rationale": "A test.", "code": tt.code}
		}
		res, text := call(t, s, tt.tool, args)
		if !res.IsError || strings.Contains(text, "mcpServers") || strings.Contains(text, "google-drive\"") || !strings.Contains(text, "may not import") {
			t.Errorf("%s of %q: %v %q", tt.tool, tt.code, res.IsError, text)
		}
	}
	if n := calls.count("google-drive.listFiles"); n != 0 {
		t.Errorf("%d calls reached the server, want 0", n)
	}
}
