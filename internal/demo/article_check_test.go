package demo_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/generator"
	"github.com/mcpcode/mcpcode/internal/tsc"
	"github.com/mcpcode/mcpcode/runtime"
	"github.com/mcpcode/mcpcode/runtime/typecheck"
)

// TestArticleSnippetsTypeCheck type-checks the article's snippets against
// the demo's generated tree, as `mcpcode check` does. The snippets that
// run as written pass; the two that cannot run as written are refused
// before anything runs, for the reason their run fails after its calls
// (see TestArticlePendingOrders, TestArticleSaveSheetAsCsv), and their
// adapted versions pass. Snippet 4 passes a sheet cell where the CRM
// declares a string: it passes because the demo's sheets, like Google
// Sheets' API by default, return every cell as a formatted string.
func TestArticleSnippetsTypeCheck(t *testing.T) {
	t.Parallel()
	c, err := typecheck.Find(typecheck.FindOptions{Configured: tsc.Path(t)})
	if err != nil {
		t.Fatal(err)
	}
	ws := articleWorkspace(t)
	for _, tt := range []struct {
		name string
		want []string // file:line: message, one per error
	}{
		{"transcript-to-salesmeeting.ts", nil},
		{"wait-for-deployment.ts", nil},
		{"update-leads.ts", nil},
		{"pending-orders.adapted.ts", nil},
		{"save-sheet-as-csv.adapted.ts", nil},
		{"pending-orders.ts", []string{"pending-orders.ts:10: Property 'filter' does not exist on type 'GetSheetOutput'."}},
		{"save-sheet-as-csv.ts", []string{"save-sheet-as-csv.ts:11: Property 'map' does not exist on type 'GetSheetOutput'.", "save-sheet-as-csv.ts:12: Cannot find name 'fs'."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "article", tt.name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(ws, tt.name), src, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := c.Check(context.Background(), typecheck.Request{Workspace: ws, Program: tt.name, Declarations: generator.RuntimeDeclarations(),
				StateDir: filepath.Join(ws, ".mcpcode", "check"), Importable: runtime.ImportRefusal})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range res.Diagnostics {
				got = append(got, d.File+":"+strconv.Itoa(d.Line)+": "+d.Message)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || res.OK != (tt.want == nil) {
				t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
