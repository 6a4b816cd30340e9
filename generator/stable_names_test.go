package generator

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func rawTools(t *testing.T, names ...string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, n := range names {
		raw, _ := json.Marshal(map[string]any{"name": n, "inputSchema": map[string]any{"type": "object"}})
		out = append(out, raw)
	}
	return out
}

func fileOf(p *Plan, path string) string {
	for _, f := range p.Files {
		if f.Path == path {
			return string(f.Content)
		}
	}
	return ""
}

// TestGeneratedNamesNeverMove: once a tool has a function name in the
// manifest, no other tool takes it. An upstream that adds a tool whose
// plain name is taken gets the newcomer a numbered name, reported in the
// plan. Before: the newcomer (named exactly so) took getUser.ts, the tool
// that had it moved to getUser2.ts, and every skill calling getUser()
// called another tool.
func TestGeneratedNamesNeverMove(t *testing.T) {
	t.Parallel()
	first, err := Generate([]Server{{Name: "crm", Tools: rawTools(t, "get-user")}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fileOf(first, "crm/getUser.ts"); !strings.Contains(got, `"crm", "get-user"`) {
		t.Fatalf("first gen: crm/getUser.ts:\n%s", got)
	}
	prev := first.Manifest
	second, err := Generate([]Server{{Name: "crm", Tools: rawTools(t, "get-user", "getUser")}}, Options{Previous: &prev})
	if err != nil {
		t.Fatal(err)
	}
	if got := fileOf(second, "crm/getUser.ts"); !strings.Contains(got, `"crm", "get-user"`) {
		t.Errorf("getUser.ts no longer calls get-user:\n%s", got)
	}
	if got := fileOf(second, "crm/getUser2.ts"); !strings.Contains(got, `"crm", "getUser"`) {
		t.Errorf("the newcomer is not getUser2.ts:\n%s", got)
	}
	want := []Renamed{{Server: "crm", Tool: "getUser", Function: "getUser2", Wanted: "getUser", Holder: "get-user"}}
	if !reflect.DeepEqual(second.Renamed, want) {
		t.Errorf("Renamed = %+v, want %+v", second.Renamed, want)
	}
	// And it stays so: the next gen keeps both names, reporting nothing new.
	prev = second.Manifest
	third, err := Generate([]Server{{Name: "crm", Tools: rawTools(t, "getUser", "get-user")}}, Options{Previous: &prev})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fileOf(third, "crm/getUser.ts"), `"crm", "get-user"`) || !strings.Contains(fileOf(third, "crm/getUser2.ts"), `"crm", "getUser"`) || len(third.Renamed) != 0 {
		t.Errorf("third gen moved a name: renamed %+v", third.Renamed)
	}
	// A name whose tool is gone is free again.
	prev = third.Manifest
	fourth, err := Generate([]Server{{Name: "crm", Tools: rawTools(t, "getUser")}}, Options{Previous: &prev})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fileOf(fourth, "crm/getUser2.ts"), `"crm", "getUser"`) {
		t.Errorf("a tool lost its name when another went away")
	}
}
