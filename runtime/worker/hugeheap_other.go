//go:build !linux

package worker

// Huge pages for the heap are Linux's (hugeheap_linux.go).
func allowHugeHeap(int64)   {}
func beforeLargeResult(int) {}
