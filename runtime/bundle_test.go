package runtime

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestBundleAllowedImports(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		files  map[string]string // extra workspace files
		entry  string            // entry path (default prog.ts)
		src    string
		calls  []ToolRef
		skills []string
	}{
		{
			name:  "relative servers path",
			src:   `import { getDocument } from "./servers/google-drive/getDocument"; export default await getDocument({ documentId: "a" });`,
			calls: []ToolRef{{Server: "google-drive", Tool: "getDocument"}},
		},
		{
			name:  "workspace-rooted servers path",
			src:   `import { getDocument } from "servers/google-drive/getDocument"; export default await getDocument({ documentId: "a" });`,
			calls: []ToolRef{{Server: "google-drive", Tool: "getDocument"}},
		},
		{
			name:  "server index as namespace keeps only the tool used",
			src:   `import * as gdrive from "servers/google-drive"; export default await gdrive.getSheet({ sheetId: "s" });`,
			calls: []ToolRef{{Server: "google-drive", Tool: "getSheet"}},
		},
		{
			name:  "TypeScript ESM style .js extension",
			src:   `import { search } from "./servers/google-drive/search.js"; export default await search({ query: "q" });`,
			calls: []ToolRef{{Server: "google-drive", Tool: "search"}},
		},
		{
			name: "own relative file",
			src:  `import { double } from "./lib"; export default double(21);`,
		},
		{
			name:  "file in a subdirectory importing up and workspace-rooted",
			files: map[string]string{"tools/helper.ts": `import { double } from "../lib"; import { query } from "servers/salesforce/query"; export const run = async () => double((await query({ soql: "x" })).text.length);`},
			src:   `import { run } from "./tools/helper"; export default await run();`,
			calls: []ToolRef{{Server: "salesforce", Tool: "query"}},
		},
		{
			name:  "entry in a subdirectory resolves relative to itself",
			files: map[string]string{"progs/p.ts": `import { getDocument } from "../servers/google-drive/getDocument"; export default await getDocument({ documentId: "a" });`},
			entry: "progs/p.ts",
			calls: []ToolRef{{Server: "google-drive", Tool: "getDocument"}},
		},
		{
			name:  "runtime module directly",
			src:   `import { callMCPTool, ToolError } from "mcpcode:runtime"; export default [await callMCPTool("slack", "getDeployment", { id: "1" }), ToolError.name];`,
			calls: []ToolRef{{Server: "slack", Tool: "getDeployment"}},
		},
		{
			name: "fs module",
			src:  `import { readFile } from "mcpcode:fs"; export default await readFile("notes.txt");`,
		},
		{
			name:   "approved skill",
			src:    `import pending from "skills/pending-orders"; export default await pending({ sheetId: "s" });`,
			calls:  []ToolRef{{Server: "google-drive", Tool: "getSheet", Skill: "pending-orders"}, {Server: "salesforce", Tool: "updateRecord", Skill: "pending-orders"}},
			skills: []string{"pending-orders"},
		},
		{
			name:   "skill named <name>.ts, importing another skill",
			src:    `import writer from "skills/order-writer"; import { getDocument } from "servers/google-drive/getDocument"; await getDocument({ documentId: "a" }); export default await writer({});`,
			calls:  []ToolRef{{Server: "google-drive", Tool: "getDocument"}, {Server: "salesforce", Tool: "updateRecord", Skill: "order-writer"}, {Server: "google-drive", Tool: "getSheet", Skill: "pending-orders"}, {Server: "salesforce", Tool: "updateRecord", Skill: "pending-orders"}},
			skills: []string{"order-writer", "pending-orders"},
		},
		{
			name: "type-only imports vanish",
			src:  `import type { ToolResult } from "mcpcode:runtime"; const r: ToolResult | null = null; export default r;`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, tt.files)
			opts := BundleOptions{Workspace: ws, Skills: defaultPolicy}
			if tt.entry != "" {
				opts.Entry = filepath.Join(ws, tt.entry)
			} else {
				opts.Entry, opts.Source = "prog.ts", []byte(tt.src)
			}
			p, err := Bundle(opts)
			if err != nil {
				t.Fatalf("Bundle: %v", err)
			}
			wantCalls := tt.calls
			if wantCalls == nil {
				wantCalls = []ToolRef{}
			}
			sortRefs(wantCalls)
			if !reflect.DeepEqual(p.Calls, wantCalls) {
				t.Errorf("Calls = %+v, want %+v", p.Calls, wantCalls)
			}
			wantSkills := tt.skills
			if wantSkills == nil {
				wantSkills = []string{}
			}
			if !reflect.DeepEqual(p.Skills, wantSkills) {
				t.Errorf("Skills = %v, want %v", p.Skills, wantSkills)
			}
			if len(p.Unverifiable) != 0 {
				t.Errorf("Unverifiable = %v, want none", p.Unverifiable)
			}
			res := Run(t.Context(), p, RunOptions{Workspace: ws, Caller: newFakeCaller()})
			if res.Error != nil && res.Error.Kind == KindBundle {
				t.Errorf("bundle does not compile: %+v", res.Error)
			}
		})
	}
}

func sortRefs(refs []ToolRef) {
	for i := range refs {
		for j := i + 1; j < len(refs); j++ {
			a, b := refs[i], refs[j]
			if b.Skill < a.Skill || (b.Skill == a.Skill && (b.Server < a.Server || (b.Server == a.Server && b.Tool < a.Tool))) {
				refs[i], refs[j] = refs[j], refs[i]
			}
		}
	}
}

func TestBundleForbiddenImports(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.ts"), []byte(`export const secret = "s3cret";`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		files  map[string]string
		link   [2]string // symlink name → target (relative to ws, or absolute)
		policy SkillPolicy
		src    string
		want   []string // substrings of the error
	}{
		{name: "fs", src: `import * as fs from "fs"; fs.readFileSync("/etc/passwd");`, want: []string{`import "fs" is not allowed`, "Node built-in", `"mcpcode:fs"`}},
		{name: "node:fs", src: `import "node:fs";`, want: []string{`import "node:fs" is not allowed`}},
		{name: "child_process", src: `import { execSync } from "child_process"; execSync("id");`, want: []string{`import "child_process" is not allowed`}},
		{name: "http", src: `import "http";`, want: []string{`import "http" is not allowed`}},
		{name: "npm package", src: `import _ from "lodash"; _.chunk([1], 1);`, want: []string{`import "lodash" is not allowed`, "npm packages"}},
		{name: "absolute path", src: `import "/etc/passwd";`, want: []string{`import "/etc/passwd" is not allowed`, "absolute paths"}},
		{name: "dot-dot out of the workspace", src: `import "../../etc/passwd";`, want: []string{`import "../../etc/passwd" is not allowed`, "outside the workspace"}},
		{name: "servers path climbing out", src: `import "servers/../../x";`, want: []string{`import "servers/../../x" is not allowed`, "outside the workspace"}},
		{name: "symlink to outside", link: [2]string{"linked.ts", filepath.Join(outside, "secret.ts")}, src: `import { secret } from "./linked"; console.log(secret);`, want: []string{`import "./linked" is not allowed`, "symbolic link", "outside the workspace"}},
		{name: "symlink into workspace/", link: [2]string{"alias.ts", "workspace/evil.ts"}, src: `import { x } from "./alias"; console.log(x);`, want: []string{`import "./alias" is not allowed`, "workspace/"}},
		{name: "proposal", src: `import s from "skills/.proposals/sneaky"; s();`, want: []string{`import "skills/.proposals/sneaky" is not allowed`, "not approved"}},
		{name: "workspace data", src: `import { x } from "./workspace/evil"; console.log(x);`, want: []string{`import "./workspace/evil" is not allowed`, `"mcpcode:fs"`}},
		{name: "mcpcode internals", src: `import { x } from "./.mcpcode/manifest"; console.log(x);`, want: []string{`import "./.mcpcode/manifest" is not allowed`}},
		{name: "unknown mcpcode module", src: `import "mcpcode:process";`, want: []string{`import "mcpcode:process" is not allowed`}},
		{name: "URL", src: `import "https://example.com/x.js";`, want: []string{"URLs cannot be imported"}},
		{name: "non-code file", files: map[string]string{"mcp.json": `{"mcpServers":{}}`}, src: `import cfg from "./mcp.json"; console.log(cfg);`, want: []string{`import "./mcp.json" is not allowed`, "files can be imported"}},
		{name: "require", src: `const cp = require("child_process"); cp.execSync("id");`, want: []string{`require("child_process") is not available`}},
		{name: "dynamic import", src: `const m = await import("./lib"); console.log(m);`, want: []string{`dynamic import("./lib") is not available`}},
		{name: "skill not approved", policy: fakePolicy{}, src: `import p from "skills/pending-orders"; p({});`, want: []string{`import "skills/pending-orders"`, `skill "pending-orders" is not approved`}},
		{name: "skills unavailable", policy: nil, src: `import p from "skills/pending-orders"; p({});`, want: []string{"skills are not available"}},
		{name: "skill importing program code", files: map[string]string{"skills/pending-orders/index.ts": `import { double } from "../../lib"; export default () => double(1);`}, src: `import p from "skills/pending-orders"; p();`, want: []string{`import "../../lib" is not allowed`, `skill "pending-orders" may import only reviewed code`}},
		{name: "missing file", src: `import "./nope";`, want: []string{`import "./nope": no such file`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, tt.files)
			if tt.link[0] != "" {
				if err := os.Symlink(tt.link[1], filepath.Join(ws, tt.link[0])); err != nil {
					t.Fatal(err)
				}
			}
			policy := tt.policy
			if tt.policy == nil && tt.name != "skills unavailable" {
				policy = defaultPolicy
			}
			_, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(tt.src), Skills: policy})
			if err == nil {
				t.Fatal("Bundle succeeded, want an error")
			}
			var be *BundleError
			if !errors.As(err, &be) {
				t.Fatalf("error %T is not a *BundleError: %v", err, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error does not mention %q:\n%v", w, err)
				}
			}
			if d := be.Diagnostics[0]; d.File == "" || d.Line == 0 {
				t.Errorf("diagnostic has no position: %+v", d)
			}
		})
	}
}

func TestBundleDiagnosticPosition(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	src := "const a: number = 1;\nconst b = {\n  x: 1,,\n};\n"
	_, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(src)})
	var be *BundleError
	if !errors.As(err, &be) {
		t.Fatalf("Bundle error = %v, want a *BundleError", err)
	}
	d := be.Diagnostics[0]
	want := Diagnostic{File: "prog.ts", Line: 3, Column: 8, LineText: "  x: 1,,"}
	if d.File != want.File || d.Line != want.Line || d.Column != want.Column || d.LineText != want.LineText {
		t.Errorf("diagnostic = %+v, want position %+v", d, want)
	}
	wantText := "prog.ts:3:8: " + d.Text + "\n      x: 1,,\n           ^"
	if got := be.Error(); got != wantText {
		t.Errorf("Error() =\n%s\nwant\n%s", got, wantText)
	}
}

func TestBundleErrorInImportedFile(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, map[string]string{"servers/google-drive/getSheet.ts": "export const x = ;\n"})
	_, err := Bundle(BundleOptions{Workspace: ws, Entry: "prog.ts", Source: []byte(`import { x } from "servers/google-drive/getSheet"; console.log(x);`)})
	var be *BundleError
	if !errors.As(err, &be) || be.Diagnostics[0].File != "servers/google-drive/getSheet.ts" || be.Diagnostics[0].Line != 1 {
		t.Fatalf("error = %v, want a diagnostic at servers/google-drive/getSheet.ts:1", err)
	}
}

func TestBundleEntry(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, map[string]string{"prog.ts": `export default 1;`})
	outside := filepath.Join(t.TempDir(), "p.ts")
	if err := os.WriteFile(outside, []byte(`export default 1;`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		opts      BundleOptions
		wantEntry string
		wantErr   string
	}{
		{name: "file inside", opts: BundleOptions{Workspace: ws, Entry: filepath.Join(ws, "prog.ts")}, wantEntry: "prog.ts"},
		{name: "source without a name", opts: BundleOptions{Workspace: ws, Source: []byte(`export default 1;`)}, wantEntry: "stdin.ts"},
		{name: "source named", opts: BundleOptions{Workspace: ws, Entry: "stdin.ts", Source: []byte(`export default 1;`)}, wantEntry: "stdin.ts"},
		{name: "file outside", opts: BundleOptions{Workspace: ws, Entry: outside}, wantErr: "is outside the workspace"},
		{name: "missing file", opts: BundleOptions{Workspace: ws, Entry: filepath.Join(ws, "nope.ts")}, wantErr: "no such file"},
		{name: "no workspace", opts: BundleOptions{Entry: "x.ts", Source: []byte("1")}, wantErr: "no workspace given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Bundle(tt.opts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if p.Entry != tt.wantEntry {
				t.Errorf("Entry = %q, want %q", p.Entry, tt.wantEntry)
			}
		})
	}
}

func TestBundleStaticAnalysis(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		src          string
		calls        []ToolRef
		unverifiable []string
	}{
		{
			name:         "non-literal tool name",
			src:          "import { callMCPTool } from \"mcpcode:runtime\";\nconst tool = \"get\" + \"Deployment\";\nawait callMCPTool(\"slack\", tool, {});\n",
			calls:        []ToolRef{},
			unverifiable: []string{"prog.ts:3"},
		},
		{
			name:         "aliased call function",
			src:          "import { callMCPTool } from \"mcpcode:runtime\";\nconst f = callMCPTool;\nawait f(\"slack\", \"getDeployment\", {});\n",
			calls:        []ToolRef{},
			unverifiable: []string{"prog.ts:2"},
		},
		{
			name:         "call function passed around",
			src:          "import { callMCPTool } from \"mcpcode:runtime\";\nconst names = [\"a\", \"b\"];\nawait Promise.all(names.map((n) => callMCPTool(\"slack\", n)));\nawait callMCPTool(\"slack\", \"getDeployment\", { id: \"1\" });\n[1].forEach(callMCPTool as any);\n",
			calls:        []ToolRef{{Server: "slack", Tool: "getDeployment"}},
			unverifiable: []string{"prog.ts:3", "prog.ts:5"},
		},
		{
			name:         "template literals without substitutions are literal",
			src:          "import { callMCPTool } from \"mcpcode:runtime\";\nawait callMCPTool(`slack`, `getDeployment`, {});\n",
			calls:        []ToolRef{{Server: "slack", Tool: "getDeployment"}},
			unverifiable: []string{},
		},
		{
			name:         "unused tool functions are tree-shaken",
			src:          "import { getDocument, getSheet } from \"servers/google-drive\";\nexport default 1;\n",
			calls:        []ToolRef{},
			unverifiable: []string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := bundleSource(t, newWorkspace(t, nil), tt.src)
			if !reflect.DeepEqual(p.Calls, tt.calls) {
				t.Errorf("Calls = %+v, want %+v", p.Calls, tt.calls)
			}
			if !reflect.DeepEqual(p.Unverifiable, tt.unverifiable) {
				t.Errorf("Unverifiable = %v, want %v", p.Unverifiable, tt.unverifiable)
			}
		})
	}
}

func TestBundleHostNameIsRandomAndUnguessable(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	a := bundleSource(t, ws, `export default 1;`)
	b := bundleSource(t, ws, `export default 1;`)
	if a.Code == b.Code {
		t.Fatal("two builds produced the same code; the host parameter name must be random per build")
	}
	if !strings.HasPrefix(a.Code, "(async (__mcpcode_") {
		t.Fatalf("bundle does not start with the wrapper: %.60q", a.Code)
	}
}
