package generator

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mcpcode/mcpcode/internal/tsc"
)

// completionGuard bounds how long hostile generation may take before the test
// fails instead of hanging CI. It is a guard, not a speed assertion.
const completionGuard = 2 * time.Minute

func rawTool(t testing.TB, name any, description string, input any) json.RawMessage {
	t.Helper()
	tool := map[string]any{"description": description, "inputSchema": input}
	if name != nil {
		tool["name"] = name
	}
	data, err := json.Marshal(tool)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func hostileSchemas() map[string]any {
	many := map[string]any{}
	for i := 0; i < 10000; i++ {
		many[fmt.Sprintf("p%05d", i)] = map[string]any{"type": "string", "description": "*/ property"}
	}
	deep := map[string]any{"type": "string"}
	for i := 0; i < 200; i++ {
		deep = map[string]any{"type": "object", "properties": map[string]any{"n": deep}, "required": []string{"n"}}
	}
	enum := make([]any, 5000)
	for i := range enum {
		enum[i] = fmt.Sprintf("v%d */ \u2028 ${x}", i)
	}
	deepValue := any("x")
	for i := 0; i < 500; i++ {
		deepValue = []any{deepValue}
	}
	return map[string]any{
		"recursive":   map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"$ref": "#/$defs/n"}}, "$defs": map[string]any{"n": map[string]any{"type": "object", "properties": map[string]any{"next": map[string]any{"$ref": "#/$defs/n"}}}}},
		"mutual":      map[string]any{"$ref": "#/$defs/a", "$defs": map[string]any{"a": map[string]any{"$ref": "#/$defs/b"}, "b": map[string]any{"allOf": []any{map[string]any{"$ref": "#/$defs/a"}}}}},
		"missingRef":  map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/missing"}}},
		"remoteRef":   map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"$ref": "https://evil.example/x.json"}, "y": map[string]any{"$ref": "file:///etc/passwd#/a"}}},
		"manyProps":   map[string]any{"type": "object", "properties": many},
		"deep":        deep,
		"bigEnum":     map[string]any{"type": "object", "properties": map[string]any{"e": map[string]any{"enum": enum}}, "required": []string{"e"}},
		"typeNumber":  map[string]any{"type": 42},
		"propsArray":  map[string]any{"type": "object", "properties": []any{1, 2}},
		"deepDefault": map[string]any{"type": "object", "properties": map[string]any{"d": map[string]any{"default": deepValue, "examples": []any{deepValue}}}},
		"selfRoot":    map[string]any{"anyOf": []any{map[string]any{"$ref": "#"}}},
	}
}

func hostileServers(t testing.TB) []Server {
	hostileText := "a */ b \u2028 c ` d ${e} </script> \x00 f\n@param g\n// @ts-nocheck"
	names := []any{"../../x", "a/b", `a\b`, "con", "NUL", "", strings.Repeat("x", 300), "__proto__", "constructor",
		"get_user", "getUser", "GetUser", "get-user", "getuser", "index", "callMCPTool", "delete", "getUser2",
		"tool", "тул", "a.b", " spaced name ", "x\u2028y"}
	var tools []json.RawMessage
	for _, n := range names {
		tools = append(tools, rawTool(t, n, hostileText, map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string", "description": hostileText}}}))
	}
	for name, schema := range hostileSchemas() {
		tools = append(tools, rawTool(t, "schema_"+name, hostileText, schema))
	}
	tools = append(tools,
		rawTool(t, nil, "no name", map[string]any{}),
		rawTool(t, 42, "number name", map[string]any{}),
		rawTool(t, "getUser", "duplicate of an exact name", map[string]any{}),
		json.RawMessage(`{"name": "broken", "inputSchema": {`),
		json.RawMessage(`"just a string"`),
		json.RawMessage(`{"name":"dup-keys","inputSchema":{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"number"}}}}`),
	)
	simple := []json.RawMessage{rawTool(t, "ping", "Ping.", map[string]any{"type": "object"})}
	return []Server{
		{Name: "hostile", Info: ServerInfo{Name: "*/ evil", Version: "1.0\n// @ts-nocheck"}, Instructions: hostileText, Tools: tools},
		{Name: "..", Tools: simple},
		{Name: "a/b", Tools: simple},
		{Name: "con", Tools: simple},
		{Name: "CON", Tools: simple},
		{Name: "README.md", Tools: simple},
		{Name: "", Tools: simple},
		{Name: "../../../etc", Tools: simple},
	}
}

// generateGuarded runs Generate and fails the test if it does not finish
// within completionGuard.
func generateGuarded(t *testing.T, servers []Server) *Plan {
	t.Helper()
	type result struct {
		plan *Plan
		err  error
	}
	done := make(chan result, 1)
	go func() {
		plan, err := Generate(servers, Options{})
		done <- result{plan, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatal(r.err)
		}
		return r.plan
	case <-time.After(completionGuard):
		t.Fatalf("Generate did not finish within %v on hostile input", completionGuard)
		return nil
	}
}

func TestHostileInput(t *testing.T) {
	t.Parallel()
	plan := generateGuarded(t, hostileServers(t))
	ws := t.TempDir()
	out := filepath.Join(ws, "servers")
	manifestPath := filepath.Join(ws, ".mcpcode", "manifest.json")
	if _, err := Write(out, manifestPath, plan); err != nil {
		t.Fatal(err)
	}

	// Nothing outside the out dir, except the manifest; every path is safe.
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if p == manifestPath {
			return nil
		}
		rel, err := filepath.Rel(out, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			t.Errorf("file written outside the out dir: %s", p)
			return nil
		}
		if !safeRelPath(filepath.ToSlash(rel)) {
			t.Errorf("unsafe generated path %q", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Every server got its own directory and every tool its own file.
	dirs := map[string]bool{}
	for _, s := range plan.Manifest.Servers {
		if dirs[strings.ToLower(s.Directory)] {
			t.Errorf("directory %q used twice", s.Directory)
		}
		dirs[strings.ToLower(s.Directory)] = true
		fns := map[string]bool{}
		for _, tool := range s.Tools {
			key := strings.ToLower(tool.Function)
			if fns[key] || !isIdentifier(tool.Function) || len(tool.Function) > maxNameLen+1 {
				t.Errorf("server %q: bad or duplicate function name %q for tool %q", s.Name, tool.Function, tool.Name)
			}
			fns[key] = true
		}
	}
	hostile, ok := plan.Manifest.Server("hostile")
	if !ok {
		t.Fatal("hostile server missing from the manifest")
	}
	if want := 23 + len(hostileSchemas()) + 1; hostile.ToolCount != want {
		t.Errorf("hostile server has %d tools, want %d (bad tools skipped, good ones kept)", hostile.ToolCount, want)
	}
	skipped := 0
	for _, w := range plan.Warnings {
		if strings.Contains(w.Message, "skipped") || strings.Contains(w.Message, "listed more than once") {
			skipped++
		}
	}
	if skipped != 5 {
		t.Errorf("got %d skipped-tool warnings, want 5: %v", skipped, plan.Warnings)
	}

	checkNoDirectives(t, plan)
	t.Run("typechecks", func(t *testing.T) {
		skipTypeCheckInShort(t)
		tsc.Check(t, out, "-p", ".", "--strict", "--noEmit")
	})
}

// Lines TypeScript would read as a directive or pragma (@ts-ignore,
// @ts-nocheck, triple-slash references), or that inject a JSDoc tag.
var (
	lineDirective  = regexp.MustCompile(`^///?\s*@|^///\s*<`)
	blockDirective = regexp.MustCompile(`^(?:/|\*)*\s*@(ts-|param|returns)`)
)

// checkNoDirectives asserts that no untrusted text became a directive.
func checkNoDirectives(t *testing.T, plan *Plan) {
	t.Helper()
	for _, f := range plan.Files {
		if !strings.HasSuffix(f.Path, ".ts") || f.Path == declFile {
			continue
		}
		for i, line := range strings.Split(string(f.Content), "\n") {
			trimmed := strings.TrimSpace(line)
			if lineDirective.MatchString(trimmed) || blockDirective.MatchString(trimmed) {
				t.Errorf("%s:%d: untrusted text reads as a directive or tag: %q", f.Path, i+1, line)
			}
		}
	}
}
