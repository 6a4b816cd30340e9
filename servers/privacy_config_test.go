package servers

import (
	"slices"
	"strings"
	"testing"
)

func TestParsePrivacy(t *testing.T) {
	parse := func(privacy string) (*Config, error) {
		return ParseConfig([]byte(`{"mcpServers": {"drive": {"command": "d"}, "crm": {"command": "c"}}, "privacy": `+privacy+`}`), "mcp.json", nil)
	}
	cfg, err := parse(`{"mode": "tokenize", "flows": [{"from": "drive", "to": ["crm"]}], "nameFields": ["name"],
		"patterns": [{"kind": "EMP", "regexp": "EMP-[0-9]+"}], "detectors": ["EMAIL"], "maxTokens": 10, "colour": "blue"}`)
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Privacy
	if p == nil || p.Mode != PrivacyTokenize || len(p.Flows) != 1 || p.Flows[0].From != "drive" || !slices.Equal(p.Flows[0].To, []string{"crm"}) ||
		!slices.Equal(p.NameFields, []string{"name"}) || p.Patterns[0].Kind != "EMP" || !slices.Equal(p.Detectors, []string{"EMAIL"}) || p.MaxTokens != 10 {
		t.Errorf("privacy %+v", p)
	}
	if !slices.Equal(cfg.Warnings, []string{`mcp.json: "privacy": unknown field "colour" ignored`}) {
		t.Errorf("warnings %q", cfg.Warnings)
	}
	cfg, err = parse(`{"flows": [{"from": "drive", "to": ["slack"]}]}`)
	if err != nil || !slices.Equal(cfg.Warnings, []string{`mcp.json: "privacy": flows[0] names the server "slack", which is not configured (or disabled)`}) {
		t.Errorf("unknown server: %v %q", err, cfg.Warnings)
	}
	if cfg, _ := ParseConfig([]byte(`{"mcpServers": {}}`), "mcp.json", nil); cfg.Privacy != nil {
		t.Errorf("no privacy object: %+v", cfg.Privacy)
	}
	for privacy, want := range map[string]string{
		`"on"`:                                    `"privacy" must be an object`,
		`{"mode": "hide"}`:                        `mode "hide": use "tokenize" or "off"`,
		`{"flows": [{"to": ["crm"]}]}`:            `flows[0] needs "from"`,
		`{"flows": [{"from": "drive"}]}`:          `flows[0] needs "to"`,
		`{"patterns": [{"kind": "X"}]}`:           `patterns[0] needs "kind" and "regexp"`,
		`{"maxTokens": -1}`:                       "maxTokens must be positive",
		`{"flows": [{"from": "drive", "to": 3}]}`: `mcp.json: "privacy": json: cannot unmarshal`,
	} {
		if _, err := parse(privacy); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", privacy, err, want)
		}
	}
}
