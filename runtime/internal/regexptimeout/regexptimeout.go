// Package regexptimeout owns the process-wide match timeout of the regular
// expressions goja runs with regexp2: the patterns Go's regexp cannot run
// (backreferences, lookaround), which backtrack and ignore Interrupt, so
// the match timeout is their only brake. A match that times out fails (as
// "no match"); legitimate matches on data of sane size take far less.
//
// regexp2 reads the setting when a pattern is compiled. Importing this
// package sets it to InProcess unless something set it already; a worker
// process, which serves one run, sets it to that run's wall time.
package regexptimeout

import (
	"math"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// InProcess bounds one match in a process that runs programs in-process
// (isolation "none"), where runs of different lengths share the setting.
const InProcess = 5 * time.Second

func init() {
	if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
		regexp2.DefaultMatchTimeout = InProcess
	}
}

// Set bounds every match of the patterns compiled from now on to d. Call it
// before any program runs: it is not safe to call concurrently with runs.
func Set(d time.Duration) { regexp2.DefaultMatchTimeout = d }
