package servers

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// privacyKey is the top-level key of mcp.json that holds the workspace's
// privacy settings.
const privacyKey = "privacy"

// Privacy modes.
const (
	PrivacyOff      = "off"
	PrivacyTokenize = "tokenize"
)

// PrivacyConfig is the "privacy" object of mcp.json, as written; the
// privacy package checks detectors and patterns when a run starts.
//
//	"privacy": {
//	  "mode": "tokenize",
//	  "flows": [{"from": "google-drive", "to": ["salesforce"]}],
//	  "nameFields": ["name", "firstName", "lastName"],
//	  "patterns": [{"kind": "EMPLOYEE_ID", "regexp": "\\bEMP-[0-9]{6}\\b"}],
//	  "detectors": ["EMAIL", "PHONE", "CARD", "IBAN", "IP", "NAME"],
//	  "maxTokens": 100000
//	}
type PrivacyConfig struct {
	// Mode is PrivacyTokenize or PrivacyOff ("" is off).
	Mode string `json:"mode,omitempty"`
	// Detectors are the built-in detectors to use; nil means all.
	Detectors []string `json:"detectors,omitempty"`
	// NameFields replace the default keys whose values are person names.
	NameFields []string `json:"nameFields,omitempty"`
	// Patterns are custom detectors.
	Patterns []PrivacyPattern `json:"patterns,omitempty"`
	// Flows say where values from a server may be sent.
	Flows []PrivacyFlow `json:"flows,omitempty"`
	// MaxTokens bounds the token store (0: the default).
	MaxTokens int `json:"maxTokens,omitempty"`
}

// PrivacyPattern is a custom detector: matches of Regexp become tokens
// [KIND_n].
type PrivacyPattern struct {
	Kind   string `json:"kind"`
	Regexp string `json:"regexp"`
}

// PrivacyFlow is a flow rule: values that came from From may be sent only
// to the servers in To (and back to From).
type PrivacyFlow struct {
	From string   `json:"from"`
	To   []string `json:"to"`
}

// parsePrivacy parses the "privacy" object; servers are the configured
// server names, for warnings about rules that name others.
func parsePrivacy(display string, raw json.RawMessage, servers []string) (*PrivacyConfig, []string, error) {
	where := display + `: "privacy"`
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, nil, fmt.Errorf(`%s must be an object such as {"mode": "tokenize"}`, where)
	}
	known := []string{"mode", "detectors", "nameFields", "patterns", "flows", "maxTokens"}
	var warnings []string
	for _, f := range sortedKeys(fields) {
		if !slices.Contains(known, f) {
			warnings = append(warnings, fmt.Sprintf("%s: unknown field %q ignored", where, f))
		}
	}
	var p PrivacyConfig
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&p); err != nil {
		return nil, warnings, fmt.Errorf("%s: %v; see docs/PRIVACY.md", where, err)
	}
	switch p.Mode {
	case "", PrivacyOff, PrivacyTokenize:
	default:
		return nil, warnings, fmt.Errorf(`%s: mode %q: use "tokenize" or "off"`, where, p.Mode)
	}
	if p.MaxTokens < 0 {
		return nil, warnings, fmt.Errorf("%s: maxTokens must be positive (or 0 for the default)", where)
	}
	for i, pt := range p.Patterns {
		if pt.Kind == "" || pt.Regexp == "" {
			return nil, warnings, fmt.Errorf(`%s: patterns[%d] needs "kind" and "regexp"`, where, i)
		}
	}
	for i, f := range p.Flows {
		if strings.TrimSpace(f.From) == "" {
			return nil, warnings, fmt.Errorf(`%s: flows[%d] needs "from": the server whose data the rule restricts`, where, i)
		}
		if f.To == nil {
			return nil, warnings, fmt.Errorf(`%s: flows[%d] needs "to": the servers that may receive %s's data ([] for none)`, where, i, f.From)
		}
		for _, name := range append([]string{f.From}, f.To...) {
			if !slices.Contains(servers, name) {
				warnings = append(warnings, fmt.Sprintf("%s: flows[%d] names the server %q, which is not configured (or disabled)", where, i, name))
			}
		}
	}
	return &p, warnings, nil
}
