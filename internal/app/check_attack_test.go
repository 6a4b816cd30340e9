package app

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/runtime"
)

// TestCheckReadsNoFileTheBundlerRefuses (attack): the compiler reads JSON
// (resolveJsonModule is on under the bundler's resolution) and .cts/.cjs
// files, which a program may not import; their types then show in its
// errors: the keys of mcp.json (server names, the names of their
// variables and headers), the literal values of a .cts file. The check
// refuses such a program as the bundler does, and shows nothing of them.
func TestCheckReadsNoFileTheBundlerRefuses(t *testing.T) {
	t.Parallel()
	ws, _ := generatedDemo(t)
	writeFile(t, filepath.Join(ws.Root, "mcp.json"), `{"mcpServers":{"google-drive":{"command":"x","env":{"TOKEN_hunter2_key":"v"}}}}`)
	writeFile(t, filepath.Join(ws.Root, "settings.cts"), "export const token = \"hunter2-cts\";\n")
	writeFile(t, filepath.Join(ws.Root, "config.cjs"), "export const token = \"hunter2-cjs\";\n")
	for _, tt := range []struct {
		name, program, secret string
		bundled               bool
	}{
		{"mcp.json", "import cfg from \"./mcp.json\";\nconst n: number = cfg;\n", "hunter2_key", true},
		{"mcp.json as a type", "let n: typeof import(\"./mcp.json\") = 1;\n", "hunter2_key", false},
		{".cts", "import { token } from \"./settings.cts\";\nlet n: typeof token = 1;\nconsole.log(token);\n", "hunter2-cts", true},
		{".cjs", "import { token } from \"./config.cjs\";\nlet n: typeof token = 1;\nconsole.log(token);\n", "hunter2-cjs", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ws.Check(t.Context(), CheckRequest{Source: []byte(tt.program)})
			if err != nil {
				t.Fatal(err)
			}
			out, _ := json.Marshal(res)
			if strings.Contains(string(out), tt.secret) {
				t.Fatalf("the check shows a file a program may not import: %s", out)
			}
			if res.OK || len(res.Diagnostics) != 1 || !strings.Contains(res.Diagnostics[0].Message, "may not import") {
				t.Fatalf("want the refusal, got %s", out)
			}
			if !tt.bundled {
				return // a type's import is not bundled
			}
			// The bundler refuses it too.
			run, err := ws.Run(t.Context(), RunRequest{Source: []byte(tt.program), Isolation: IsolationNone})
			if err != nil || run.Error == nil || run.Error.Kind != runtime.KindBundle {
				t.Fatalf("unchecked run: %v %+v", err, run)
			}
		})
	}
}
