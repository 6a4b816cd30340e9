package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxConnectTokens bounds what a host loads into the model's context when
// it connects: the tools/list result and the instructions.
const maxConnectTokens = 1500

// TestContextOnConnect measures, with OpenAI's o200k_base encoding
// (gpt-tokenizer, pinned in testdata/npm), the tokens a host loads when it
// connects to serve: the tools/list JSON plus the instructions. The demo
// workspace has one approved skill, so a skill tool is counted too.
func TestContextOnConnect(t *testing.T) {
	if testing.Short() {
		t.Skip("counts tokens with the pinned gpt-tokenizer from npm: runs in make test")
	}
	t.Parallel()
	tokenizer := filepath.Join("..", "testdata", "npm", "node_modules", "gpt-tokenizer", "cjs", "encoding", "o200k_base.js")
	if _, err := os.Stat(tokenizer); err != nil {
		t.Fatalf("gpt-tokenizer is not installed (%v): run make test", err)
	}
	ws, _ := demoWorkspace(t)
	writeSkill(t, ws.Root)
	approveAsLaidOut(t, ws, "pending-orders")
	_, s := connect(t, ws, Options{}, nil)
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	text := string(listed) + "\n" + s.InitializeResult().Instructions
	abs, _ := filepath.Abs(tokenizer)
	cmd := exec.Command("node", "-e", `const {countTokens} = require(process.argv[1]); let s = ""; process.stdin.on("data", (d) => s += d).on("end", () => console.log(countTokens(s)));`, abs)
	cmd.Stdin = strings.NewReader(text)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("counting tokens: %v\n%s", err, stderr.String())
		}
		t.Fatalf("counting tokens (node is needed): %v", err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(out.String()))
	if err != nil {
		t.Fatalf("token count %q: %v", out.String(), err)
	}
	t.Logf("a host connecting to serve loads %d tokens (o200k_base): %d tools, %d bytes of tools/list, %d bytes of instructions",
		n, len(res.Tools), len(listed), len(s.InitializeResult().Instructions))
	if n >= maxConnectTokens {
		t.Errorf("%d tokens on connect, want under %d", n, maxConnectTokens)
	}
	if len(res.Tools) != 5 {
		t.Errorf("%d tools listed, want the 4 code tools and the skill", len(res.Tools))
	}
}

// writeSkill approves a small skill in the workspace by writing what
// approval writes (the gateway only reads it).
func writeSkill(t *testing.T, root string) {
	t.Helper()
	dir := filepath.Join(root, "skills", "pending-orders")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"SKILL.md":          "---\nname: pending-orders\ndescription: Lists the orders of the order sheet in one status (pending by default) with the customers' names, emails and phones.\nmetadata:\n  mcpcode-tools: google-drive.getSheet\n  mcpcode-write: \"false\"\n---\n\n# pending-orders\n",
		"index.ts":          "import { getSheet } from \"servers/google-drive/getSheet\";\nexport default async function (input: { status?: string }) {\n  const s = await getSheet({ sheetId: \"abc123\" });\n  return s.rows.filter((r) => r.Status === (input.status ?? \"pending\")).length;\n}\n",
		"input.schema.json": `{"type":"object","properties":{"status":{"type":"string","description":"the order status to list","default":"pending"},"limit":{"type":"integer","minimum":1,"maximum":500}}}`,
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
