//go:build linux

package worker

import (
	"bufio"
	"bytes"
	"os"
	goruntime "runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeHeapBytes is how much heap a worker has mapped and advised to be
// backed by huge pages when a large result comes: room for its values (a
// 10,000-row table builds about 17 MB of them) and the garbage made on the
// way.
const hugeHeapBytes = 64 << 20

// largeResultBytes is the size from which a result's values are worth it.
const largeResultBytes = 1 << 20

var hugeHeap struct {
	once sync.Once
	// limit is the job's memory limit once the worker may do it (0: not).
	limit atomic.Int64
}

// allowHugeHeap lets the worker advise huge pages when a large result
// comes (beforeLargeResult), if the job's memory limit leaves room for
// the allocation that maps them.
func allowHugeHeap(memoryLimit int64) {
	if memoryLimit >= 4*hugeHeapBytes && !raceEnabled {
		hugeHeap.limit.Store(memoryLimit)
	}
}

// beforeLargeResult is called by the worker's reader before it reads a
// tool result of n bytes.
func beforeLargeResult(n int) {
	if n >= largeResultBytes && hugeHeap.limit.Load() > 0 {
		hugeHeap.once.Do(adviseHugePages)
	}
}

// adviseHugePages asks the kernel to back this worker's Go heap with
// transparent huge pages (madvise MADV_HUGEPAGE), as far as the system
// allows them: under THP "never" nothing changes, under "always" the
// advice is given already.
//
// A worker is a fresh process whose heap grows from little as it builds
// the values of a large tool result, and every 4 KiB page it touches for
// the first time costs a page fault: about 13 µs each on the virtualised
// machine this was measured on (a 10,000-row table's values are some
// 5,000 faults); a 2 MiB page costs one. The Go runtime maps heap memory
// as the heap grows, and a fresh mapping does not keep the advice given to
// the address space reserved for it; so the heap is first made to map
// hugeHeapBytes (one allocation, collected at once), then the mappings
// that hold it and the heap before it are advised. Nothing is touched
// here: the resident size grows only as the heap is used (in steps of 2
// MiB). It is done once, when the first large result comes, so that small
// programs pay nothing; and only while the heap is far below the job's
// memory limit (the memory watchdog must not see the allocation as the
// program's).
func adviseHugePages() {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 || int64(s[0].Value.Uint64())+hugeHeapBytes > hugeHeap.limit.Load()/2 {
		return
	}
	b := make([]byte, hugeHeapBytes)
	big := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	small := uintptr(unsafe.Pointer(new([64]byte)))
	b = nil
	goruntime.GC() // the allocation is free heap again, for the result
	for _, r := range heapMappings(big, small) {
		_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, r[0], r[1]-r[0], unix.MADV_HUGEPAGE)
	}
}

// heapMappings returns the writable private mappings of this process
// (from /proc/self/maps) that contain any of addrs, each once.
func heapMappings(addrs ...uintptr) [][2]uintptr {
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
