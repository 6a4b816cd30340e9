//go:build !linux

package pipesize

func grow(uintptr) {}

func size(uintptr) int { return 0 }
