//go:build linux

package hugeheap

import (
	"bufio"
	"bytes"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

// advise makes the heap map room bytes and advises the mappings that hold
// them and the heap before them with MADV_HUGEPAGE.
func advise(room int) {
	b := make([]byte, room)
	big := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	small := uintptr(unsafe.Pointer(new([64]byte)))
	b = nil
	runtime.GC() // the allocation is free heap again, for what comes
	for _, r := range mappings(big, small) {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], unix.MADV_HUGEPAGE)
	}
}

// mappings returns the writable private mappings of this process (from
// /proc/self/maps) that contain any of addrs, each once.
func mappings(addrs ...uintptr) [][2]uintptr {
	data, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return nil
	}
	var out [][2]uintptr
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		// 7f0000000000-7f0000400000 rw-p 00000000 00:00 0
		fields := bytes.Fields(s.Bytes())
		if len(fields) < 2 || string(fields[1]) != "rw-p" {
			continue
		}
		lo, hi, ok := bytes.Cut(fields[0], []byte("-"))
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		for _, a := range addrs {
			if uint64(a) >= start && uint64(a) < end {
				out = append(out, [2]uintptr{uintptr(start), uintptr(end)})
				break
			}
		}
	}
	return out
}
