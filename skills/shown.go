package skills

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/mcpcode/mcpcode/internal/atomicfile"
	"github.com/mcpcode/mcpcode/internal/layout"
)

// Show records the hash of the card it showed last for each skill, so that
// `skills approve NAME` without --sha256 approves what the person read and
// nothing else. The record is mcpcode's own state (.mcpcode/shown/), never
// part of a skill's folder.

func (w Workspace) shownPath(name string) string {
	return filepath.Join(w.Root, layout.StateDir, "shown", name+".json")
}

type shownRecord struct {
	SHA256 string `json:"sha256"`
}

// noteShown records that the card of name with this review hash was shown.
// A failure to record only means approving needs --sha256.
func (w Workspace) noteShown(name, review string) {
	data, _ := json.Marshal(shownRecord{SHA256: review})
	_ = atomicfile.Write(w.shownPath(name), append(data, '\n'), 0o644)
}

// shownHash is the review hash of the card of name shown last, or "".
func (w Workspace) shownHash(name string) string {
	data, err := os.ReadFile(w.shownPath(name))
	if err != nil {
		return ""
	}
	var r shownRecord
	if json.Unmarshal(data, &r) != nil {
		return ""
	}
	return r.SHA256
}

// forgetShown drops the record once a skill is approved.
func (w Workspace) forgetShown(name string) { _ = os.Remove(w.shownPath(name)) }
