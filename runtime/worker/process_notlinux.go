//go:build !linux

package worker

import (
	"os"
	"syscall"
)

func setParentDeathSignal(*syscall.SysProcAttr) {}

// keepDescriptorsFromChildren does nothing here: descriptors inherited
// open across exec are passed on to workers on these systems.
func keepDescriptorsFromChildren() {}

func growPipe(*os.File) {}

func pipeSize(*os.File) int { return 0 }
