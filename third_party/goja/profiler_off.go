//go:build !goja_profile

package goja

// mcpcode's patch 4: goja's execution-time profiler (profiler.go) is built
// only with the goja_profile build tag. It imports github.com/google/pprof/profile,
// whose package initialisers compile some thirty regular expressions in
// every process that links goja, about 3% of the CPU of a worker process
// that runs one small program; mcpcode never profiles programs. This file
// keeps what vm.go uses: with no profile started, no VM ever samples.

import (
	"errors"
	"io"
	"time"
)

const profMaxStackDepth = 64

const (
	profReqNone int32 = iota
	profReqDoSample
	profReqSampleReady
	profReqStop
)

type _globalProfiler struct {
	p       profiler
	enabled int32
}

var globalProfiler _globalProfiler

type profTracker struct {
	req, finished int32
	start, stop   time.Time
	numFrames     int
	frames        [profMaxStackDepth]StackFrame
}

type profiler struct{}

// registerVm is never called (enabled stays 0); were it, the tracker
// asks the VM to stop sampling at once.
func (p *profiler) registerVm() *profTracker { return &profTracker{req: profReqStop} }

// StartProfile returns an error: this build has no profiler (build with
// the goja_profile tag for one).
func StartProfile(io.Writer) error {
	return errors.New("goja was built without its profiler (build tag goja_profile)")
}

// StopProfile does nothing: no profile can have been started.
func StopProfile() {}
