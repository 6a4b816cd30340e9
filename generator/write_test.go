package generator

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// workspace is a temp workspace with servers/ and .mcpcode/manifest.json.
type workspace struct {
	root, out, manifest string
}

func newWorkspace(t *testing.T) workspace {
	root := t.TempDir()
	return workspace{root, filepath.Join(root, "servers"), filepath.Join(root, ".mcpcode", "manifest.json")}
}

func tool(t testing.TB, name, description string, props map[string]any) json.RawMessage {
	return rawTool(t, name, description, map[string]any{"type": "object", "properties": props})
}

func driveServer(t testing.TB, tools ...json.RawMessage) Server {
	return Server{Name: "google-drive", Info: ServerInfo{Name: "gdrive", Version: "1.2.0"}, Instructions: "Use for Drive files.", Tools: tools}
}

func slackServer(t testing.TB) Server {
	return Server{Name: "slack", Info: ServerInfo{Version: "0.1"}, Tools: []json.RawMessage{
		tool(t, "post_message", "Posts.", map[string]any{"text": map[string]any{"type": "string"}}),
	}}
}

func (w workspace) generate(t *testing.T, servers []Server, opts Options) *Summary {
	t.Helper()
	plan, err := Generate(servers, opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Write(w.out, w.manifest, plan)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// snapshot returns every file under dir with its content.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return files
}

var pastTime = time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)

// ageAll sets the mtime of every file under dir to pastTime.
func ageAll(t *testing.T, dir string) {
	t.Helper()
	for rel := range snapshot(t, dir) {
		if err := os.Chtimes(filepath.Join(dir, rel), pastTime, pastTime); err != nil {
			t.Fatal(err)
		}
	}
}

// changedSince lists files under dir whose mtime is not pastTime.
func changedSince(t *testing.T, dir string) []string {
	t.Helper()
	var changed []string
	for rel := range snapshot(t, dir) {
		info, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !info.ModTime().Equal(pastTime) {
			changed = append(changed, rel)
		}
	}
	slices.Sort(changed)
	return changed
}

func TestWriteIdempotent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	servers := []Server{driveServer(t, tool(t, "get_document", "Gets.", nil)), slackServer(t)}
	first := w.generate(t, servers, Options{})
	if got := len(first.Servers[0].Files.Written); got != 2 {
		t.Errorf("first run wrote %d google-drive files, want 2 (tool + index)", got)
	}
	if !first.ManifestWritten {
		t.Error("first run did not write the manifest")
	}
	ageAll(t, w.root)
	second := w.generate(t, servers, Options{})
	if changed := changedSince(t, w.root); len(changed) != 0 {
		t.Errorf("second run with no change rewrote %v", changed)
	}
	if second.ManifestWritten {
		t.Error("second run rewrote an unchanged manifest")
	}
	for _, s := range second.Servers {
		if len(s.Files.Written)+len(s.Files.Removed) != 0 || len(s.ToolsUnchanged) != 1 {
			t.Errorf("server %s: second run summary %+v, want every tool and file unchanged", s.Name, s)
		}
	}
	if len(second.Root.Unchanged) != 3 {
		t.Errorf("root files unchanged = %v, want README.md, mcpcode.d.ts, tsconfig.json", second.Root.Unchanged)
	}
}

func TestWriteToolChanges(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	keep := tool(t, "get_document", "Gets.", nil)
	w.generate(t, []Server{driveServer(t, keep,
		tool(t, "delete_document", "Deletes.", nil),
		tool(t, "list_files", "Lists.", nil))}, Options{})
	if _, err := os.Stat(filepath.Join(w.out, "google-drive", "deleteDocument.ts")); err != nil {
		t.Fatal(err)
	}
	sum := w.generate(t, []Server{driveServer(t, keep,
		tool(t, "list_files", "Lists files, now with a query.", map[string]any{"q": map[string]any{"type": "string"}}),
		tool(t, "create_file", "Creates.", nil))}, Options{})

	if _, err := os.Stat(filepath.Join(w.out, "google-drive", "deleteDocument.ts")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file of a removed tool still exists (err %v)", err)
	}
	s := sum.Servers[0]
	for _, c := range []struct {
		what      string
		got, want []string
	}{
		{"tools added", s.ToolsAdded, []string{"create_file"}},
		{"tools changed", s.ToolsChanged, []string{"list_files"}},
		{"tools removed", s.ToolsRemoved, []string{"delete_document"}},
		{"tools unchanged", s.ToolsUnchanged, []string{"get_document"}},
		{"files written", s.Files.Written, []string{"google-drive/createFile.ts", "google-drive/index.ts", "google-drive/listFiles.ts"}},
		{"files removed", s.Files.Removed, []string{"google-drive/deleteDocument.ts"}},
		{"files unchanged", s.Files.Unchanged, []string{"google-drive/getDocument.ts"}},
	} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	m, err := ReadManifest(w.manifest)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Tool("google-drive", "delete_document"); ok {
		t.Error("manifest still lists the removed tool")
	}
	if _, ok := m.Tool("google-drive", "create_file"); !ok {
		t.Error("manifest does not list the added tool")
	}
}

func TestWriteKeepsUserFiles(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil)), slackServer(t)}, Options{})
	user := map[string]string{
		"notes.md":              "my notes\n",
		"google-drive/mine.ts":  "export const mine = 1;\n",
		"slack/scratch/todo.md": "todo\n",
	}
	for rel, content := range user {
		p := filepath.Join(w.out, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Regenerate without slack (removed from the config) and without the tool.
	sum := w.generate(t, []Server{driveServer(t)}, Options{})
	files := snapshot(t, w.out)
	for rel, content := range user {
		if files[rel] != content {
			t.Errorf("user file %s = %q, want %q untouched", rel, files[rel], content)
		}
	}
	if _, ok := files["slack/index.ts"]; ok {
		t.Error("generated file of a removed server survived")
	}
	var slack *ServerSummary
	for i := range sum.Servers {
		if sum.Servers[i].Name == "slack" {
			slack = &sum.Servers[i]
		}
	}
	if slack == nil || !slack.Removed || !slices.Equal(slack.ToolsRemoved, []string{"post_message"}) {
		t.Errorf("summary of the removed server = %+v, want Removed with its tool", slack)
	}
}

func TestWriteRemovesEmptyDirs(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil)), slackServer(t)}, Options{})
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil))}, Options{})
	if _, err := os.Stat(filepath.Join(w.out, "slack")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("empty directory of a removed server survived (err %v)", err)
	}
}

func TestWriteRefusesUserFileAtGeneratedPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		content string
		wantErr bool
	}{
		{"different content is refused", "# my own readme\n", true},
		{"identical content is adopted", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			plan, err := Generate([]Server{driveServer(t, tool(t, "get_document", "Gets.", nil))}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			content := c.content
			if content == "" {
				content = string(plan.Files[slices.IndexFunc(plan.Files, func(f File) bool { return f.Path == readmeFile })].Content)
			}
			if err := os.MkdirAll(w.out, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(w.out, readmeFile), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err = Write(w.out, w.manifest, plan)
			if (err != nil) != c.wantErr {
				t.Fatalf("Write error = %v, want error %v", err, c.wantErr)
			}
			files := snapshot(t, w.out)
			if files[readmeFile] != content && c.wantErr {
				t.Error("the user's README.md was overwritten")
			}
			if c.wantErr {
				if err == nil || !strings.Contains(err.Error(), "refusing to overwrite") {
					t.Errorf("error %v does not say it refuses to overwrite", err)
				}
				if len(files) != 1 {
					t.Errorf("a refused write still wrote files: %v", slices.Sorted(mapsKeys(files)))
				}
			}
		})
	}
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func TestWriteKeptServerSurvives(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil)), slackServer(t)}, Options{})
	before := snapshot(t, filepath.Join(w.out, "slack"))
	prev, err := ReadManifest(w.manifest)
	if err != nil {
		t.Fatal(err)
	}
	prevSlack, _ := prev.Server("slack")

	// slack failed to list this time: keep it; google-drive changed.
	ageAll(t, w.root)
	sum := w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets more.", nil))}, Options{Kept: prev.Keep("slack")})
	after := snapshot(t, filepath.Join(w.out, "slack"))
	if len(before) == 0 || !mapsEqual(before, after) {
		t.Errorf("kept server's directory changed:\nbefore %v\nafter  %v", before, after)
	}
	for _, rel := range changedSince(t, w.root) {
		if strings.HasPrefix(rel, "servers/slack/") {
			t.Errorf("kept server's file %s was rewritten", rel)
		}
	}
	m, err := ReadManifest(w.manifest)
	if err != nil {
		t.Fatal(err)
	}
	slack, ok := m.Server("slack")
	if !ok {
		t.Fatal("kept server missing from the new manifest")
	}
	a, _ := json.Marshal(prevSlack)
	b, _ := json.Marshal(slack)
	if !bytes.Equal(a, b) {
		t.Errorf("kept server's manifest entry changed:\n%s\n%s", a, b)
	}
	readme, _ := os.ReadFile(filepath.Join(w.out, readmeFile))
	if !strings.Contains(string(readme), "`slack/`") {
		t.Errorf("README.md does not list the kept server:\n%s", readme)
	}
	for _, s := range sum.Servers {
		if s.Name == "slack" && (!s.Kept || len(s.ToolsUnchanged) != 1 || len(s.Files.Written) != 0) {
			t.Errorf("summary of the kept server = %+v", s)
		}
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}

func TestWriteLeavesNoTempFiles(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil)), slackServer(t)}, Options{})
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets again.", nil))}, Options{})
	for rel := range snapshot(t, w.root) {
		if strings.Contains(filepath.Base(rel), ".tmp-") {
			t.Errorf("temp file left behind: %s", rel)
		}
	}
}

func TestWriteRefusesSymlinkedServerDir(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	outside := filepath.Join(w.root, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(w.out, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.out, "google-drive")); err != nil {
		t.Fatal(err)
	}
	plan, err := Generate([]Server{driveServer(t, tool(t, "get_document", "Gets.", nil))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(w.out, w.manifest, plan); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("Write through a symlinked server dir: error %v, want a refusal naming the symlink", err)
	}
	if files := snapshot(t, outside); len(files) != 0 {
		t.Errorf("files written through the symlink: %v", files)
	}
}

func TestWriteIgnoresUnsafeManifestPaths(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	victim := filepath.Join(w.root, "victim.txt")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	evil := Manifest{Version: ManifestVersion, Files: []string{"../victim.txt", "/etc/hostname", "a/../../victim.txt"}}
	if err := os.MkdirAll(filepath.Dir(w.manifest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.manifest, evil.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	w.generate(t, []Server{slackServer(t)}, Options{})
	if data, err := os.ReadFile(victim); err != nil || string(data) != "keep me" {
		t.Errorf("a file outside the out dir listed in a hand-edited manifest was touched (err %v)", err)
	}
}

func TestWriteRejectsCorruptManifest(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if err := os.MkdirAll(filepath.Dir(w.manifest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(w.manifest, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := Generate([]Server{slackServer(t)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(w.out, w.manifest, plan); err == nil || !strings.Contains(err.Error(), "delete it") {
		t.Errorf("Write with a corrupt manifest: error %v, want one that says what to do", err)
	}
}

func TestWriteRemovalDoesNotFollowSymlinks(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil)), slackServer(t)}, Options{})
	// The user swaps the generated slack directory for a symlink to files
	// that happen to have the generated names.
	outside := filepath.Join(w.root, "outside")
	if err := os.Rename(filepath.Join(w.out, "slack"), outside); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(w.out, "slack")); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, outside)
	w.generate(t, []Server{driveServer(t, tool(t, "get_document", "Gets.", nil))}, Options{})
	if after := snapshot(t, outside); len(before) == 0 || !mapsEqual(before, after) {
		t.Errorf("removal followed a symlink: before %v, after %v", before, after)
	}
}

// TestWriteWithKnownManifest: WriteWith, given the manifest on disk, does
// what Write does (a rerun writes nothing; a removed tool's file goes).
func TestWriteWithKnownManifest(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	a, b := tool(t, "get_document", "Gets.", nil), tool(t, "list_documents", "Lists.", nil)
	plan, err := Generate([]Server{driveServer(t, a, b)}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := WriteWith(w.out, w.manifest, nil, plan); err != nil {
		t.Fatal(err)
	}
	prev, err := ReadManifest(w.manifest)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := WriteWith(w.out, w.manifest, prev, plan)
	if err != nil || sum.ManifestWritten || len(sum.Servers[0].Files.Written) != 0 {
		t.Fatalf("rerun: %v, %+v", err, sum)
	}
	smaller, err := Generate([]Server{driveServer(t, a)}, Options{Previous: prev})
	if err != nil {
		t.Fatal(err)
	}
	sum, err = WriteWith(w.out, w.manifest, prev, smaller)
	if err != nil || !slices.Equal(sum.Servers[0].Files.Removed, []string{"google-drive/listDocuments.ts"}) || !slices.Equal(sum.Servers[0].ToolsRemoved, []string{"list_documents"}) {
		t.Fatalf("a tool removed: %v, %+v", err, sum)
	}
	if _, err := os.Stat(filepath.Join(w.out, "google-drive", "listDocuments.ts")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the removed tool's file is still there: %v", err)
	}
}
