// Package bundletrace lets tests see what their own process bundled:
// runtime.Bundle reports every call here before it reads anything. The
// worker tests use it to prove that untrusted source was bundled in a
// worker process, never in the parent.
package bundletrace

import "sync/atomic"

// Func receives the entry and source of one runtime.Bundle call (source is
// nil when the program is read from entry).
type Func func(entry string, source []byte)

var hook atomic.Pointer[Func]

// SetHook makes f receive every later runtime.Bundle call in this process;
// nil removes the hook. Tests only: set it in TestMain, before anything
// bundles.
func SetHook(f Func) {
	if f == nil {
		hook.Store(nil)
		return
	}
	hook.Store(&f)
}

// Note reports one runtime.Bundle call to the hook, if any.
func Note(entry string, source []byte) {
	if f := hook.Load(); f != nil {
		(*f)(entry, source)
	}
}
