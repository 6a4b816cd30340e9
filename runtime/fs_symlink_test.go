package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFilesFolderAsASymlinkIsRefused: workspace/ that is itself a
// symbolic link (a cloned repository can hold one) is not followed by
// mcpcode:fs. Followed, "workspace -> ." would hand a program mcp.json
// and .mcpcode/ (the privacy token store with the real values, the audit
// log it could forge, the digest key), and "workspace -> /" the disk:
// os.Root confines a program to what the link leads to, not to the
// workspace.
func TestFilesFolderAsASymlinkIsRefused(t *testing.T) {
	t.Parallel()
	for _, target := range []string{".", ".mcpcode", "outside", "dangling"} {
		t.Run(target, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, map[string]string{
				"mcp.json":                     `{"mcpServers":{},"secret":"SECRET-CONFIG"}`,
				".mcpcode/privacy/tokens.json": `{"entries":[{"value":"SECRET-VALUE"}]}`,
			})
			dest := target
			if target == "dangling" {
				dest = filepath.Join(t.TempDir(), "later")
			}
			if target == "outside" {
				dest = t.TempDir()
				os.WriteFile(filepath.Join(dest, "secret.txt"), []byte("SECRET-OUTSIDE"), 0o644)
			}
			if err := os.RemoveAll(filepath.Join(ws, "workspace")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(dest, filepath.Join(ws, "workspace")); err != nil {
				t.Fatal(err)
			}
			src := `import * as fs from "mcpcode:fs";
const out: string[] = [];
for (const f of [() => fs.readFile("mcp.json"), () => fs.readFile("privacy/tokens.json"), () => fs.readFile("secret.txt"),
                 () => fs.readdir(""), () => fs.writeFile("forged.jsonl", "x"), () => fs.exists("mcp.json")]) {
  try { out.push(JSON.stringify(await f())); } catch (e) { out.push("error: " + e.message); }
}
export default out;`
			res := runSource(t, src, RunOptions{Workspace: ws})
			mustOK(t, res)
			var got []string
			if err := json.Unmarshal(res.Result, &got); err != nil {
				t.Fatal(err)
			}
			for _, g := range got {
				if strings.Contains(g, "SECRET") || !strings.HasPrefix(g, "error: ") && (strings.Contains(g, "mcp.json") || strings.Contains(g, "privacy")) {
					t.Errorf("workspace -> %s: a program got %s", target, g)
				}
				if !strings.HasPrefix(g, "error: ") || !strings.Contains(g, "symbolic link") {
					t.Errorf("workspace -> %s: %s, want an error that says workspace/ is a symbolic link", target, g)
				}
				if strings.Contains(g, ws) {
					t.Errorf("workspace -> %s: the error names the host's path: %s", target, g)
				}
			}
			if _, err := os.Lstat(filepath.Join(ws, "forged.jsonl")); err == nil {
				t.Errorf("workspace -> %s: a program wrote beside mcp.json", target)
			}
			if _, err := os.Stat(filepath.Join(dest, "forged.jsonl")); target != "." && target != ".mcpcode" && err == nil {
				t.Errorf("workspace -> %s: a program wrote through the link", target)
			}
			if _, err := os.Lstat(filepath.Join(ws, ".mcpcode", "forged.jsonl")); err == nil {
				t.Errorf("workspace -> %s: a program wrote into .mcpcode", target)
			}
		})
	}
}
