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
// reason (the suite fails when one of them starts passing).
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
	if err != nil {
		t.Fatalf("the conformance suite failed: %v\n%s", err, summary)
	}
	for _, want := range []string{"✓ tools_call:", "✓ elicitation-sep1034-client-defaults:", "✓ auth/metadata-default:", "✓ auth/scope-step-up:", "✓ auth/client-credentials-basic:"} {
		if !strings.Contains(summary, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
}
