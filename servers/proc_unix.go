//go:build unix

package servers

import (
	"os/exec"
	"syscall"
	"time"
)

// setProcessGroup makes the command the leader of a new process group, so
// that the whole group (npx and the node process it starts) can be stopped,
// and, where the system can, has it told to stop (SIGTERM) when this
// process dies without stopping it (SIGKILL, a crash): the others of its
// group see their stdin end then.
func setProcessGroup(cmd *exec.Cmd) {
	a := &syscall.SysProcAttr{Setpgid: true}
	setParentDeathSignal(a)
	cmd.SysProcAttr = a
}

// signalGroup sends SIGTERM (or SIGKILL) to the command's process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// waitGroupGone waits until no process of the command's group is left, or
// the timeout passes.
func waitGroupGone(cmd *exec.Cmd, timeout time.Duration) {
	if cmd.Process == nil {
		return
	}
	deadline := time.Now().Add(timeout)
	for syscall.Kill(-cmd.Process.Pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}
