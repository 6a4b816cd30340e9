package skills

import (
	"strings"
	"testing"
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
