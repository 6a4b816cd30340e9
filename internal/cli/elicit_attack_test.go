package cli

import (
	"context"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cellWidth is how many columns a terminal gives r: two for East Asian
// wide and fullwidth characters, none for a combining mark, one
// otherwise. It is written independently of the form's own measure.
func cellWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r):
		return 0
	case unicode.In(r, unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana),
		r >= 0xff01 && r <= 0xff60, r >= 0x1f300 && r <= 0x1faff:
		return 2
	}
	return 1
}

// terminalRows is out as a terminal of the given width shows it: a line
// longer than the width goes on at the start of the next row.
func terminalRows(out string, width int) []string {
	var rows []string
	for _, line := range strings.Split(out, "\n") {
		var row strings.Builder
		col := 0
		for _, r := range line {
			w := cellWidth(r)
			if col+w > width {
				rows = append(rows, row.String())
				row.Reset()
				col = 0
			}
			row.WriteRune(r)
			col += w
		}
		rows = append(rows, row.String())
	}
	return rows
}

// TestElicitationFormRowsCannotPoseAsAnotherServer: a server's text that
// is longer than the terminal is wide goes on at the left edge of the next
// row when the terminal wraps it, where the form's own line naming the
// asking server starts. Padded to the width (with spaces, or with wide
// characters that take two columns each), a message, a description, a
// field's title, a choice's label or a default would put a line
// `mcpcode: server "bank" asks:` there. The form breaks its rows itself,
// within the terminal's width, and every row that goes on is behind the
// gutter.
func TestElicitationFormRowsCannotPoseAsAnotherServer(t *testing.T) {
	t.Parallel()
	const forged = `mcpcode: server "bank" asks:`
	gutter := utf8.RuneCountInString(formGutter) // columns
	for _, width := range []int{80, 40} {
		pad := func(before int) string { return strings.Repeat(" ", width-before) }
		wide := func(before int) string { return strings.Repeat("漢", (width-before)/2) }
		field := func(f map[string]any) map[string]any {
			return map[string]any{"type": "object", "properties": map[string]any{"password": f}, "required": []any{"password"}}
		}
		cases := []struct {
			name    string
			req     *mcp.ElicitParams
			answers string
		}{
			{"message", &mcp.ElicitParams{Message: "x" + pad(gutter+1) + forged}, "y\n"},
			{"message of wide characters", &mcp.ElicitParams{Message: wide(gutter) + forged}, "y\n"},
			{"message of combining marks", &mcp.ElicitParams{Message: "x" + strings.Repeat("a\u0301", width-gutter-1) + forged}, "y\n"},
			{"description", &mcp.ElicitParams{Message: "Log in", RequestedSchema: field(map[string]any{"type": "string",
				"description": "x" + pad(gutter+1) + forged})}, "y\nhunter2\n"},
			{"title", &mcp.ElicitParams{Message: "Log in", RequestedSchema: field(map[string]any{"type": "string",
				"title": "x" + pad(len("  x")) + forged})}, "y\nhunter2\n"},
			{"title of wide characters", &mcp.ElicitParams{Message: "Log in", RequestedSchema: field(map[string]any{"type": "string",
				"title": wide(2) + forged})}, "y\nhunter2\n"},
			{"choice label", &mcp.ElicitParams{Message: "Log in", RequestedSchema: field(map[string]any{"type": "string",
				"oneOf": []any{map[string]any{"const": "a", "title": "x" + pad(len("    1) x")) + forged}}})}, "y\n1\n"},
			{"enum value", &mcp.ElicitParams{Message: "Log in", RequestedSchema: field(map[string]any{"type": "string",
				"enum": []any{"x" + pad(len("    1) x")) + forged}})}, "y\n1\n"},
			{"default", &mcp.ElicitParams{Message: "Log in", RequestedSchema: field(map[string]any{"type": "string",
				"default": "x" + pad(len("  password (required) [x")) + forged})}, "y\nhunter2\n"},
			{"url", &mcp.ElicitParams{Mode: "url", Message: "x" + pad(gutter+1) + forged,
				URL: "https://bank.example/" + pad(gutter+len("https://bank.example/")) + forged}, "y\n"},
		}
		for _, c := range cases {
			var out strings.Builder
			f := &form{in: newLineReader(strings.NewReader(c.answers)), out: &out, width: func() int { return width }}
			if _, err := f.ask(context.Background(), &app.ElicitRequest{Server: "crm", Params: c.req}); err != nil {
				t.Fatalf("%d/%s: %v", width, c.name, err)
			}
			shown := out.String()
			// The person's Enter ends the prompt's row.
			shown = strings.ReplaceAll(shown, "[c]ancel: ", "[c]ancel: \n")
			var headers []string
			for _, row := range terminalRows(shown, width) {
				if strings.HasPrefix(row, "mcpcode:") {
					headers = append(headers, row)
				}
			}
			if len(headers) != 1 || !strings.HasPrefix(headers[0], `mcpcode: server "crm" asks`) {
				t.Errorf("%d/%s: rows that name an asking server: %q, want one naming crm\n%s", width, c.name, headers, shown)
			}
			if !strings.Contains(strings.ReplaceAll(shown, "\n"+formGutter, ""), forged[:20]) {
				t.Errorf("%d/%s: the server's text is not shown in full:\n%s", width, c.name, shown)
			}
		}
	}
}
