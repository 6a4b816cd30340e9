package generator

import (
	"strings"
	"testing"
)

func TestCamelName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"API-get-user", "apiGetUser"},
		{"get_document", "getDocument"},
		{"getDocument", "getDocument"},
		{"GetUser", "getUser"},
		{"XMLHttpRequest", "xmlHttpRequest"},
		{"GET_USER_BY_ID", "getUserById"},
		{"get_URL", "getURL"},
		{"3d-view", "_3dView"},
		{"a.b c", "aBC"},
		{"", "tool"},
		{"получить", "tool"},
		{"__proto__", "proto"},
		{"browser_navigate_back", "browserNavigateBack"},
		{strings.Repeat("ab", 100), strings.Repeat("ab", 32)},
	} {
		if got := camelName(c.in); got != c.want {
			t.Errorf("camelName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAssignToolNames(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		tools []string
		want  map[string]toolName
	}{
		{"reserved words and devices", []string{"delete", "export", "default", "new", "index", "con", "NUL", "callMCPTool"}, map[string]toolName{
			"delete":      {Function: "delete_", Type: "Delete"},
			"export":      {Function: "export_", Type: "Export"},
			"default":     {Function: "default_", Type: "Default"},
			"new":         {Function: "new_", Type: "New"},
			"index":       {Function: "index_", Type: "Index"},
			"con":         {Function: "con_", Type: "Con"},
			"NUL":         {Function: "nul_", Type: "Nul"},
			"callMCPTool": {Function: "callMCPTool_", Type: "CallMCPTool"},
		}},
		{"collisions after sanitizing: the exact name wins, others by sorted name", []string{"get-user", "getUser", "get_user"}, map[string]toolName{
			"getUser":  {Function: "getUser", Type: "GetUser"},
			"get-user": {Function: "getUser2", Type: "GetUser2", Renamed: true},
			"get_user": {Function: "getUser3", Type: "GetUser3", Renamed: true},
		}},
		{"case-insensitive collisions", []string{"getuser", "getUser"}, map[string]toolName{
			"getUser": {Function: "getUser", Type: "GetUser"},
			"getuser": {Function: "getuser2", Type: "Getuser2", Renamed: true},
		}},
		{"a suffix never takes a real name", []string{"a-b", "aB", "aB2"}, map[string]toolName{
			"aB":  {Function: "aB", Type: "AB"},
			"aB2": {Function: "aB2", Type: "AB2"},
			"a-b": {Function: "aB3", Type: "AB3", Renamed: true},
		}},
		{"empty and leading digits", []string{"", "3d"}, map[string]toolName{
			"":   {Function: "tool", Type: "Tool"},
			"3d": {Function: "_3d", Type: "_3d"},
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := assignToolNames(c.tools, nil)
			for orig, want := range c.want {
				if got[orig] != want {
					t.Errorf("%q → %+v, want %+v", orig, got[orig], want)
				}
			}
		})
	}
}

func TestDirName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want string }{
		{"google-drive", "google-drive"},
		{"..", "server"},
		{"", "server"},
		{"a/b", "a-b"},
		{`a\b`, "a-b"},
		{"../../etc", "etc"},
		{".hidden", "hidden"},
		{"con", "con_"},
		{"COM1", "COM1_"},
		{"lpt9.txt", "lpt9_.txt"},
		{"name. ", "name"},
		{"x\x00y", "x-y"},
		{"README.md", "README.md_"},
		{"tsconfig.json", "tsconfig.json_"},
		{"-rf", "rf"},
		{strings.Repeat("a", 100), strings.Repeat("a", 64)},
	} {
		got := dirName(c.in)
		if got != c.want {
			t.Errorf("dirName(%q) = %q, want %q", c.in, got, c.want)
		}
		if !safeSegment(got) {
			t.Errorf("dirName(%q) = %q is not a safe segment", c.in, got)
		}
	}
}

func TestSafeRelPath(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want bool
	}{
		{"google-drive/getDocument.ts", true},
		{"README.md", true},
		{"../x", false},
		{"a/../b", false},
		{"/etc/passwd", false},
		{`a\b`, false},
		{"a//b", false},
		{"", false},
		{".mcpcode/manifest.json", false},
		{"con/x.ts", false},
		{"a/nul.ts", false},
		{"a/b\x00", false},
	} {
		if got := safeRelPath(c.in); got != c.want {
			t.Errorf("safeRelPath(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}
