package cli

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
)

// benchGen runs `mcpcode gen` in-process against fake upstreams serving the
// given tools, into a fresh workspace each time (a first generation), and
// reports the size of the tree against the raw tool definitions.
func benchGen(b *testing.B, upstreams map[string][]json.RawMessage) {
	raw := 0
	var names []string
	for n, tools := range upstreams {
		names = append(names, n)
		for _, t := range tools {
			raw += len(t)
		}
	}
	var tree int64
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		ta := newTestApp(&testing.T{})
		for n, tools := range upstreams {
			ta.fakes.set(n, &mcptest.RawServer{Name: n, Version: "1.0.0", Tools: tools, PageSize: 100})
		}
		ws := b.TempDir()
		cfg := writeConfigB(b, ws, names...)
		b.StartTimer()
		if code := ta.run("gen", "--config", cfg); code != 0 {
			b.Fatalf("gen exit %d: %s", code, ta.stderr)
		}
		b.StopTimer()
		tree = treeSize(b, filepath.Join(ws, "servers"))
		ta.cancel()
		b.StartTimer()
	}
	b.ReportMetric(float64(raw), "raw-bytes")
	b.ReportMetric(float64(tree), "tree-bytes")
	b.ReportMetric(float64(tree)/float64(raw), "tree/raw")
}

func writeConfigB(b *testing.B, dir string, names ...string) string {
	t := &testing.T{}
	p := writeConfig(t, dir, names...)
	if t.Failed() {
		b.Fatal("writing the config failed")
	}
	return p
}

func treeSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		n += info.Size()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkGenCorpus generates the trees of all 16 captured real servers,
// listed from in-process upstreams.
func BenchmarkGenCorpus(b *testing.B) {
	ups := map[string][]json.RawMessage{}
	for _, n := range corpusNames(b) {
		ups[n] = corpusTools(b, n)
	}
	benchGen(b, ups)
}

// BenchmarkGen10kTools generates one upstream of 10,000 tools: the corpus
// tools cycled with unique names.
func BenchmarkGen10kTools(b *testing.B) {
	benchGen(b, map[string][]json.RawMessage{"big": tools10k(b)})
}

// BenchmarkGen10kToolsRerun runs gen again in a workspace generated from
// the same 10,000 tools: nothing changed, so it must write no file (and
// should take less than a first generation).
func BenchmarkGen10kToolsRerun(b *testing.B) {
	ta := newTestApp(&testing.T{})
	ta.fakes.set("big", &mcptest.RawServer{Name: "big", Version: "1.0.0", Tools: tools10k(b), PageSize: 100})
	ws := b.TempDir()
	cfg := writeConfigB(b, ws, "big")
	if code := ta.run("gen", "--config", cfg); code != 0 {
		b.Fatalf("gen exit %d: %s", code, ta.stderr)
	}
	b.ReportAllocs()
	for b.Loop() {
		ta.stdout.buf.Reset()
		if code := ta.run("gen", "--config", cfg, "--json"); code != 0 {
			b.Fatalf("gen exit %d: %s", code, ta.stderr)
		}
		b.StopTimer()
		var rep struct {
			Root    struct{ Written []string }
			Servers []struct {
				Written []string `json:"filesWritten"`
			}
		}
		if err := json.Unmarshal([]byte(ta.stdout.String()), &rep); err != nil || len(rep.Servers) != 1 || len(rep.Servers[0].Written)+len(rep.Root.Written) != 0 {
			b.Fatalf("the rerun wrote files (or its report is unreadable: %v): %.300s", err, ta.stdout.String())
		}
		b.StartTimer()
	}
	ta.cancel()
}

// tools10k returns 10,000 tools: the corpus tools cycled with unique names.
func tools10k(b *testing.B) []json.RawMessage {
	var all []json.RawMessage
	for _, n := range corpusNames(b) {
		all = append(all, corpusTools(b, n)...)
	}
	tools := make([]json.RawMessage, 10000)
	for i := range tools {
		var t map[string]json.RawMessage
		if err := json.Unmarshal(all[i%len(all)], &t); err != nil {
			b.Fatal(err)
		}
		var name string
		_ = json.Unmarshal(t["name"], &name)
		t["name"], _ = json.Marshal(fmt.Sprintf("%s_%d", name, i))
		data, _ := json.Marshal(t)
		tools[i] = data
	}
	return tools
}
