package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestClientConformance runs the official MCP conformance suite's client
// scenarios (all of them) against mcpcode: for each, the suite starts its
// test server and runs testdata/conformance/client-driver.mjs, which uses
// nothing but the mcpcode binary (this test binary) as a user would:
// mcp.json, auth, tools, gen, run. Every scenario must pass except those in
// testdata/conformance/client-expected-failures.yml, each listed with its
// reason (the suite fails when one of them starts passing). One outcome is
// accepted besides: sse-retry with no failed check and one warning, which
// the suite gives a client that reconnected after the server's 500 ms retry
// interval but within twice it ("acceptable but may indicate network
// delays"): under the race detector on a loaded machine the reconnection
// can come a few hundred milliseconds late. Reconnecting too early or very
// late is a failed check and fails the test.
func TestClientConformance(t *testing.T) {
	e2e(t)
	node, path := node22(t)
	suite := filepath.Join(npmPackageDir(t, "@modelcontextprotocol/conformance"), "dist", "index.js")
	conf := filepath.Join(moduleRoot(t), "testdata", "conformance")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, suite, "client",
		"--command", shellQuote(node)+" "+shellQuote(filepath.Join(conf, "client-driver.mjs")),
		"--suite", "all",
		"--expected-failures", filepath.Join(conf, "client-expected-failures.yml"),
		"-o", t.TempDir())
	cmd.Env = append(os.Environ(), path, "MCPCODE="+binary)
	out, err := cmd.CombinedOutput()
	summary := tail(string(out), 4000)
	if i := strings.Index(string(out), "=== SUITE SUMMARY ==="); i >= 0 {
		summary = string(out)[i:]
	}
	t.Logf("conformance suite against mcpcode as a client:\n%s", summary)
	if err != nil && !onlyLateSSERetry(summary) {
		t.Fatalf("the conformance suite failed: %v\n%s", err, summary)
	}
	for _, want := range []string{"✓ tools_call:", "✓ elicitation-sep1034-client-defaults:", "✓ auth/metadata-default:", "✓ auth/scope-step-up:", "✓ auth/client-credentials-basic:"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}

// onlyLateSSERetry says whether the suite's only unexpected failure is
// sse-retry with no failed check (its one warning: reconnected slightly
// late).
func onlyLateSSERetry(summary string) bool {
	_, unexpected, ok := strings.Cut(summary, "Unexpected failures (not in baseline):")
	if !ok {
		return false
	}
	var failed []string
	for _, line := range strings.Split(unexpected, "\n") {
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "✗ "); ok {
			failed = append(failed, name)
		}
	}
	return len(failed) == 1 && failed[0] == "sse-retry" && strings.Contains(summary, "✗ sse-retry: 2 passed, 0 failed, 1 warnings")
}

// TestOnlyLateSSERetry: the one tolerated outcome is recognized, and
// nothing more.
func TestOnlyLateSSERetry(t *testing.T) {
	t.Parallel()
	const late = "✗ sse-retry: 2 passed, 0 failed, 1 warnings\n✓ auth/x: 3 passed, 0 failed\n\nUnexpected failures (not in baseline):\n  ✗ sse-retry\n\nUnexpected failures detected"
	for _, tc := range []struct {
		summary string
		want    bool
	}{
		{late, true},
		{strings.Replace(late, "0 failed, 1 warnings", "1 failed", 1), false},
		{strings.Replace(late, "  ✗ sse-retry\n", "  ✗ sse-retry\n  ✗ tools_call\n", 1), false},
		{strings.Replace(late, "  ✗ sse-retry\n", "  ✗ initialize\n", 1), false},
		{"✓ sse-retry: 3 passed, 0 failed", false},
	} {
		if got := onlyLateSSERetry(tc.summary); got != tc.want {
			t.Errorf("onlyLateSSERetry(%q) = %v, want %v", tc.summary, got, tc.want)
		}
	}
}
