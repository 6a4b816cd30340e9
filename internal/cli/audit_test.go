package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/audit"
	"github.com/mcpcode/mcpcode/internal/app"
)

// TestAuditAndPrivacyCommands runs a program with --privacy tokenize, then
// reads the audit log and the token store through their commands.
func TestAuditAndPrivacyCommands(t *testing.T) {
	ta := newTestApp(t)
	ta.cli.app.Dial = demoDial
	ws := t.TempDir()
	writeFile(t, filepath.Join(ws, "mcp.json"), string(app.DemoConfig("unused")))
	if code := ta.run("gen", "--dir", ws); code != 0 {
		t.Fatalf("gen: %d\n%s", code, ta.stderr)
	}
	prog := filepath.Join(ws, "first.ts")
	writeFile(t, prog, `import { query } from "servers/salesforce/query";
const row = (await query({ query: "SELECT Name, Email, Phone FROM Lead LIMIT 1" })).records[0];
console.log(row.Name, row.Email, row.Phone);
export default row.Email;
`)
	ta.stdout.buf.Reset()
	if code := ta.run("run", "--dir", ws, "--isolation", "none", "--privacy", "tokenize", "--timeout", "5m", "--json", prog); code != 0 {
		t.Fatalf("run: %d\n%s%s", code, ta.stdout, ta.stderr)
	}
	var res struct {
		Result string
		Logs   []struct{ Text string }
	}
	if err := json.Unmarshal([]byte(ta.stdout.String()), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Logs) != 1 || res.Logs[0].Text != "[NAME_1] [EMAIL_1] [PHONE_1]" || res.Result != "[EMAIL_1]" {
		t.Fatalf("--json record: %s", ta.stdout)
	}

	ta.stdout.buf.Reset()
	if code := ta.run("audit", "--dir", ws); code != 0 {
		t.Fatalf("audit: %d %s", code, ta.stderr)
	}
	table := ta.stdout.String()
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^TIME \(UTC\)\s+RUN\s+WHO\s+PROGRAM\s+RESULT\s+CALLS\s+BYTES\s+DURATION$`),
		regexp.MustCompile(`(?m)^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\s+\d{8}T\d{6}-[0-9a-f]{12}\s+cli\s+\./first\.ts [0-9a-f]{12}\s+ok, tokenized\s+1\s+\d+(\.\d)?(B|KiB)\s+\d+(\.\d)? m?s$`),
		regexp.MustCompile(`(?m)^\s+salesforce\.query\s+ok\s+1\s+\d+(\.\d)?(B|KiB)\s+\d+(\.\d)? m?s$`),
	} {
		if !want.MatchString(table) {
			t.Errorf("audit table lacks %s:\n%s", want, table)
		}
	}

	ta.stdout.buf.Reset()
	ta.run("audit", "--dir", ws, "--json", "--since", "all")
	var rec audit.Record
	if err := json.Unmarshal([]byte(ta.stdout.String()), &rec); err != nil || rec.Program.Entry != "./first.ts" || len(rec.Calls) != 1 {
		t.Errorf("audit --json: %v %s", err, ta.stdout)
	}

	ta.stdout.buf.Reset()
	ta.run("audit", "--dir", ws, "--skill", "nope")
	if got := ta.stdout.String(); !strings.HasPrefix(got, `No runs of skill "nope" recorded since `) {
		t.Errorf("audit --skill nope: %q", got)
	}
	if code := ta.run("audit", "--dir", ws, "--since", "yesterday-ish"); code != exitUsage || !strings.Contains(ta.stderr.String(), `"yesterday-ish" is not a duration`) {
		t.Errorf("--since: %d %s", code, ta.stderr)
	}

	ta.stdout.buf.Reset()
	if code := ta.run("privacy", "status", "--dir", ws); code != 0 {
		t.Fatalf("privacy status: %d %s", code, ta.stderr)
	}
	status := ta.stdout.String()
	for _, want := range []string{"Privacy mode in ./mcp.json: off", "Token store ./.mcpcode/privacy/tokens.json: ", "  EMAIL    ", "  NAME     ", "  PHONE    "} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if strings.Contains(status, "@") {
		t.Errorf("status shows a value:\n%s", status)
	}
	fi, err := os.Stat(filepath.Join(ws, ".mcpcode", "privacy", "tokens.json"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token store: %v %v", fi, err)
	}

	ta.stdout.buf.Reset()
	if code := ta.run("privacy", "forget", "--dir", ws); code != 0 || !regexp.MustCompile(`^Cleared \d+ values from the token store \(\./\.mcpcode/privacy/tokens\.json\)\. `).MatchString(ta.stdout.String()) {
		t.Errorf("forget: %d %q", code, ta.stdout)
	}
	ta.stdout.buf.Reset()
	ta.run("privacy", "status", "--dir", ws, "--json")
	var st struct{ Entries int }
	if json.Unmarshal([]byte(ta.stdout.String()), &st); st.Entries != 0 {
		t.Errorf("after forget: %s", ta.stdout)
	}
	// A token shown before forget no longer reaches a server.
	writeFile(t, prog, `import { query } from "servers/salesforce/query";
await query({ query: "SELECT Id FROM Lead WHERE Email = '[EMAIL_1]'" });`)
	ta.stderr.buf.Reset()
	if code := ta.run("run", "--dir", ws, "--isolation", "none", "--privacy", "tokenize", prog); code != exitFailure ||
		!strings.Contains(ta.stderr.String(), "policy error: ToolError: call refused by policy: salesforce.query was not called: the token [EMAIL_1] is not in this workspace's token store") {
		t.Errorf("a forgotten token: %d %s", code, ta.stderr)
	}

	if code := ta.run("run", "--dir", ws, "--privacy", "maybe", prog); code != exitUsage {
		t.Errorf("--privacy maybe: %d", code)
	}
	if code := ta.run("privacy", "remember"); code != exitUsage {
		t.Errorf("privacy remember: %d", code)
	}
}

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"all":                  {},
		"90m":                  now.Add(-90 * time.Minute),
		"7d":                   now.Add(-7 * 24 * time.Hour),
		"2026-11-29":           time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC),
		"2026-11-29T10:00:00Z": time.Date(2026, 11, 29, 10, 0, 0, 0, time.UTC),
	} {
		got, err := parseSince(in, now)
		if err != nil || !got.Equal(want) {
			t.Errorf("parseSince(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"-1h", "0d", "soon"} {
		if _, err := parseSince(bad, now); err == nil {
			t.Errorf("parseSince(%q) accepted", bad)
		}
	}
}
