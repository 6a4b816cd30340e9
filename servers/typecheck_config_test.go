package servers

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseTypeCheck(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "mcp.json")
	parse := func(tc string) (*Config, error) {
		return ParseConfig([]byte(`{"mcpServers": {}, "typecheck": `+tc+`}`), name, nil)
	}
	cfg, err := parse(`{"tsc": "tools/node_modules/.bin/tsc", "strict": false}`)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TypeCheck == nil || cfg.TypeCheck.TSC != filepath.Join(dir, "tools", "node_modules", ".bin", "tsc") {
		t.Errorf("a relative tsc is taken from mcp.json's directory: %+v", cfg.TypeCheck)
	}
	if !slices.Equal(cfg.Warnings, []string{`mcp.json: "typecheck": unknown field "strict" ignored`}) {
		t.Errorf("warnings %q", cfg.Warnings)
	}
	if cfg, err := parse(`{"tsc": "/opt/ts/bin/tsc"}`); err != nil || cfg.TypeCheck.TSC != "/opt/ts/bin/tsc" || len(cfg.Warnings) != 0 {
		t.Errorf("absolute: %+v %v %q", cfg.TypeCheck, err, cfg.Warnings)
	}
	if cfg, _ := ParseConfig([]byte(`{"mcpServers": {}}`), name, nil); cfg.TypeCheck != nil {
		t.Errorf("no typecheck object: %+v", cfg.TypeCheck)
	}
	for tc, want := range map[string]string{
		`"tsc"`:        `"typecheck" must be an object`,
		`{"tsc": ""}`:  `"tsc" must be the path of a TypeScript compiler`,
		`{"tsc": 7}`:   `"tsc" must be the path of a TypeScript compiler`,
		`{"tsc": " "}`: `"tsc" must be the path of a TypeScript compiler`,
	} {
		if _, err := parse(tc); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", tc, err, want)
		}
	}
}
