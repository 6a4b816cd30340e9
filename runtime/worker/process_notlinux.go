//go:build !linux

package worker

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}

// keepDescriptorsFromChildren does nothing here: descriptors inherited
// open across exec are passed on to workers on these systems.
func keepDescriptorsFromChildren() {}
