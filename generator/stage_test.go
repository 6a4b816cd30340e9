package generator

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// planFiles is a plan's files as path → content.
func planFiles(p *Plan) map[string]string {
	m := map[string]string{}
	for _, f := range p.Files {
		m[f.Path] = string(f.Content)
	}
	return m
}

// TestWriteStagesNewServerDir: a server directory that does not exist is
// built in a staging directory and renamed into place: the tree is the
// plan's, nothing of the staging is left (a leftover of an interrupted run
// included), and a second run writes nothing.
func TestWriteStagesNewServerDir(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	leftover := filepath.Join(w.out, stagingPrefix+"google-drive")
	if err := os.MkdirAll(leftover, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(leftover, "stale.ts"), []byte("// from an interrupted run\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := []Server{driveServer(t, tool(t, "get_document", "Gets.", nil), tool(t, "list_files", "Lists.", nil)), slackServer(t)}
	plan, err := Generate(servers, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	sum, err := write(w.out, w.manifest, nil, plan, func(rel string) { order = append(order, rel) })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := snapshot(t, w.out), planFiles(plan); !maps.Equal(got, want) {
		t.Errorf("tree %v, want the plan's %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(want)))
	}
	if !slices.Contains(order, "google-drive") || !slices.Contains(order, "slack") {
		t.Errorf("the new server directories were not staged (changes %v)", order)
	}
	if len(sum.Servers) == 0 {
		t.Error("no summary")
	}
	again, err := Generate(servers, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var changed []string
	if _, err := write(w.out, w.manifest, nil, again, func(rel string) { changed = append(changed, rel) }); err != nil {
		t.Fatal(err)
	}
	if len(changed) != 0 {
		t.Errorf("a second run changed %v", changed)
	}
}

// TestWriteStagedDirIsAllOrNothing: when staging fails, or something
// appears where the new directory goes, the directory does not appear (or
// what appeared is left alone), and no staging directory is left.
func TestWriteStagedDirIsAllOrNothing(t *testing.T) {
	t.Parallel()
	plan, err := Generate([]Server{driveServer(t, tool(t, "get_document", "Gets.", nil), tool(t, "list_files", "Lists.", nil))}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("staging fails half way", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t)
		n := 0
		_, err := write(w.out, w.manifest, nil, plan, func(rel string) {
			if strings.HasPrefix(rel, "google-drive/") {
				if n++; n == 2 {
					// The staging directory vanishes under the writer.
					_ = os.RemoveAll(filepath.Join(w.out, stagingPrefix+"google-drive"))
				}
			}
		})
		if err == nil {
			t.Fatal("Write succeeded although its staging directory vanished")
		}
		if files := snapshot(t, w.out); len(files) != 0 {
			t.Errorf("files visible after a failed staging: %v", slices.Sorted(maps.Keys(files)))
		}
	})
	t.Run("a directory appears", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t)
		_, err := write(w.out, w.manifest, nil, plan, func(rel string) {
			if rel == "google-drive" {
				_ = os.MkdirAll(filepath.Join(w.out, "google-drive"), 0o755)
				_ = os.WriteFile(filepath.Join(w.out, "google-drive", "mine.txt"), []byte("user file"), 0o644)
			}
		})
		if err == nil || !strings.Contains(err.Error(), "appeared") {
			t.Fatalf("error %v, want a refusal to replace what appeared", err)
		}
		if files := snapshot(t, w.out); !maps.Equal(files, map[string]string{"google-drive/mine.txt": "user file"}) {
			t.Errorf("out dir %v, want only the user's file", files)
		}
	})
	t.Run("a symlink appears", func(t *testing.T) {
		t.Parallel()
		w := newWorkspace(t)
		outside := filepath.Join(w.root, "outside")
		if err := os.Mkdir(outside, 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := write(w.out, w.manifest, nil, plan, func(rel string) {
			if rel == "google-drive" {
				_ = os.Symlink(outside, filepath.Join(w.out, "google-drive"))
			}
		})
		if err == nil || !strings.Contains(err.Error(), "symlink") {
			t.Fatalf("error %v, want a refusal that names the symlink", err)
		}
		if files := snapshot(t, outside); len(files) != 0 {
			t.Errorf("files written through the symlink: %v", files)
		}
	})
}

// BenchmarkWrite10kTools writes the plan of one upstream of 10,000 tools
// (the corpus cycled, as in BenchmarkGenerate10kTools) into a fresh out dir:
// a first generation, staged; then rewrites it unchanged, which writes no
// file (rerun-ns/op).
func BenchmarkWrite10kTools(b *testing.B) {
	var pool []json.RawMessage
	for _, s := range corpusServers(b) {
		pool = append(pool, s.Tools...)
	}
	tools := make([]json.RawMessage, 10000)
	for i := range tools {
		var t map[string]json.RawMessage
		if err := json.Unmarshal(pool[i%len(pool)], &t); err != nil {
			b.Fatal(err)
		}
		t["name"], _ = json.Marshal(fmt.Sprintf("tool_%d", i))
		tools[i], _ = json.Marshal(t)
	}
	plan, err := Generate([]Server{{Name: "big", Info: ServerInfo{Version: "1.0.0"}, Tools: tools}}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	var rerun time.Duration
	for b.Loop() {
		b.StopTimer()
		root := b.TempDir()
		out, manifest := filepath.Join(root, "servers"), filepath.Join(root, ".mcpcode", "manifest.json")
		b.StartTimer()
		if _, err := Write(out, manifest, plan); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		start := time.Now()
		sum, err := Write(out, manifest, plan)
		rerun += time.Since(start)
		if err != nil || sum.ManifestWritten {
			b.Fatalf("rerun: %v, manifest written %v", err, sum != nil && sum.ManifestWritten)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(rerun.Nanoseconds())/float64(b.N), "rerun-ns/op")
}
