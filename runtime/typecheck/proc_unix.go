//go:build unix

package typecheck

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup runs the compiler in a process group of its own and
// stops the whole group when it is canceled: a launcher script's child
// (node starting the native compiler) goes with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setParentDeath(cmd.SysProcAttr)
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
