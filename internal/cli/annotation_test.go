package cli

import (
	"strings"
	"testing"

	"github.com/mcpcode/mcpcode/skills"
)

// TestGitHubAnnotationCannotStartACommand: a problem's text (from a
// skill's files) cannot end the annotation or start another workflow
// command, and a file name cannot add properties.
func TestGitHubAnnotationCannotStartACommand(t *testing.T) {
	p := skills.Problem{Skill: "x", Message: "bad\n::add-mask::secret\r\n::stop-commands::tok %0A \x1b[2J \u202e", File: "skills/x/a,line=9::b.ts", Line: 3}
	got := githubAnnotation("skills/x/a,line=9::b.ts", p)
	want := "::error file=skills/x/a%2Cline=9%3A%3Ab.ts,line=3,title=mcpcode skills verify%3A x::skills/x: bad\\n::add-mask::secret\\r\\n::stop-commands::tok %250A \\u001b[2J \\u202e"
	if got != want {
		t.Errorf("annotation:\n%s\nwant:\n%s", got, want)
	}
	if strings.ContainsAny(got, "\r\n\x1b\u202e") {
		t.Errorf("raw control characters: %q", got)
	}
}
