package app

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpcode/mcpcode/skills"
)

// treeSecrets is what an agent must never see through ReadTree: the
// servers' configuration with its tokens, mcpcode's state, a pending and a
// dismissed proposal, and a file of the files folder.
var treeSecrets = map[string]string{
	"mcp.json":                                `{"mcpServers":{"crm":{"type":"http","url":"https://x.test","headers":{"Authorization":"Bearer SECRET-CONFIG"}}}}`,
	".mcpcode/manifest.json":                  `{"secret":"SECRET-STATE"}`,
	"skills/.proposals/evil/index.ts":         `export default async () => "SECRET-PENDING";`,
	"skills/.proposals/evil/proposal.json":    `{"name":"evil","rationale":"SECRET-PENDING-RECORD"}`,
	"skills/.dismissed/old/index.ts":          `export default async () => "SECRET-DISMISSED";`,
	"workspace/customers.csv":                 "name,email\nSECRET-FILES,a@example.test\n",
	"servers/README.md":                       "# servers\n",
	"servers/crm/getLead.ts":                  "export async function getLead() {}\n",
	"skills/pending-orders/SKILL.md":          "---\nname: pending-orders\ndescription: Lists orders.\n---\n",
	"skills/pending-orders/index.ts":          "export default async () => 1;\n",
	"skills/pending-orders/input.schema.json": `{"type":"object"}`,
}

// treeAttackWorkspace is a workspace holding treeSecrets.
func treeAttackWorkspace(t *testing.T) *Workspace {
	t.Helper()
	root := t.TempDir()
	const manifest = ".mcpcode/manifest.json" // written after the approval, which reads the real one
	for name, content := range treeSecrets {
		if name != manifest {
			writeFile(t, filepath.Join(root, filepath.FromSlash(name)), content)
		}
	}
	ws := openDir(t, &App{}, root)
	approveLaidOut(t, ws, "pending-orders")
	writeFile(t, filepath.Join(root, filepath.FromSlash(manifest)), treeSecrets[manifest])
	return ws
}

// approveLaidOut approves the skill laid out in skills/<name> as a person
// would after reading its card.
func approveLaidOut(t *testing.T, ws *Workspace, name string) {
	t.Helper()
	card, err := ws.ShowSkill(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ApproveSkill(name, skills.ApproveOptions{SHA256: card.SHA256, ApprovedBy: "test"}); err != nil {
		t.Fatal(err)
	}
}

// leaks reports the secret a read returned, or "".
func leaks(content []byte, entries []TreeEntry) string {
	text := string(content)
	for _, e := range entries {
		text += "\n" + e.Name
	}
	for _, s := range []string{"SECRET-CONFIG", "SECRET-STATE", "SECRET-PENDING", "SECRET-DISMISSED", "SECRET-FILES", "proposal.json", "evil"} {
		if strings.Contains(text, s) {
			return s
		}
	}
	return ""
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}

// TestReadTreeRefusesSymlinks: a symlink inside servers/ or skills/ is
// never followed by ReadTree, whether it leads outside its part (os.Root
// refuses that) or, inside skills/, to a pending or dismissed proposal,
// which the lexical check of the path cannot see. Nothing in a workspace
// needs one: gen and approval write plain files.
func TestReadTreeRefusesSymlinks(t *testing.T) {
	t.Parallel()
	ws := treeAttackWorkspace(t)
	root := ws.Root
	// The plain files read, before any link is made.
	if content, _, err := ws.ReadTree("skills/pending-orders/index.ts"); err != nil || !strings.Contains(string(content), "export default") {
		t.Fatalf("a plain skill file does not read: %v %q", err, content)
	}
	links := map[string]string{
		// inside skills/, to hidden entries: os.Root allows these
		"skills/evil":                     ".proposals/evil",
		"skills/old":                      ".dismissed/old",
		"skills/pending-orders/helper.ts": "../.proposals/evil/index.ts",
		"skills/pending-orders/record":    "../.proposals/evil/proposal.json",
		"skills/pending-orders/drafts":    "../.proposals",
		// out of their part: os.Root refuses these
		"servers/config.json":     "../mcp.json",
		"servers/state":           "../.mcpcode",
		"servers/files":           filepath.Join(root, "workspace"),
		"servers/pending":         "../skills/.proposals/evil",
		"skills/pending-orders/c": "../../mcp.json",
	}
	for link, target := range links {
		symlink(t, target, filepath.Join(root, filepath.FromSlash(link)))
	}
	reads := []string{
		"skills/evil", "skills/evil/index.ts", "skills/evil/proposal.json",
		"skills/old/index.ts",
		"skills/pending-orders/helper.ts", "skills/pending-orders/record",
		"skills/pending-orders/drafts", "skills/pending-orders/drafts/evil/index.ts",
		"servers/config.json", "servers/state/manifest.json", "servers/files/customers.csv",
		"servers/pending/index.ts", "skills/pending-orders/c",
	}
	for _, p := range reads {
		content, entries, err := ws.ReadTree(p)
		if err == nil {
			t.Errorf("ReadTree(%q) followed a symlink: %q %v", p, content, entries)
			continue
		}
		if s := leaks(content, entries); s != "" {
			t.Errorf("ReadTree(%q) returned %s along with its error", p, s)
		}
	}
	// Listings leave the links out or show them as what they are, never
	// with a target's content.
	for _, p := range []string{"skills", "skills/pending-orders", "servers"} {
		content, entries, err := ws.ReadTree(p)
		if err != nil && p == "skills/pending-orders" && strings.Contains(err.Error(), "not an approved skill") {
			continue // links in its folder: it no longer matches its approval
		}
		if err != nil {
			t.Fatalf("ReadTree(%q): %v", p, err)
		}
		for _, e := range entries {
			if e.Dir && (e.Name == "evil" || e.Name == "old" || e.Name == "drafts" || e.Name == "state" || e.Name == "files" || e.Name == "pending") {
				t.Errorf("ReadTree(%q) lists the symlink %s as a directory to open", p, e.Name)
			}
		}
		_ = content
	}
	files, err := ws.TreeFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if _, ok := links[f]; ok {
			t.Errorf("TreeFiles offers the symlink %s", f)
		}
	}
	// The plain files of the tree still read.
	if content, _, err := ws.ReadTree("servers/crm/getLead.ts"); err != nil || !strings.Contains(string(content), "getLead") {
		t.Errorf("a plain file of the tree no longer reads: %v %q", err, content)
	}
}

// TestReadTreeRefusesSpecialFiles: a named pipe (or any file that is not a
// regular file or a directory) inside the tree is refused, not opened: an
// open of a FIFO blocks until a writer comes, which would hang the
// gateway's read handler.
func TestReadTreeRefusesSpecialFiles(t *testing.T) {
	t.Parallel()
	ws := treeAttackWorkspace(t)
	fifo := filepath.Join(ws.Root, "servers", "crm", "pipe.ts")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	err := within(t, "reading a named pipe", func() error {
		_, _, err := ws.ReadTree("servers/crm/pipe.ts")
		return err
	})
	if err == nil {
		t.Error("ReadTree read a named pipe")
	}
}

// TestReadTreePathTricks: spellings of paths that try to leave servers/
// and approved skills/ are refused without reading anything, and errors
// never name the host's directories.
func TestReadTreePathTricks(t *testing.T) {
	t.Parallel()
	ws := treeAttackWorkspace(t)
	bad := []string{
		"", ".", "/", "./", "mcp.json", "./mcp.json", ".mcp.json", "/etc/passwd",
		ws.Root + "/mcp.json", "servers/../mcp.json", "servers/./../mcp.json", "servers//../mcp.json",
		"skills/../mcp.json", "skills/.proposals", "skills/.proposals/evil/index.ts",
		"skills/.dismissed/old/index.ts", "skills/pending-orders/../.proposals/evil/index.ts",
		"skills/.Proposals/evil/index.ts", "Servers/README.md", "SKILLS/pending-orders/index.ts",
		".mcpcode/manifest.json", "workspace/customers.csv", "servers\\..\\mcp.json",
		"servers/..\\mcp.json", "servers/README.md\x00", "servers/\x00/../mcp.json",
		"servers%2f..%2fmcp.json", "servers/%2e%2e/mcp.json", "servers/..%2fmcp.json",
		"servers/" + strings.Repeat("a/", 5000) + "x.ts", "servers/" + strings.Repeat("x", 100000),
		"skills/pending-orders/.hidden", "servers/.", "servers/..", "./servers/../mcp.json",
	}
	for _, p := range bad {
		content, entries, err := ws.ReadTree(p)
		if err == nil && entries == nil {
			t.Errorf("ReadTree(%.80q) read a file: %.80q", p, content)
			continue
		}
		if err == nil && p != "." {
			t.Errorf("ReadTree(%.80q) listed %v", p, entries)
		}
		if s := leaks(content, entries); s != "" {
			t.Errorf("ReadTree(%.80q) leaked %s", p, s)
		}
		if err != nil && !strings.Contains(p, ws.Root) && strings.Contains(err.Error(), ws.Root) {
			t.Errorf("ReadTree(%.80q): the error names the workspace's path: %v", p, err)
		}
	}
}

// TestReadTreeErrorsHideHostPaths: when servers/ or skills/ is not a
// directory, the error says so without the host's path to the workspace.
func TestReadTreeErrorsHideHostPaths(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "servers"), "not a directory")
	writeFile(t, filepath.Join(root, "skills"), "not a directory")
	ws := openDir(t, &App{}, root)
	for _, p := range []string{"servers/README.md", "skills/x/SKILL.md", "servers"} {
		_, _, err := ws.ReadTree(p)
		if err == nil {
			t.Errorf("ReadTree(%q) succeeded", p)
			continue
		}
		if strings.Contains(err.Error(), root) {
			t.Errorf("ReadTree(%q): the error names the workspace's path: %v", p, err)
		}
	}
}

// TestReadTreeOnlyApprovedSkills: a directory in skills/ without a
// SKILL.md is not an approved skill (approval writes SKILL.md last, so an
// approval that stopped half-way leaves the proposal's program there), so
// neither read, nor the listing of skills/, nor TreeFiles shows it.
func TestReadTreeOnlyApprovedSkills(t *testing.T) {
	t.Parallel()
	ws := treeAttackWorkspace(t)
	writeFile(t, filepath.Join(ws.Root, "skills", "half", "index.ts"), `export default async () => "SECRET-PENDING";`)
	writeFile(t, filepath.Join(ws.Root, "skills", "README.md"), "# Skills\n")
	for _, p := range []string{"skills/half", "skills/half/index.ts"} {
		if content, entries, err := ws.ReadTree(p); err == nil {
			t.Errorf("ReadTree(%q) read a skill that is not approved: %q %v", p, content, entries)
		}
	}
	_, entries, err := ws.ReadTree("skills")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "README.md,pending-orders" {
		t.Errorf("skills/ lists %v, want README.md and the approved skill", names)
	}
	files, err := ws.TreeFiles()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasPrefix(f, "skills/half/") {
			t.Errorf("TreeFiles offers %s", f)
		}
	}
	if content, _, err := ws.ReadTree("skills/README.md"); err != nil || string(content) != "# Skills\n" {
		t.Errorf("skills/README.md: %v %q", err, content)
	}
}

// TestReadRefusesServersAndSkillsAsSymlinks: when servers/ or skills/
// itself is a symbolic link, read and the resources do not follow it out
// of the workspace.
func TestReadRefusesServersAndSkillsAsSymlinks(t *testing.T) {
	t.Parallel()
	for _, part := range []string{"servers", "skills"} {
		root := t.TempDir()
		outside := t.TempDir()
		os.WriteFile(filepath.Join(root, "mcp.json"), []byte(`{"mcpServers":{}}`), 0o644)
		os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET"), 0o644)
		os.MkdirAll(filepath.Join(outside, "x"), 0o755)
		os.WriteFile(filepath.Join(outside, "x", "SKILL.md"), []byte("---\nname: x\ndescription: d\n---\n"), 0o644)
		os.WriteFile(filepath.Join(outside, "x", "secret.txt"), []byte("SECRET"), 0o644)
		if err := os.Symlink(outside, filepath.Join(root, part)); err != nil {
			t.Fatal(err)
		}
		ws := openDir(t, &App{}, root)
		for _, p := range []string{part + "/secret.txt", part + "/x/secret.txt", part} {
			content, entries, err := ws.ReadTree(p)
			if err == nil || strings.Contains(string(content), "SECRET") {
				t.Errorf("%s as a symlink: read %s gave %q %v, %v", part, p, content, entries, err)
			} else if !strings.Contains(err.Error(), "symbolic link") {
				t.Errorf("%s as a symlink: read %s: the error does not say why: %v", part, p, err)
			}
		}
		files, err := ws.TreeFiles()
		if err != nil || len(files) != 0 {
			t.Errorf("%s as a symlink: resources %q, %v", part, files, err)
		}
	}
}

// TestSearchRefusesServersAsASymlink: search reads the tree as read does.
func TestSearchRefusesServersAsASymlink(t *testing.T) {
	t.Parallel()
	w := searchCatalog(t)
	outside := filepath.Join(t.TempDir(), "tree")
	if err := os.Rename(filepath.Join(w.Root, "servers"), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.Root, "servers")); err != nil {
		t.Fatal(err)
	}
	hits, err := w.SearchTools("spreadsheet rows", 2, true)
	if err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("search through servers/ as a symlink: %d hits, %v", len(hits), err)
	}
}
