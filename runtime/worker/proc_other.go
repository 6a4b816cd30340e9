//go:build !unix

package worker

import "os"

func killProcessGroup(p *os.Process) { _ = p.Kill() }

func killedBySignal(interface{ Sys() any }) (string, bool) { return "", false }
