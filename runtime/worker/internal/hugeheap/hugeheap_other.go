//go:build !linux

package hugeheap

const supported = false

func reserve(int) uintptr { return 0 }

func advise(uintptr, uintptr) {}
