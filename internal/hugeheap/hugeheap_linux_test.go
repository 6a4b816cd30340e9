//go:build linux

package hugeheap

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestAdvise: once Large is called in a process that allowed it, heap
// allocated afterwards lies in a mapping advised to use huge pages
// (VmFlags "hg"); not before Allow, and not for a memory limit too small.
func TestAdvise(t *testing.T) {
	if raceEnabled {
		t.Skip("not done under the race detector")
	}
	Large() // not allowed yet: nothing happens
	if b := make([]byte, 8<<20); strings.Contains(vmFlags(t, uintptr(unsafe.Pointer(&b[0]))), " hg ") {
		t.Skip("the heap is advised already (THP set up by someone else)")
	}
	Allow(64<<20, 128<<20) // a limit under four times the room: not allowed
	Large()
	if b := make([]byte, 8<<20); strings.Contains(vmFlags(t, uintptr(unsafe.Pointer(&b[0]))), " hg ") {
		t.Error("advised although the memory limit is too small")
	}
	Allow(64<<20, 1<<30)
	Large()
	b := make([]byte, 8<<20)
	if flags := vmFlags(t, uintptr(unsafe.Pointer(&b[0]))); !strings.Contains(flags, " hg ") {
		t.Errorf("the heap's mapping has VmFlags%s, want hg (MADV_HUGEPAGE)", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping holding addr
// (/proc/self/smaps), with a space on either side of each flag.
func vmFlags(t *testing.T, addr uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	in := false
	for s.Scan() {
		line := s.Text()
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			if in {
				return rest + " "
			}
			continue
		}
		// A mapping's first line: 7f0000000000-7f0000400000 rw-p ...
		fields := strings.Fields(line)
		if len(fields) < 2 || len(fields[1]) != 4 {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if ok && err1 == nil && err2 == nil {
			in = uint64(addr) >= start && uint64(addr) < end
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return ""
}
