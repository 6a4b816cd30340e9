//go:build !linux

package worker

import "github.com/mcpcode/mcpcode/runtime"

// limitProcess limits this (worker) process for one job. Without Linux's
// address-space limit only the GC limit and the memory watchdog apply.
func limitProcess(l runtime.Limits) error {
	limitRuntime(l)
	return nil
}
