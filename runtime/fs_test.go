package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWorkspaceFiles(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	if err := os.RemoveAll(filepath.Join(ws, "workspace")); err != nil {
		t.Fatal(err)
	}
	src := `import * as fs from "mcpcode:fs";
const out: any[] = [];
out.push(await fs.readdir(""), await fs.exists("a.txt"));
await fs.writeFile("a.txt", "one");
await fs.appendFile("a.txt", "+two");
await fs.writeFile("dir/sub/b.txt", "b");
await fs.writeJSON("data.json", { n: 1, list: [1, 2] });
out.push(await fs.readFile("a.txt"), await fs.readJSON("data.json"), await fs.readdir("."), await fs.readdir("dir"));
out.push(await fs.exists("dir"), await fs.exists("dir/sub/b.txt"));
await fs.rm("dir");
out.push(await fs.exists("dir"), await fs.readdir());
export default out;`
	res := runSource(t, src, RunOptions{Workspace: ws})
	mustOK(t, res)
	want := `[[],false,"one+two",{"n":1,"list":[1,2]},["a.txt","data.json","dir/"],["sub/"],true,true,false,["a.txt","data.json"]]`
	if string(res.Result) != want {
		t.Errorf("result = %s\nwant     %s", res.Result, want)
	}
	data, err := os.ReadFile(filepath.Join(ws, "workspace", "data.json"))
	if err != nil || string(data) != "{\n  \"n\": 1,\n  \"list\": [\n    1,\n    2\n  ]\n}\n" {
		t.Errorf("data.json = %q, %v", data, err)
	}
}

func TestWorkspaceFilesConfinement(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		call string
		want string
	}{
		{name: "absolute read", call: `readFile("/etc/passwd")`, want: `readFile: path "/etc/passwd" is outside workspace/: paths are relative to workspace/`},
		{name: "absolute write", call: `writeFile("/tmp/x", "x")`, want: `writeFile: path "/tmp/x" is outside workspace/`},
		{name: "dot-dot", call: `readFile("../servers/google-drive/index.ts")`, want: `readFile: path "../servers/google-drive/index.ts" is outside workspace/`},
		{name: "dot-dot inside the path", call: `writeFile("a/../../x", "x")`, want: `writeFile: path "a/../../x" is outside workspace/`},
		{name: "symlink out, read", call: `readFile("out/secret.txt")`, want: `readFile: path "out/secret.txt" is outside workspace/ (through a symbolic link)`},
		{name: "symlink out, write", call: `writeFile("out/new.txt", "x")`, want: `is outside workspace/ (through a symbolic link)`},
		{name: "symlink out, list", call: `readdir("out")`, want: `is outside workspace/ (through a symbolic link)`},
		{name: "NUL", call: `readFile("a\u0000b")`, want: `contains a NUL character`},
		{name: "backslash", call: `readFile("..\\x")`, want: `contains a backslash: use forward slashes`},
		{name: "remove workspace itself", call: `rm(".")`, want: `names workspace/ itself`},
		{name: "missing file", call: `readFile("nope.txt")`, want: `readFile: "nope.txt" does not exist in workspace/`},
		{name: "invalid JSON", call: `readJSON("notes.txt")`, want: `readJSON: "notes.txt" is not valid JSON`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWorkspace(t, nil)
			if err := os.Symlink(outside, filepath.Join(ws, "workspace", "out")); err != nil {
				t.Fatal(err)
			}
			src := `import * as fs from "mcpcode:fs";
let out = "no error";
try { await fs.` + tt.call + `; } catch (e) { out = e.message; }
export default out;`
			res := runSource(t, src, RunOptions{Workspace: ws})
			mustOK(t, res)
			var got string
			if err := json.Unmarshal(res.Result, &got); err != nil || !strings.Contains(got, tt.want) {
				t.Errorf("result = %s, want it to contain %q", res.Result, tt.want)
			}
			if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
				t.Error("a file was written outside the workspace")
			}
		})
	}
}

func TestWorkspaceWriteQuota(t *testing.T) {
	t.Parallel()
	ws := newWorkspace(t, nil)
	res := runSource(t, `import { writeFile, appendFile } from "mcpcode:fs";
await writeFile("a.txt", "12345");
let caught = "";
try { await appendFile("a.txt", "678901"); } catch (e) { caught = e.message; }
console.log(caught);
await writeFile("b.txt", "x".repeat(100));`, RunOptions{Workspace: ws, Limits: Limits{FSQuota: fsEntryCost + 10}})
	if res.Error == nil || res.Error.Kind != KindLimit || res.Error.Limit != LimitFSQuota {
		t.Fatalf("error = %+v, want the fs-quota limit", res.Error)
	}
	if !strings.Contains(res.Error.Message, "workspace write quota of 4106 bytes exceeded (--fs-quota)") {
		t.Errorf("message = %q", res.Error.Message)
	}
	if !strings.Contains(logText(res), `appendFile("a.txt"): workspace write quota of 4106 bytes exceeded`) {
		t.Errorf("caught message = %q", logText(res))
	}
	data, _ := os.ReadFile(filepath.Join(ws, "workspace", "a.txt"))
	if string(data) != "12345" {
		t.Errorf("a.txt = %q, want only the write within the quota", data)
	}
}
