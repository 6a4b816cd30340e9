package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/internal/mcptest"
	"github.com/mcpcode/mcpcode/servers"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a command
// and the reads of a test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// fakeUpstreams serves in-process raw servers to an app in place of the
// configured transports. A server mapped to nil fails to connect.
type fakeUpstreams struct {
	mu      sync.Mutex
	servers map[string]*mcptest.RawServer
}

func (f *fakeUpstreams) set(name string, s *mcptest.RawServer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.servers[name] = s
}

func (f *fakeUpstreams) dial(ctx context.Context, cfg servers.ServerConfig) (mcp.Transport, error) {
	f.mu.Lock()
	srv := f.servers[cfg.Name]
	f.mu.Unlock()
	if srv == nil {
		return nil, fmt.Errorf("fake upstream %q is down", cfg.Name)
	}
	ct, st := mcp.NewInMemoryTransports()
	go func() { _ = srv.Serve(context.WithoutCancel(ctx), st) }()
	return ct, nil
}

// testApp is the CLI in-process, with its output captured and its upstream
// servers faked.
type testApp struct {
	*cli
	stdout, stderr *syncBuffer
	fakes          *fakeUpstreams
	cancel         context.CancelFunc
}

func newTestApp(t *testing.T) *testApp {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ta := &testApp{stdout: &syncBuffer{}, stderr: &syncBuffer{}, fakes: &fakeUpstreams{servers: map[string]*mcptest.RawServer{}}, cancel: cancel}
	ta.cli = &cli{ctx: ctx, stdin: strings.NewReader(""), stdout: ta.stdout, stderr: ta.stderr,
		app: &app.App{Environ: os.Environ(), Version: "test", Dial: ta.fakes.dial, WorkerCommand: testWorkerCommand}}
	t.Cleanup(func() { ta.cli.app.Close() })
	return ta
}

// run runs one command and returns its exit code.
func (ta *testApp) run(args ...string) int { return ta.dispatch(args) }

// corpusTools reads a captured tools/list array from the generator's copy
// of the corpus, element by element, bytes untouched.
func corpusTools(t testing.TB, name string) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(moduleRoot(t), "generator", "testdata", "corpus", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tools []json.RawMessage
	if err := json.Unmarshal(data, &tools); err != nil {
		t.Fatal(err)
	}
	return tools
}

// corpusNames lists the servers of the corpus.
func corpusNames(t testing.TB) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(moduleRoot(t), "generator", "testdata", "corpus", "*.json"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	var names []string
	for _, m := range matches {
		names = append(names, strings.TrimSuffix(filepath.Base(m), ".json"))
	}
	sort.Strings(names)
	return names
}

// writeConfig writes an mcp.json naming the servers (the fakes answer for
// them; the command is never run).
func writeConfig(t *testing.T, dir string, names ...string) string {
	t.Helper()
	entries := map[string]any{}
	for _, n := range names {
		entries[n] = map[string]any{"command": "fake-upstream-" + n}
	}
	data, _ := json.MarshalIndent(map[string]any{"mcpServers": entries}, "", "  ")
	p := filepath.Join(dir, "mcp.json")
	writeFile(t, p, string(data))
	return p
}

func TestCutOutput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello!", 5, "hello\n[… 1 more character omitted (--max-output 5)]\n"},
		{"ééééé", 5, "ééééé"},
		{"éééééé", 5, "ééééé\n[… 1 more character omitted (--max-output 5)]\n"},
		{"abcd", 2, "ab\n[… 2 more characters omitted (--max-output 2)]\n"},
		{"ab", 0, "ab"},
	}
	for _, tt := range tests {
		if got := cutOutput(tt.in, tt.max); got != tt.want {
			t.Errorf("cutOutput(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}
