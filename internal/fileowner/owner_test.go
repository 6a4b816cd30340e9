package fileowner

import (
	"os"
	"path/filepath"
	goruntime "runtime"
	"testing"
)

// TestOfNamesThisUser: a file this process made is owned by its user,
// where files have a unix owner.
func TestOfNamesThisUser(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	uid, known := Of(fi)
	if goruntime.GOOS == "windows" {
		if known {
			t.Errorf("an owner %d known on Windows", uid)
		}
		return
	}
	if !known || int(uid) != os.Geteuid() {
		t.Errorf("Of = %d, %v; want %d, true", uid, known, os.Geteuid())
	}
}
