package typecheck

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/tsc"
)

// corpusWorkspace returns a workspace holding the tree of the 16 captured
// real servers (generator/testdata/corpus), as gen writes it.
func corpusWorkspace(b *testing.B) string {
	b.Helper()
	root, err := tsc.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(root, "generator", "testdata", "corpus", "*.json"))
	if err != nil || len(paths) != 16 {
		b.Fatalf("want the 16 corpus servers, got %d (%v)", len(paths), err)
	}
	var servers []generator.Server
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			b.Fatal(err)
		}
		var tools []json.RawMessage
		if err := json.Unmarshal(data, &tools); err != nil {
			b.Fatal(err)
		}
		servers = append(servers, generator.Server{Name: strings.TrimSuffix(filepath.Base(p), ".json"), Tools: tools})
	}
	plan, err := generator.Generate(servers, generator.Options{})
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	if _, err := generator.Write(filepath.Join(ws, "servers"), filepath.Join(ws, ".mcpcode", "manifest.json"), plan); err != nil {
		b.Fatal(err)
	}
	return ws
}

// BenchmarkCheck times the type check of a program: "cold" runs the
// compiler each time (its cache emptied), "cached" finds the result of an
// unchanged program (the files it imports hashed, no compiler started).
// demo: a program against the demo tree (getSheet and a skill); corpus-one:
// one tool of the 16-server corpus tree; corpus-all: every corpus server's
// index.ts, so every file of that tree (196).
func BenchmarkCheck(b *testing.B) {
	c, err := Find(FindOptions{Configured: tsc.Path(b)})
	if err != nil {
		b.Fatal(err)
	}
	demo := demoWorkspaceB(b)
	corpus := corpusWorkspace(b)
	var all strings.Builder
	entries, _ := os.ReadDir(filepath.Join(corpus, "servers"))
	n := 0
	for _, e := range entries {
		if e.IsDir() {
			n++
			all.WriteString("import * as s" + strconv.Itoa(n) + " from \"servers/" + e.Name() + "\";\nconsole.log(Object.keys(s" + strconv.Itoa(n) + "));\n")
		}
	}
	for _, bc := range []struct {
		name, ws, program string
	}{
		{"demo", demo, `import { getSheet } from "./servers/google-drive/getSheet";
import pendingOrders from "skills/pending-orders";
const sheet = await getSheet({ sheetId: "abc123" });
const pending = sheet.rows.filter((row) => row["Status"] === "pending");
console.log(pending.length, (await pendingOrders({ limit: 3 })).total);
`},
		{"corpus-one", corpus, `import { createIssue } from "servers/github/createIssue";
const issue = await createIssue({ owner: "o", repo: "r", title: "t" });
console.log(issue.text);
`},
		{"corpus-all", corpus, all.String()},
	} {
		req := request(bc.ws, bc.program)
		if res := checkB(b, c, req); !res.OK {
			b.Fatalf("%s: %+v", bc.name, res.Diagnostics)
		}
		b.Run(bc.name+"/cold", func(b *testing.B) {
			for b.Loop() {
				if err := os.RemoveAll(filepath.Join(req.StateDir, "cache")); err != nil {
					b.Fatal(err)
				}
				if res := checkB(b, c, req); res.Cached {
					b.Fatal("cached")
				}
			}
		})
		b.Run(bc.name+"/cached", func(b *testing.B) {
			checkB(b, c, req)
			for b.Loop() {
				if res := checkB(b, c, req); !res.Cached {
					b.Fatal("not cached")
				}
			}
		})
	}
}

func checkB(b *testing.B, c *Compiler, req Request) *Result {
	b.Helper()
	res, err := c.Check(context.Background(), req)
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// demoWorkspaceB is demoWorkspace for a benchmark.
func demoWorkspaceB(b *testing.B) string {
	b.Helper()
	root, err := tsc.ModuleRoot()
	if err != nil {
		b.Fatal(err)
	}
	ws := b.TempDir()
	for _, dir := range []string{"servers", "skills"} {
		if err := os.CopyFS(filepath.Join(ws, dir), os.DirFS(filepath.Join(root, "examples", "demo", dir))); err != nil {
			b.Fatal(err)
		}
	}
	return ws
}
