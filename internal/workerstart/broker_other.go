//go:build !linux

package workerstart

import (
	"context"
	"errors"
	"io"
	"os"
)

// BrokerArg is the hidden command that runs the broker (Linux only).
const BrokerArg = "__broker"

// RunnerArg is the hidden command of a warm runner (Linux only).
const RunnerArg = "__runner"

// BrokerEnv turns the broker off (there is none on this system).
const BrokerEnv = "MCPCODE_WARM"

func runViaBroker([]string) {}

// StartBroker does nothing: the broker is for Linux only.
func StartBroker() {}

// ServeBroker fails: the broker is for Linux only.
func ServeBroker(context.Context, string, string) error {
	return errors.New("the broker runs on Linux only")
}

// ServeRunner fails: runners are for Linux only.
func ServeRunner(func([]string, func(int)) int, func(), func(io.Writer) error) int {
	os.Stderr.WriteString("mcpcode: runners are for Linux only\n")
	return 2
}
