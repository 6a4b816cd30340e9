package gateway

import (
	"testing"

	"github.com/mcpcode/mcpcode/internal/app"
	"github.com/mcpcode/mcpcode/skills"
)

// approveAsLaidOut approves a skill whose files a test wrote under
// skills/<name>/, as a person would after reading its card: an approval
// records the hash of the files and grant, without which a skill does not
// run.
func approveAsLaidOut(t testing.TB, ws *app.Workspace, name string) {
	t.Helper()
	card, err := ws.ShowSkill(name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.ApproveSkill(name, skills.ApproveOptions{SHA256: card.SHA256, ApprovedBy: "test"}); err != nil {
		t.Fatal(err)
	}
}
