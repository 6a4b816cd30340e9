//go:build !linux

package hugeheap

const supported = false

func advise(int) {}
