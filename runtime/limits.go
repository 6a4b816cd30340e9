package runtime

import (
	"fmt"
	"time"

	"github.com/mcpcode/mcpcode/runtime/internal/textfmt"
)

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

// WithDefaults returns l with its zero (or negative) fields taken from
// DefaultLimits: the limits a run with l enforces.
func (l Limits) WithDefaults() Limits {
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
	case LimitResultSize:
		return fmt.Sprintf("result limit of %s of JSON exceeded: return less", formatBytes(MaxResultBytes))
	}
	return "limit " + limit + " exceeded"
}

// Exceeded is the error of a run that hit limit (one of the Limit*
// names): kind "limit", the limit's name, and a message that states its
// value and the CLI flag that raises it.
func (l Limits) Exceeded(limit string) *RunError {
	return &RunError{Kind: KindLimit, Limit: limit, Message: l.limitMessage(limit)}
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
