package runtime

import (
	"time"

	"github.com/dop251/goja"
)

// maxTimerDelay is the longest delay setTimeout honors (2^31-1 ms, as in
// Node and browsers).
const maxTimerDelay = 1<<31 - 1

// installTimers defines setTimeout and clearTimeout. Timers count against
// MaxTimers while pending and never outlive the run's wall time. As in
// Node, a delay that is not a number from 1 to 2^31-1 ms (NaN, Infinity,
// 0, negative, larger) means 1 ms.
func (r *run) installTimers() error {
	setTimeout := func(call goja.FunctionCall) goja.Value {
		if r.finished {
			panic(r.finishedError("setTimeout"))
		}
		fn, ok := goja.AssertFunction(call.Argument(0))
		if !ok {
			panic(r.vm.NewTypeError("setTimeout: the callback must be a function"))
		}
		if len(r.loop.timerByID) >= r.lim.MaxTimers {
			panic(r.limitErrorValue(LimitTimers))
		}
		ms := call.Argument(1).ToFloat()
		if !(ms >= 1 && ms <= maxTimerDelay) {
			ms = 1
		}
		// Not shortened to the wall time: a timer due after the deadline must
		// never fire (the run ends at the deadline instead), whatever the load.
		d := time.Duration(ms * float64(time.Millisecond))
		var extra []goja.Value
		if len(call.Arguments) > 2 {
			extra = append(extra, call.Arguments[2:]...)
		}
		var id int64
		id = r.loop.addTimer(d, func() error {
			delete(r.timers, id)
			_, err := fn(goja.Undefined(), extra...)
			return r.loopError(err)
		})
		r.timers[id] = true
		return r.vm.ToValue(id)
	}
	clearTimeout := func(call goja.FunctionCall) goja.Value {
		if id := call.Argument(0); !goja.IsUndefined(id) && !goja.IsNull(id) && r.timers[id.ToInteger()] {
			// Only the realm's own timers: ids are counted run-wide.
			delete(r.timers, id.ToInteger())
			r.loop.clearTimer(id.ToInteger())
		}
		return goja.Undefined()
	}
	g := r.vm.GlobalObject()
	if err := g.Set("setTimeout", setTimeout); err != nil {
		return err
	}
	return g.Set("clearTimeout", clearTimeout)
}
