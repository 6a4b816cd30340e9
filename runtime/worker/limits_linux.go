//go:build linux

package worker

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/mcpcode/mcpcode/runtime"
)

// addressSpaceSlack is added to the address-space limit on top of the
// process's size at job start and the memory limit: room for thread stacks,
// the GC's metadata and the race detector's shadow memory, none of which is
// the program's data. The limit exists to make a huge allocation fail inside
// the worker instead of taking the machine's memory; the memory watchdog and
// the GC limit stop gradual growth near the limit itself.
const addressSpaceSlack = 256 << 20

// limitProcess limits this (worker) process for one job.
func limitProcess(l runtime.Limits) error {
	limitRuntime(l)
	base, err := virtualSize()
	if err != nil {
		return err
	}
	limit := base + uint64(l.Memory) + addressSpaceSlack
	if raceEnabled {
		// The race detector maps shadow memory for everything the heap
		// maps; allow for it so tests under -race behave like production.
		limit = base + 4*uint64(l.Memory) + 4*addressSpaceSlack
	}
	rl := syscall.Rlimit{Cur: limit, Max: limit}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &rl); err != nil {
		return fmt.Errorf("setting RLIMIT_AS: %w", err)
	}
	return nil
}

// virtualSize reads this process's virtual memory size (VmSize) from
// /proc/self/status: the Go runtime reserves address space up front, so the
// limit is set relative to it.
func virtualSize() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading the process size: %w", err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmSize:"); ok {
			fields := strings.Fields(rest)
			if len(fields) >= 1 {
				kb, err := strconv.ParseUint(fields[0], 10, 64)
				if err != nil {
					return 0, fmt.Errorf("reading VmSize: %w", err)
				}
				return kb * 1024, nil
			}
		}
	}
	return 0, errors.New("no VmSize in /proc/self/status")
}
