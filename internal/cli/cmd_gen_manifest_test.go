package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
)

// TestGenCorruptManifest: the manifest is decoded while the servers are
// listed; one that cannot be read still fails gen with what to do, and
// nothing is written.
func TestGenCorruptManifest(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ws := t.TempDir()
	cfg := writeConfig(t, ws, "slack")
	ta.fakes.set("slack", &mcptest.RawServer{Name: "slack", Version: "1", Tools: corpusTools(t, "slack")})
	if code := ta.run("gen", "--config", cfg); code != 0 {
		t.Fatalf("gen: exit %d\n%s", code, ta.stderr)
	}
	manifest := filepath.Join(ws, ".mcpcode", "manifest.json")
	if err := os.WriteFile(manifest, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	readme := filepath.Join(ws, "servers", "README.md")
	if err := os.Remove(readme); err != nil {
		t.Fatal(err)
	}
	ta.stderr.buf.Reset()
	if code := ta.run("gen", "--config", cfg); code == 0 {
		t.Fatal("gen over a corrupt manifest succeeded")
	}
	if !strings.Contains(ta.stderr.String(), "not valid JSON") || !strings.Contains(ta.stderr.String(), "delete it") {
		t.Errorf("stderr does not say the manifest is unreadable and what to do:\n%s", ta.stderr)
	}
	if _, err := os.Stat(readme); err == nil {
		t.Error("gen wrote files over a corrupt manifest")
	}
	if b, _ := os.ReadFile(manifest); string(b) != "{not json" {
		t.Errorf("the corrupt manifest was replaced: %q", b)
	}
}
