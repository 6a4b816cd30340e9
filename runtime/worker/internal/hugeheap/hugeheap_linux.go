//go:build linux

package hugeheap

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

const supported = true

// reserve makes the heap map room bytes, which the next garbage collection
// frees again; it returns their address. On a fresh heap the allocation is
// taken from memory never used, which the Go runtime does not zero:
// nothing is touched.
func reserve(room int) uintptr {
	b := make([]byte, room)
	return uintptr(unsafe.Pointer(unsafe.SliceData(b)))
}

// advise advises the mappings that hold the room reserved at at (it may
// span two) with MADV_HUGEPAGE.
func advise(at, room uintptr) {
	for _, r := range mappings(at, at+room-1) {
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
