package cli

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/app"
)

// startServeHTTP starts `mcpcode serve --http 127.0.0.1:0` in ws with extra
// flags and returns its URL (read from what it prints on stderr).
func startServeHTTP(t *testing.T, ws string, env []string, flags ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"serve", "--dir", ws, "--http", "127.0.0.1:0"}, flags...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
	urls := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		re := regexp.MustCompile(`streamable HTTP on (http://\S+)`)
		sent := false
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil && !sent {
				urls <- m[1]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-urls:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("mcpcode serve --http did not start listening")
	}
	return ""
}

// node22 returns the pinned Node 22 binary (the conformance suite needs
// it) and a PATH with its directory first, for what the suite starts.
func node22(t *testing.T) (node, path string) {
	t.Helper()
	bin := filepath.Join(npmPackageDir(t, "node"), "bin")
	node = filepath.Join(bin, "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("the pinned Node 22 is missing (%v): run make test", err)
	}
	return node, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")
}

// tail is the end of a long output, for a failure message.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// TestServeConformance runs the official MCP conformance suite's server
// scenarios against `mcpcode serve --http`. Every scenario must pass except
// those in testdata/conformance/serve-expected-failures.yml, which need the
// suite's own fixtures (the suite fails when one of those starts passing).
func TestServeConformance(t *testing.T) {
	e2e(t)
	t.Parallel()
	node, path := node22(t)
	suite := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/conformance"), "dist", "index.js")
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(binary)))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	url := startServeHTTP(t, ws, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "server", "--url", url,
		"--expected-failures", filepath.Join(moduleRoot(t), "testdata", "conformance", "serve-expected-failures.yml"),
		"-o", t.TempDir())
	cmd.Env = append(os.Environ(), path)
	out, err := cmd.CombinedOutput()
	summary := tail(string(out), 4000)
	if i := strings.Index(string(out), "=== SUMMARY ==="); i >= 0 {
		summary = string(out)[i:]
	}
	t.Logf("conformance suite against mcpcode serve:\n%s", summary)
	if err != nil {
		t.Fatalf("the conformance suite failed: %v\n%s", err, summary)
	}
	if !strings.Contains(summary, "tools-list: 1 passed, 0 failed") || !strings.Contains(summary, "server-initialize: 1 passed") {
		t.Errorf("expected passing scenarios are missing from the summary")
	}
}

// TestServeConformance2026 runs the conformance suite's requirements of
// protocol revision 2026-07-28 (@modelcontextprotocol/conformance
// 0.2.0-alpha.12, pinned as conformance-2026) against `mcpcode serve
// --http --stateless` and `serve --http`: every scenario and check passes
// except those in testdata/conformance/serve-2026-expected-failures.yml,
// which need the suite's own fixtures or the Tasks extension (the suite
// fails when one of those starts passing).
func TestServeConformance2026(t *testing.T) {
	e2e(t)
	t.Parallel()
	node, path := node22(t)
	suite := filepath.Join(npmPackageDir(t, "conformance-2026"), "dist", "index.js")
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig(binary)))
	if res := runBinary(t, ws, 3*time.Minute, "gen"); res.code != 0 {
		t.Fatalf("gen: exit %d\n%s", res.code, res.stderr)
	}
	for _, face := range []struct {
		name  string
		flags []string
	}{{"stateless", []string{"--stateless"}}, {"stateful", nil}} {
		t.Run(face.name, func(t *testing.T) {
			url := startServeHTTP(t, ws, nil, face.flags...)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, suite, "server", "--url", url, "--requirements", "2026-07-28",
				"--expected-failures", filepath.Join(moduleRoot(t), "testdata", "conformance", "serve-2026-expected-failures.yml"),
				"-o", t.TempDir())
			cmd.Env = append(os.Environ(), path)
			out, err := cmd.CombinedOutput()
			summary := tail(string(out), 4000)
			if i := strings.Index(string(out), "=== SUMMARY ==="); i >= 0 {
				summary = string(out)[i:]
			}
			t.Logf("conformance suite (2026-07-28) against mcpcode serve --http %s:\n%s", strings.Join(face.flags, " "), summary)
			if err != nil {
				t.Fatalf("the conformance suite failed: %v\n%s", err, summary)
			}
			for _, want := range []string{"server-stateless: 24 passed", "completion-complete: 2 passed, 0 failed", "tools-list: 4 passed, 0 failed",
				"caching: 8 passed, 0 failed", "dns-rebinding-protection: 2 passed, 0 failed", "Baseline check passed"} {
				if !strings.Contains(summary, want) {
					t.Errorf("%q is missing from the summary", want)
				}
			}
		})
	}
}
