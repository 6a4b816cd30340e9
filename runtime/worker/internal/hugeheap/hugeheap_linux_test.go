//go:build linux

package hugeheap

import (
	"bufio"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// testRoom is the room the tests reserve.
const testRoom = 64 << 20

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestLarge: once Large is called in a process set up with room, heap
// allocated afterwards lies in a mapping advised to use huge pages
// (VmFlags "hg"); not before, not without room, and not for a memory limit
// too small. Large touches not the room: once the heap has allocated and
// freed it, the Go runtime zeroes it when it is allocated again, page by
// page, which would take 16,384 page faults. The room is free heap again
// when Large returns (a memory watchdog reading the heap would count it
// otherwise).
func TestLarge(t *testing.T) {
	if raceEnabled {
		t.Skip("not done under the race detector")
	}
	const most = testRoom / 4096 / 16 // a sixteenth of a fault per page
	if b := make([]byte, 8<<20); strings.Contains(vmFlags(t, uintptr(unsafe.Pointer(&b[0]))), " hg ") {
		t.Skip("the heap is advised already (THP set up by someone else)")
	}
	for _, tt := range []struct {
		name  string
		room  int
		limit int64
	}{
		{"no room", 0, 1 << 30},
		{"a limit under four times the room", testRoom, 128 << 20},
	} {
		Setup(tt.room, tt.limit)
		Large()
		if b := make([]byte, 8<<20); strings.Contains(vmFlags(t, uintptr(unsafe.Pointer(&b[0]))), " hg ") {
			t.Errorf("%s: advised", tt.name)
		}
	}

	Setup(testRoom, 1<<30)
	before := minorFaults()
	Large()
	if n := minorFaults() - before; n > most {
		t.Errorf("Large took %d page faults, want at most %d", n, most)
	}
	if h := heapObjects(); h >= testRoom {
		t.Errorf("heap objects after Large: %d bytes, want less than the room (%d)", h, testRoom)
	}
	b := make([]byte, 8<<20)
	if flags := vmFlags(t, uintptr(unsafe.Pointer(&b[0]))); !strings.Contains(flags, " hg ") {
		t.Errorf("the heap's mapping has VmFlags%s, want hg (MADV_HUGEPAGE)", flags)
	}
}

// minorFaults is this process's count of minor page faults.
func minorFaults() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return ru.Minflt
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
