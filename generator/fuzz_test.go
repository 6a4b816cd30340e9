package generator

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"
	"testing"
	"time"
)

// fuzzSlow is how long one Generate of a few small tools may take before
// the fuzz test reports it. A guard against unbounded work, not a speed
// assertion: it is generous for slow machines and the race detector.
const fuzzSlow = 3 * time.Second

// FuzzGenerate feeds Generate one server with 1 to 3 raw tool definitions
// built from the fuzz input. Generate promises never to panic on what
// servers send; besides, every file it plans must stay inside its server's
// directory (or be one of the root files), and two calls must plan the same
// bytes. Plain `go test` runs only the seeds (f.Add below and
// testdata/fuzz/FuzzGenerate); `go test -fuzz=FuzzGenerate` explores.
func FuzzGenerate(f *testing.F) {
	for _, s := range []struct {
		server  string
		n       uint8
		a, b, c string
	}{
		{"google-drive", 1, `{"name":"get_document","description":"Gets.","inputSchema":{"type":"object","properties":{"documentId":{"type":"string"}},"required":["documentId"]}}`, "", ""},
		{"../../etc", 3, `{"name":"../x","inputSchema":{"type":"object"}}`, `{"name":"a/b","inputSchema":{}}`, `{"name":"con","inputSchema":{"type":42}}`},
		{"a\\b", 2, `{"name":"getUser","inputSchema":{"$ref":"#"}}`, `{"name":"get_user","inputSchema":{"anyOf":[{"$ref":"#/$defs/a"}],"$defs":{"a":{"$ref":"#/$defs/a"}}}}`, ""},
		{"", 3, `{"name":"broken","inputSchema":{`, `"just a string"`, `null`},
		{"README.md", 1, `{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"}],"items":false},"b":{"type":["string","null"],"enum":["*/","${x}","\u2028"]}}},"outputSchema":{"type":"object","additionalProperties":{"type":"integer"}},"annotations":{"readOnlyHint":true}}`, "", ""},
		{"con", 2, `{"name":"__proto__","description":"*/ evil \u0000","inputSchema":{"type":"object","properties":{"constructor":{"default":[[[[1]]]]}}}}`, `{"name":"index","inputSchema":{"type":"object","properties":{"auth-method":{"oneOf":[{"const":1},{"const":"1"}]}}}}`, ""},
	} {
		f.Add(s.server, s.n, []byte(s.a), []byte(s.b), []byte(s.c))
	}
	f.Fuzz(func(t *testing.T, server string, n uint8, a, b, c []byte) {
		tools := []json.RawMessage{a, b, c}[:1+int(n%3)]
		servers := func() []Server {
			return []Server{{Name: server, Info: ServerInfo{Name: server, Version: "1"}, Instructions: server, Tools: tools}}
		}
		start := time.Now()
		plan, err := Generate(servers(), Options{})
		if err != nil {
			t.Fatalf("Generate failed on what a server sent (it may only fail on contradictory arguments): %v", err)
		}
		if d := time.Since(start); d > fuzzSlow {
			t.Errorf("Generate took %v on %d bytes of tools; it must bound its work", d, len(a)+len(b)+len(c))
		}
		checkPlanPaths(t, plan)
		again, err := Generate(servers(), Options{})
		if err != nil {
			t.Fatalf("second Generate failed: %v", err)
		}
		if d := planDiff(plan, again); d != "" {
			t.Errorf("two calls on the same input planned different output: %s", d)
		}
	})
}

// checkPlanPaths fails the test unless every planned file is a root file
// of the manifest or a file of its server's directory, listed in its entry,
// and every path is a plain relative path.
func checkPlanPaths(t *testing.T, plan *Plan) {
	t.Helper()
	owner := map[string]string{} // file → directory that owns it ("" for root files)
	for _, p := range plan.Manifest.Files {
		owner[p] = ""
	}
	for _, s := range plan.Manifest.Servers {
		if !safeSegment(s.Directory) || reservedRootNames[strings.ToLower(s.Directory)] {
			t.Errorf("server %q got the directory %q, which is not a plain, unreserved name", s.Name, s.Directory)
		}
		for _, p := range s.Files {
			owner[p] = s.Directory
		}
	}
	for _, f := range plan.Files {
		p := f.Path
		if p == "" || path.IsAbs(p) || strings.Contains(p, `\`) || strings.HasPrefix(p, "/") || strings.Contains(p, "\x00") {
			t.Errorf("file path %q is not a plain relative path", p)
			continue
		}
		for _, seg := range strings.Split(p, "/") {
			if seg == ".." || seg == "." || seg == "" {
				t.Errorf("file path %q has the segment %q", p, seg)
			}
		}
		if !safeRelPath(p) {
			t.Errorf("file path %q is not one the writer accepts", p)
		}
		dir, ok := owner[p]
		switch {
		case !ok:
			t.Errorf("file %q is not listed in the manifest", p)
		case dir == "" && strings.Contains(p, "/"):
			t.Errorf("root file %q is inside a directory", p)
		case dir != "" && (path.Dir(p) != dir):
			t.Errorf("file %q is not directly inside its server's directory %q", p, dir)
		}
	}
}

// planDiff describes the first difference between two plans, or returns "".
func planDiff(a, b *Plan) string {
	if len(a.Files) != len(b.Files) {
		return "different numbers of files"
	}
	for i := range a.Files {
		if a.Files[i].Path != b.Files[i].Path {
			return "file " + a.Files[i].Path + " vs " + b.Files[i].Path
		}
		if !bytes.Equal(a.Files[i].Content, b.Files[i].Content) {
			return "content of " + a.Files[i].Path
		}
	}
	if !bytes.Equal(a.Manifest.Marshal(), b.Manifest.Marshal()) {
		return "manifests"
	}
	if len(a.Warnings) != len(b.Warnings) {
		return "different numbers of warnings"
	}
	for i := range a.Warnings {
		if a.Warnings[i] != b.Warnings[i] {
			return "warning " + a.Warnings[i].String() + " vs " + b.Warnings[i].String()
		}
	}
	return ""
}
