package runtime

import (
	"fmt"
	"time"

	"github.com/mcpcode/mcpcode/runtime/internal/textfmt"
)

// Limits bound one run. A zero field takes its default (see DefaultLimits).
type Limits struct {
	// Timeout is the wall time of the whole run.
	Timeout time.Duration `json:"timeout,omitempty"`
	// MaxToolCalls is the number of tool calls a run may start.
	MaxToolCalls int `json:"maxToolCalls,omitempty"`
	// MaxOutput is the number of characters of console output kept; the
	// rest is dropped and counted in Result.LogsOmitted.
	MaxOutput int `json:"maxOutput,omitempty"`
	// MaxStackDepth is the maximum JavaScript call depth.
	MaxStackDepth int `json:"maxStackDepth,omitempty"`
	// MaxTimers is the number of timers that may be pending at once.
	MaxTimers int `json:"maxTimers,omitempty"`
	// Memory is enforced by the OS in worker isolation; in-process it is a
	// best-effort watchdog on the Go heap.
	Memory int64 `json:"memory,omitempty"`
	// FSQuota is the number of bytes a run may write under workspace/.
	FSQuota int64 `json:"fsQuota,omitempty"`
}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// DefaultLimits returns the limits used for fields left zero.
func DefaultLimits() Limits {
	return Limits{
		Timeout:       30 * time.Second,
		MaxToolCalls:  500,
		MaxOutput:     20000,
		MaxStackDepth: 1000,
		MaxTimers:     1000,
		Memory:        256 * mib,
		FSQuota:       64 * mib,
	}
}

// withDefaults fills zero (or negative) fields from DefaultLimits.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.Timeout <= 0 {
		l.Timeout = d.Timeout
	}
	if l.MaxToolCalls <= 0 {
		l.MaxToolCalls = d.MaxToolCalls
	}
	if l.MaxOutput <= 0 {
		l.MaxOutput = d.MaxOutput
	}
	if l.MaxStackDepth <= 0 {
		l.MaxStackDepth = d.MaxStackDepth
	}
	if l.MaxTimers <= 0 {
		l.MaxTimers = d.MaxTimers
	}
	if l.Memory <= 0 {
		l.Memory = d.Memory
	}
	if l.FSQuota <= 0 {
		l.FSQuota = d.FSQuota
	}
	return l
}

// Names of the limits, as reported in RunError.Limit.
const (
	LimitTimeout   = "timeout"
	LimitMemory    = "memory"
	LimitToolCalls = "tool-calls"
	LimitStack     = "stack"
	LimitTimers    = "timers"
	LimitFSQuota   = "fs-quota"
	// LimitOutput is the size of the program's result (4 MiB of JSON).
	LimitOutput = "output"
)

// limitMessage says which limit was hit, its value and the CLI flag that
// raises it. The flags are part of the contract with cmd/mcpcode.
func (l Limits) limitMessage(limit string) string {
	switch limit {
	case LimitTimeout:
		return fmt.Sprintf("wall-time limit of %s exceeded (--timeout)", l.Timeout)
	case LimitMemory:
		return fmt.Sprintf("memory limit of %s exceeded (--memory)", formatBytes(l.Memory))
	case LimitToolCalls:
		return fmt.Sprintf("tool-call limit of %d reached (--max-tool-calls)", l.MaxToolCalls)
	case LimitStack:
		return fmt.Sprintf("call-stack limit of %d frames exceeded (--max-stack-depth)", l.MaxStackDepth)
	case LimitTimers:
		return fmt.Sprintf("timer limit of %d pending timers reached (--max-timers)", l.MaxTimers)
	case LimitFSQuota:
		return fmt.Sprintf("workspace write quota of %s exceeded (--fs-quota)", formatBytes(l.FSQuota))
	case LimitOutput:
		return fmt.Sprintf("result limit of %s of JSON exceeded: return less", formatBytes(maxResultBytes))
	}
	return "limit " + limit + " exceeded"
}

// omittedMessage is the final log line when console output was cut.
func (l Limits) omittedMessage(omitted int) string {
	return fmt.Sprintf("[mcpcode: %d characters of output omitted: output limit of %d characters reached (--max-output)]", omitted, l.MaxOutput)
}

// formatBytes renders a byte count in the largest binary unit that divides
// it, as limits are stated.
func formatBytes(n int64) string { return textfmt.Bytes(n) }

// sizeText renders a measured size for a message.
func sizeText(n int64) string { return textfmt.Size(n) }
