package generator

import (
	"slices"
	"strings"
	"testing"
)

func TestJSQuote(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"plain", `"plain"`},
		{`say "hi"`, `"say \"hi\""`},
		{`back\slash`, `"back\\slash"`},
		{"a\nb\rc\td", `"a\nb\rc\td"`},
		{"\u2028\u2029", `"\u2028\u2029"`},
		{"nul\x00bel\x07", `"nul\u0000bel\u0007"`},
		{"\ufeff\u202e", `"\ufeff\u202e"`},
		{"bad\xffutf8", `"bad\ufffdutf8"`},
		{"ünï 日本 `${x}` </script>", "\"ünï 日本 `${x}` </script>\""},
		{"\U000e0001", `"\udb40\udc01"`},
	} {
		if got := jsQuote(c.in); got != c.want {
			t.Errorf("jsQuote(%q) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestCommentLines(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"one line", []string{"one line"}},
		{"ends */ here", []string{`ends *\/ here`}},
		{"**/", []string{`**\/`}},
		{"a\r\nb\rc\u2028d\u2029e", []string{"a", "b", "c", "d", "e"}},
		{"@param x\n  @ts-ignore\nmid @tag", []string{`\@param x`, `  \@ts-ignore`, "mid @tag"}},
		{"nul\x00 bom\ufeff", []string{`nul\u0000 bom\ufeff`}},
		{"trailing  \n\n\n", []string{"trailing"}},
		{"", nil},
	} {
		if got := commentLines(c.in); !slices.Equal(got, c.want) {
			t.Errorf("commentLines(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestFirstSentence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"Gets a document. Then more.", 100, "Gets a document."},
		{"First line\nsecond line", 100, "First line"},
		{"Version 1.2 is out", 100, "Version 1.2 is out"},
		{"abcdefghij", 5, "abcd…"},
		{"*/ @x", 100, `*\/ @x`},
		{"@ts-nocheck", 100, `\@ts-nocheck`},
	} {
		if got := firstSentence(c.in, c.max); got != c.want {
			t.Errorf("firstSentence(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

func TestDecodeValueKeepsOrder(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		keys []string
		last string // value of key "a"
	}{
		{`{"z":1,"a":2,"m":3}`, []string{"z", "a", "m"}, "2"},
		{`{"a":1,"b":2,"a":3}`, []string{"a", "b"}, "3"},
		{`{}`, nil, ""},
	} {
		v, err := decodeValue([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, m := range v.members {
			keys = append(keys, m.key)
		}
		if !slices.Equal(keys, c.keys) {
			t.Errorf("%s: keys %v, want %v", c.in, keys, c.keys)
		}
		if a := v.get("a"); (a == nil && c.last != "") || (a != nil && a.text != c.last) {
			t.Errorf("%s: a = %v, want %s", c.in, a, c.last)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1} x`, `[1,]`} {
		if _, err := decodeValue([]byte(bad)); err == nil {
			t.Errorf("decodeValue(%q) accepted invalid JSON", bad)
		}
	}
}

func TestPlainLine(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		max  int
		want string
	}{
		{"@modelcontextprotocol/server-everything 2026.8.31", 100, "@modelcontextprotocol/server-everything 2026.8.31"},
		{"# Everything Server – Server Instructions", 100, "Everything Server – Server Instructions"},
		{"  two\nlines\r\n\tand\u2028more  ", 100, "two lines and more"},
		{"snake_case *stars* [link](x) `code` <b>", 100, "snake_case *stars* [link](x) `code` <b>"},
		{"hidden\u200bzero\u202ebidi\x00nul", 100, `hidden\u200bzero\u202ebidi\u0000nul`},
		{"a long description that is cut", 10, "a long de…"},
		{"", 10, ""},
	} {
		if got := plainLine(c.in, c.max); got != c.want {
			t.Errorf("plainLine(%q, %d) = %q, want %q", c.in, c.max, got, c.want)
		}
	}
}

// TestReadmeServerLine checks a server's line in README.md: its
// description as plain text, else its title, else its name, with the
// version; never its instructions.
func TestReadmeServerLine(t *testing.T) {
	t.Parallel()
	entries := []ServerEntry{
		{Name: "a", Directory: "a", Info: ServerInfo{Name: "@scope/a", Title: "A server", Version: "1.0", Description: "@scope/a reads @mentions\nand *files*."}, Instructions: "# A – Instructions"},
		{Name: "b", Directory: "b", Info: ServerInfo{Name: "@scope/b", Title: "B server", Version: "2.0"}, Instructions: "# B – Instructions"},
		{Name: "c", Directory: "c", Info: ServerInfo{Name: "@scope/c", Version: "3.0"}},
	}
	readme := string(renderReadme(entries))
	for _, want := range []string{
		"- `a/` — 0 tools. @scope/a reads @mentions and *files*.\n",
		"- `b/` — 0 tools. B server 2.0\n",
		"- `c/` — 0 tools. @scope/c 3.0\n",
	} {
		if !strings.Contains(readme, want) {
			t.Errorf("README lacks %q:\n%s", want, readme)
		}
	}
	if strings.Contains(readme, "Instructions") || strings.Contains(readme, `\@`) {
		t.Errorf("README shows instructions or escapes:\n%s", readme)
	}
}
