package runtime

import (
	"math"
	"time"

	"github.com/dlclark/regexp2/v2"
)

// inProcessRegexpTimeout bounds one regular-expression match in this
// process. goja runs patterns that Go's regexp cannot (backreferences,
// lookaround) with regexp2, which backtracks and ignores Interrupt; its
// match timeout is the only brake. A match that times out fails (as "no
// match"); legitimate matches on data of sane size take far less. The
// setting is process-wide (regexp2 reads it when a pattern is compiled), so
// worker processes set it to their one run's wall time instead.
const inProcessRegexpTimeout = 5 * time.Second

func init() {
	if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
		regexp2.DefaultMatchTimeout = inProcessRegexpTimeout
	}
}
