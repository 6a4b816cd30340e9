//go:build !linux

package runtime

// limitWorkerProcess limits this (worker) process for one run. Without
// Linux's address-space limit only the GC limit and the watchdog apply.
func limitWorkerProcess(l Limits) error {
	limitWorkerRuntime(l)
	return nil
}
