//go:build !linux

package workerstart

// keepDescriptorsFromChildren does nothing here: descriptors inherited
// open across exec are passed on to workers on these systems.
func keepDescriptorsFromChildren() {}
