package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/internal/mcptest"
)

// TestGenKeepsNames: a tool added upstream whose plain function name
// another tool already has gets a numbered name, and gen says so; the
// existing function keeps calling the same upstream tool.
func TestGenKeepsNames(t *testing.T) {
	t.Parallel()
	ta := newTestApp(t)
	ws := t.TempDir()
	cfg := writeConfig(t, ws, "crm")
	tool := func(name string) json.RawMessage {
		return json.RawMessage(`{"name":"` + name + `","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`)
	}
	ta.fakes.set("crm", &mcptest.RawServer{Name: "crm", Version: "1", Tools: []json.RawMessage{tool("get-user")}})
	if code := ta.run("gen", "--config", cfg); code != 0 {
		t.Fatalf("first gen: exit %d\n%s", code, ta.stderr)
	}
	ta.fakes.set("crm", &mcptest.RawServer{Name: "crm", Version: "1", Tools: []json.RawMessage{tool("get-user"), tool("getUser")}})
	ta.stdout.buf.Reset()
	if code := ta.run("gen", "--config", cfg); code != 0 {
		t.Fatalf("second gen: exit %d\n%s", code, ta.stderr)
	}
	want := `crm: new tool "getUser" is generated as getUser2(): getUser() stays tool "get-user"'s (a generated name never moves to another tool)`
	if !strings.Contains(ta.stdout.String(), want) {
		t.Errorf("gen output lacks %q:\n%s", want, ta.stdout)
	}
	for file, calls := range map[string]string{"getUser.ts": `"crm", "get-user"`, "getUser2.ts": `"crm", "getUser"`} {
		data, err := os.ReadFile(filepath.Join(ws, "servers", "crm", file))
		if err != nil || !strings.Contains(string(data), calls) {
			t.Errorf("servers/crm/%s does not call %s: %v\n%s", file, calls, err, data)
		}
	}
}
