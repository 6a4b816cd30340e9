//go:build !unix

package servers

import (
	"os/exec"
	"time"
)

// setProcessGroup does nothing where process groups do not exist.
func setProcessGroup(cmd *exec.Cmd) {}

// signalGroup stops the leader only where process groups do not exist.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// waitGroupGone has nothing to wait for where process groups do not exist.
func waitGroupGone(cmd *exec.Cmd, timeout time.Duration) {}
