package skills

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Attacks on the reviewers' flow (issue 23): a hostile proposal, a hostile
// pull request, a hand edit of an approved skill, a revoked skill brought
// back. Each test fails when its attack works.

// TestAttackUnreadableByteCannotHideTheDiff: one NUL or one byte that is
// not UTF-8, in a comment, made the new index.ts "not text", and the
// re-approval card dropped its line diff: the reviewer read "index.ts
// changed (not text)" and had to find the change in the whole program. The
// program still bundles and runs, so its diff is shown, escaped.
func TestAttackUnreadableByteCannotHideTheDiff(t *testing.T) {
	for _, junk := range []string{"\x00", "\xff"} {
		w := demoWorkspace(t)
		propose(t, w, "lead-status", readLead)
		if _, err := approve(w, "lead-status", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
			t.Fatal(err)
		}
		changed := strings.Replace(readLead, `objectType: "Lead"`, `objectType: "User"`, 1) + "// " + junk + "\n"
		if _, err := w.Propose(ProposeOptions{Name: "lead-status", Description: "Does lead-status.", Rationale: "x", Program: []byte(changed), Now: fixedNow}); err != nil {
			t.Fatalf("%q: %v", junk, err)
		}
		c, err := w.Show("lead-status")
		if err != nil {
			t.Fatal(err)
		}
		md := c.Markdown(MarkdownOptions{})
		if !strings.Contains(md, "### Diff of `index.ts`") || !strings.Contains(md, `+  const lead = await getRecord({ objectType: "User"`) {
			t.Errorf("%q: the card does not show the line that changed:\n%s", junk, md)
		}
		if text := c.Render(); !strings.Contains(text, `+  const lead = await getRecord({ objectType: "User"`) {
			t.Errorf("%q: the terminal card does not show the line that changed", junk)
		}
		if strings.Contains(md, junk) {
			t.Errorf("%q: the card holds the byte raw", junk)
		}
	}
}

// TestAttackLongLineCannotHideInTheTerminalCard: the terminal card
// printed each line of the program whole, so code after a few thousand
// spaces sat far to the right, past what a reviewer's pager shows (less
// -S) or reads; the Markdown card already broke such lines. Every line of
// the terminal card is at most the card's width (plus its margins), the
// rest of a long line on lines marked ↪, and the diff's lines too.
func TestAttackLongLineCannotHideInTheTerminalCard(t *testing.T) {
	w := demoWorkspace(t)
	propose(t, w, "lead-status", readLead)
	if _, err := approve(w, "lead-status", ApproveOptions{ApprovedBy: "Ana", ApprovedAt: fixedNow()}); err != nil {
		t.Fatal(err)
	}
	long := strings.Replace(readLead, "  return lead.Status;", "  return lead.Status;"+strings.Repeat(" ", 3000)+"/* hidden-ZZQ */", 1)
	if _, err := w.Propose(ProposeOptions{Name: "lead-status", Description: "Does lead-status.", Rationale: "x", Program: []byte(long), Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	c, err := w.Show("lead-status")
	if err != nil {
		t.Fatal(err)
	}
	text := c.Render()
	for _, l := range strings.Split(text, "\n") {
		if n := utf8.RuneCountInString(l); n > MarkdownWidth+40 {
			t.Errorf("a line of %d runes in the terminal card: %.60q…", n, l)
		}
	}
	if strings.Count(text, "hidden-ZZQ") != 2 {
		t.Errorf("the long line's end is not shown (in the program and in its diff):\n%s", text)
	}
}
