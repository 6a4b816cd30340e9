//go:build !unix

package worker

import "os/exec"

func isolateProcess(*exec.Cmd) {}

func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func killedBySignal(interface{ Sys() any }) (string, bool) { return "", false }
