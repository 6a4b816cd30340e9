package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptool"
)

// piiCaller answers every call with a customer's email address.
type piiCaller struct{}

func (piiCaller) Tools(context.Context, string) ([]mcptool.Tool, error) {
	t, _, err := mcptool.Parse(json.RawMessage(`{"name":"get","annotations":{"readOnlyHint":true}}`))
	return []mcptool.Tool{t}, err
}
func (piiCaller) CallTool(context.Context, string, string, json.RawMessage) (*mcptool.Result, error) {
	return &mcptool.Result{Content: json.RawMessage(`[{"type":"text","text":"maya.okafor@harborview.example"}]`)}, nil
}

// TestStateDirAsASymlinkIsRefused: .mcpcode/ (or a directory in it) that
// is a symbolic link into the files folder hands programs mcpcode's own
// state through mcpcode:fs: the privacy token store with the real values
// the model is shown only as tokens, the audit log and its key. A
// cloned workspace can carry such a link (.mcpcode/manifest.json is
// committed). mcpcode refuses to work in such a workspace, saying why.
func TestStateDirAsASymlinkIsRefused(t *testing.T) {
	t.Parallel()
	for _, link := range []string{".mcpcode", ".mcpcode/privacy", ".mcpcode/audit"} {
		t.Run(link, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			writeFile(t, filepath.Join(root, "mcp.json"), `{"mcpServers":{},"privacy":{"mode":"tokenize"}}`)
			writeFile(t, filepath.Join(root, ".mcpcode", "manifest.json"), `{}`)
			target := filepath.Join(root, "workspace", "state")
			if err := os.MkdirAll(target, 0o755); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(root, filepath.FromSlash(link)))
			rel, _ := filepath.Rel(filepath.Dir(filepath.Join(root, filepath.FromSlash(link))), target)
			if err := os.Symlink(rel, filepath.Join(root, filepath.FromSlash(link))); err != nil {
				t.Fatal(err)
			}
			ws, err := (&App{}).Open(OpenOptions{Dir: root})
			if err != nil {
				if !strings.Contains(err.Error(), "symbolic link") || !strings.Contains(err.Error(), link) {
					t.Errorf("the error does not say what is wrong: %v", err)
				}
				return
			}
			// The first run reads a customer's address (tokenized on its
			// way out); the second reads what mcpcode keeps.
			read := `import { callMCPTool } from "mcpcode:runtime";
const r: any = await callMCPTool("crm", "get", {});
console.log(r.content[0].text);`
			if res, err := ws.Run(t.Context(), RunRequest{Source: []byte(read), Isolation: IsolationNone, Caller: piiCaller{}}); err != nil || !res.OK {
				t.Fatalf("the first run: %v %+v", err, res)
			}
			steal := `import * as fs from "mcpcode:fs";
const found: string[] = [];
async function walk(dir: string) {
  for (const e of await fs.readdir(dir)) {
    const p = dir ? dir + "/" + e : e;
    if (e.endsWith("/")) await walk(p.slice(0, -1));
    else found.push(p + " " + (await fs.readFile(p)).split("").join("|"));
  }
}
await walk("");
export default found;`
			res, err := ws.Run(t.Context(), RunRequest{Source: []byte(steal), Isolation: IsolationNone, Caller: piiCaller{}})
			if err != nil {
				t.Fatal(err)
			}
			spelled := "m|a|y|a|.|o|k|a|f|o|r|@" // the address, spelled out past the detector
			if strings.Contains(string(res.Result), spelled) {
				t.Errorf(".mcpcode through %s: a program read the token store's real values: %.300s", link, res.Result)
			}
			if strings.Contains(string(res.Result), ".jsonl ") {
				t.Errorf(".mcpcode through %s: a program reached the audit log: %.300s", link, res.Result)
			}
			t.Errorf(".mcpcode through %s: the workspace opened; the program got %.300s", link, res.Result)
		})
	}
}
